// The CSV layout of POST /equivalencies/imports (docs/api-guide.md#importing-rules-from-a-csv-file),
// in the spirit of the TES import: up to ten source and ten target course columns by institution
// and course code, then the rule's conditions and decision. Each data row is read and checked on
// its own, as the parser streams it; what needs the database is import.ts's.
import type { components } from "../../../generated/api-types.ts";
import { ProblemError, ValidationError } from "../../kernel/errors.ts";
import type { EquivalencyStatus, RuleKind } from "../types.ts";
import type { EquivalencyCreate } from "./decisions.ts";

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

export type ImportIssue = components["schemas"]["EquivalencyImportIssue"];
export type ImportResult = components["schemas"]["EquivalencyImportResult"];

/** One data row read and checked on its own: the rule it asks for, by codes, or its issues. */
export interface ParsedRow {
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
export async function readRows(text: string): Promise<{ rows: ParsedRow[]; headerIssues: ImportIssue[] }> {
  const headerIssues: ImportIssue[] = [];
  // Loaded with the first import, not with the server: most servers never import a file.
  const { parse } = await import("csv-parse");
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
