// POST /equivalencies/imports: a CSV file of articulation rules, in the spirit of the TES import
// (docs/api-guide.md#importing-rules-from-a-csv-file): up to ten source and ten target course
// columns by institution and course code, then the rule's conditions and decision. Each row is
// written as POST /equivalencies or PATCH /equivalencies/{id} would write it (versions, events,
// the ambiguity check); a row that would be ambiguous is stored as `conflict` with an issue.
import { parse } from "csv-parse";
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import { ProblemError, RuleOverlapError, ValidationError } from "../kernel/errors.ts";
import { courseCodeKey } from "../views/catalog.ts";
import type { EquivalencyStatus, RuleKind } from "./types.ts";
import { assertSteward } from "./stewardship.ts";
import type { EquivalenciesService, EquivalencyCreate, RuleTargetInput } from "./equivalencies.ts";
import { ruleKey } from "./rules.ts";

export const MAX_IMPORT_ROWS = 10_000;
const MAX_COURSES = 10;

const numbered = (prefix: string) => Array.from({ length: MAX_COURSES }, (_, i) => `${prefix}_${i + 1}`);
const SOURCE_COLUMNS = numbered("source_course");
const TARGET_COLUMNS = numbered("target_course");
const TARGET_CREDIT_COLUMNS = numbered("target_credits");
const RULE_COLUMNS = [
  "kind",
  "general_education_area",
  "minimum_grade",
  "effective_from",
  "effective_until",
  "priority",
  "awarded_credits",
  "status",
  "decided_by",
  "policy_basis",
] as const;
/** Every column of the layout, in the documented order; the first three are required. */
export const IMPORT_COLUMNS = [
  "source_institution",
  ...SOURCE_COLUMNS,
  "target_institution",
  ...TARGET_COLUMNS,
  ...TARGET_CREDIT_COLUMNS,
  ...RULE_COLUMNS,
];
const REQUIRED = ["source_institution", "source_course_1", "target_institution"];

const KINDS: readonly RuleKind[] = ["equivalent", "elective", "general_education", "no_credit"];
const STATUSES: readonly EquivalencyStatus[] = ["pending", "accepted", "conflict"];
const GRADES = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "P"];

export interface ImportIssue {
  row: number;
  column: string | null;
  message: string;
}

export interface ImportResult {
  dryRun: boolean;
  summary: {
    received: number;
    created: number;
    updated: number;
    unchanged: number;
    conflict: number;
    rejected: number;
  };
  issues: ImportIssue[];
}

/** One data row read and checked on its own: the rule it asks for, by codes, or its issues. */
interface ParsedRow {
  row: number;
  sourceInstitutionId: string;
  sourceCodes: string[];
  targetInstitutionId: string;
  targets: { code: string; credits?: number }[];
  fields: Omit<EquivalencyCreate, "targetInstitutionId" | "sourceCourseIds" | "targets">;
  issues: ImportIssue[];
}

/** `inst_110635`, or the bare IPEDS unit id `110635`. */
function institutionIdOf(value: string): string {
  return /^\d+$/.test(value) ? `inst_${value}` : value;
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** The row's cells checked one by one; a cell left empty is the field's default. */
export function parseRow(record: Record<string, string>, row: number): ParsedRow {
  const issues: ImportIssue[] = [];
  const cell = (column: string) => (record[column] ?? "").trim();
  const issue = (column: string, message: string) => issues.push({ row, column, message });
  const choice = <T extends string>(column: string, allowed: readonly T[]): T | undefined => {
    const value = cell(column);
    if (value === "") return undefined;
    if (allowed.includes(value as T)) return value as T;
    issue(column, `must be one of ${allowed.join(", ")}, not "${value}"`);
    return undefined;
  };
  const number = (column: string, range: { min: number; max: number; integer?: boolean }): number | undefined => {
    const value = cell(column);
    if (value === "") return undefined;
    const parsed = Number(value);
    if (
      !Number.isFinite(parsed) ||
      parsed < range.min ||
      parsed > range.max ||
      (range.integer && !Number.isInteger(parsed))
    ) {
      issue(
        column,
        `must be ${range.integer ? "a whole number" : "a number"} from ${range.min} to ${range.max}, like ${range.integer ? "0" : "3.5"}`,
      );
      return undefined;
    }
    return parsed;
  };
  const date = (column: string): string | undefined => {
    const value = cell(column);
    if (value === "") return undefined;
    if (isCalendarDate(value)) return value;
    issue(column, `must be a calendar date YYYY-MM-DD, like 2024-08-15, not "${value}"`);
    return undefined;
  };
  for (const column of REQUIRED) if (cell(column) === "") issue(column, "is required");
  const sourceCodes = SOURCE_COLUMNS.map(cell).filter(Boolean);
  const targets = TARGET_COLUMNS.flatMap((column, index) => {
    const code = cell(column);
    const credits = number(TARGET_CREDIT_COLUMNS[index], { min: 0, max: 100 });
    if (!code) {
      if (credits !== undefined) issue(TARGET_CREDIT_COLUMNS[index], `gives credits to no course (${column} is empty)`);
      return [];
    }
    return [{ code, ...(credits !== undefined ? { credits } : {}) }];
  });
  const minimumGrade = cell("minimum_grade").toUpperCase();
  if (minimumGrade && !GRADES.includes(minimumGrade))
    issue("minimum_grade", `must be a letter grade (A+ to D-) or P, not "${cell("minimum_grade")}"`);
  const fields = {
    kind: choice("kind", KINDS),
    generalEducationArea: cell("general_education_area") || undefined,
    minimumGrade: GRADES.includes(minimumGrade) ? (minimumGrade as EquivalencyCreate["minimumGrade"]) : undefined,
    effectiveFrom: date("effective_from"),
    effectiveUntil: date("effective_until"),
    priority: number("priority", { min: -1000, max: 1000, integer: true }),
    awardedCredits: number("awarded_credits", { min: 0, max: 100 }),
    status: choice("status", STATUSES),
    decidedBy: cell("decided_by").slice(0, 200) || undefined,
    policyBasis: cell("policy_basis").slice(0, 2000) || undefined,
  };
  return {
    row,
    sourceInstitutionId: institutionIdOf(cell("source_institution")),
    sourceCodes,
    targetInstitutionId: institutionIdOf(cell("target_institution")),
    targets,
    fields: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    issues,
  };
}

/** The data rows of the file, parsed as they stream in; the header is checked first. */
async function readRows(text: string): Promise<{ rows: ParsedRow[]; headerIssues: ImportIssue[] }> {
  const headerIssues: ImportIssue[] = [];
  const parser = parse({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    columns: (header: string[]) => {
      const names = header.map((name) => name.trim().toLowerCase());
      const missing = REQUIRED.filter((name) => !names.includes(name));
      if (missing.length)
        throw ValidationError.single(
          "",
          `the header row lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
        );
      for (const name of names)
        if (!IMPORT_COLUMNS.includes(name))
          headerIssues.push({ row: 0, column: name, message: "is not a column of the layout; ignored" });
      return names;
    },
  });
  // The text is written at once; records come out of the parser one at a time as it reads them.
  parser.end(text);
  const rows: ParsedRow[] = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      if (rows.length === MAX_IMPORT_ROWS)
        throw ValidationError.single("", `a file holds at most ${MAX_IMPORT_ROWS.toLocaleString("en-US")} data rows`);
      rows.push(parseRow(record, rows.length + 1));
    }
  } catch (error) {
    if (error instanceof ProblemError) throw error;
    throw ValidationError.single("", `the file is not valid CSV: ${(error as Error).message}`);
  }
  return { rows, headerIssues };
}

export function createEquivalencyImportService(
  deps: Pick<Repositories, "courses" | "equivalencies" | "stewardship"> & {
    equivalenciesService: EquivalenciesService;
  },
) {
  const { courses, equivalencies, stewardship, equivalenciesService: rules } = deps;

  return {
    async importEquivalencies(
      caller: Credential,
      csv: string | undefined,
      options: { dryRun?: boolean } = {},
    ): Promise<ImportResult> {
      // The contract checks JSON bodies only; a text body that is missing (or blank) is refused here.
      if (csv === undefined) throw ValidationError.single("", "a request body is required: the CSV file");
      const dryRun = options.dryRun === true;
      const { rows, headerIssues } = await readRows(csv);
      const wellFormed = rows.filter((row) => !row.issues.length);
      await assertSteward(
        stewardship,
        caller,
        wellFormed.map((row) => ({ institutionId: row.targetInstitutionId })),
      );
      const keys = wellFormed.flatMap((row) => [
        ...row.sourceCodes.map((code) => ({ institutionId: row.sourceInstitutionId, codeKey: courseCodeKey(code) })),
        ...row.targets.map((t) => ({ institutionId: row.targetInstitutionId, codeKey: courseCodeKey(t.code) })),
      ]);
      const known = await courses.findByCodeKeys(caller.environment, keys);
      const courseOf = (institutionId: string, code: string) =>
        known.get(`${institutionId}\u0000${courseCodeKey(code)}`);

      const summary = { received: rows.length, created: 0, updated: 0, unchanged: 0, conflict: 0, rejected: 0 };
      const issues: ImportIssue[] = [...headerIssues];
      for (const row of rows) {
        const outcome = row.issues.length ? row.issues : await writeRow(row);
        if (Array.isArray(outcome)) {
          summary.rejected += 1;
          issues.push(...outcome);
        } else {
          summary[outcome.result] += 1;
          if (outcome.issue) issues.push(outcome.issue);
        }
      }
      return { dryRun, summary, issues };

      /** The row written (or, in a dry run, checked): its result, or the issues that kept it out. */
      async function writeRow(
        row: ParsedRow,
      ): Promise<ImportIssue[] | { result: "created" | "updated" | "unchanged" | "conflict"; issue?: ImportIssue }> {
        const missing = row.sourceCodes.flatMap((code, index) =>
          courseOf(row.sourceInstitutionId, code)
            ? []
            : [
                {
                  row: row.row,
                  column: `source_course_${index + 1}`,
                  message: `no course "${code}" at ${row.sourceInstitutionId}`,
                },
              ],
        );
        if (missing.length) return missing;
        const sourceCourseIds = row.sourceCodes.map((code) => courseOf(row.sourceInstitutionId, code)!.id);
        // A code that names a course of the target institution is that course; any other is a code (elective, …).
        const targets: RuleTargetInput[] = row.targets.map((t) => {
          const course = courseOf(row.targetInstitutionId, t.code);
          return {
            ...(course ? { courseId: course.id } : { code: t.code }),
            ...(t.credits !== undefined ? { credits: t.credits } : {}),
          };
        });
        const body: EquivalencyCreate = {
          ...row.fields,
          sourceCourseIds,
          targetInstitutionId: row.targetInstitutionId,
          targets,
        };
        const key = ruleKey({
          sourceCourseIds,
          targets: targets.map((t) => ({ courseId: t.courseId ?? null, code: t.code ?? null, credits: null })),
          kind: body.kind ?? "equivalent",
          generalEducationArea: body.generalEducationArea ?? null,
          effectiveFrom: body.effectiveFrom ?? null,
        });
        try {
          const existingId = await equivalencies.findIdByTarget(caller.environment, {
            sourceCourseId: sourceCourseIds[0],
            targetInstitutionId: row.targetInstitutionId,
            targetKey: key,
          });
          return existingId ? await update(row, existingId, body) : await create(row, body);
        } catch (error) {
          if (!(error instanceof ProblemError) || error.status >= 500) throw error;
          return problemIssues(row, error);
        }
      }

      async function create(row: ParsedRow, body: EquivalencyCreate) {
        try {
          await rules.createEquivalency(caller, body, { dryRun });
          return { result: "created" as const };
        } catch (error) {
          if (!(error instanceof RuleOverlapError)) throw error;
          await rules.createEquivalency(caller, { ...body, status: "conflict" }, { dryRun });
          return { result: "conflict" as const, issue: overlapIssue(row, error) };
        }
      }

      async function update(row: ParsedRow, id: string, body: EquivalencyCreate) {
        const { sourceCourseIds: _sources, targetInstitutionId: _target, ...patch } = body;
        const write = (changes: typeof patch) =>
          dryRun ? rules.previewEquivalencyUpdate(caller, id, changes) : rules.updateEquivalency(caller, id, changes);
        try {
          const { changed } = await write(patch);
          return { result: changed ? ("updated" as const) : ("unchanged" as const) };
        } catch (error) {
          if (!(error instanceof RuleOverlapError)) throw error;
          await write({ ...patch, status: "conflict" });
          return { result: "conflict" as const, issue: overlapIssue(row, error) };
        }
      }
    },
  };
}

function overlapIssue(row: ParsedRow, error: RuleOverlapError): ImportIssue {
  const which = error.ambiguous ? "ambiguous with" : "a duplicate of";
  return {
    row: row.row,
    column: "status",
    message: `${which} the accepted rule${error.conflictingEquivalencyIds.length > 1 ? "s" : ""} ${error.conflictingEquivalencyIds.join(", ")}: stored as conflict`,
  };
}

/** The service's 4xx problem as the row's issues: one per pointer, named by the column it most likely came from. */
function problemIssues(row: ParsedRow, error: ProblemError): ImportIssue[] {
  const errors = error.extensions.errors ?? [];
  if (!errors.length) return [{ row: row.row, column: null, message: error.message }];
  return errors.map(({ pointer, message }) => ({ row: row.row, column: columnOf(pointer), message }));
}

const POINTER_COLUMNS: [RegExp, (match: RegExpMatchArray) => string][] = [
  [/^\/sourceCourseIds\/(\d+)/, (m) => `source_course_${Number(m[1]) + 1}`],
  [/^\/targets\/(\d+)/, (m) => `target_course_${Number(m[1]) + 1}`],
  [/^\/targetInstitutionId/, () => "target_institution"],
  [/^\/(\w+)/, (m) => m[1].replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)],
];

function columnOf(pointer: string): string | null {
  for (const [pattern, column] of POINTER_COLUMNS) {
    const match = pointer.match(pattern);
    if (match) return column(match);
  }
  return null;
}
