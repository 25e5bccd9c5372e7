// POST /equivalencies/imports: a CSV file of articulation rules (import-csv.ts for
// the layout). Each row is decided as POST /equivalencies or PATCH /equivalencies/{id} would
// decide it (the same checks, the ambiguity check included); a row that would be ambiguous is
// stored as `conflict` with an issue. The whole file is decided from records read at once and
// written in one transaction (import-batch.ts): all of it or, after a failure,
// nothing.
import type { Credential } from "../../auth/credential.ts";
import type { Repositories } from "../../repositories/index.ts";
import type { EquivalencyImportsRepository } from "../../repositories/equivalency-imports.ts";
import { ConflictError, ProblemError, RuleOverlapError, ValidationError } from "../../kernel/errors.ts";
import { courseCodeKey } from "../../views/catalog.ts";
import { assertSteward } from "../stewardship.ts";
import { noteNothingChanged } from "../change-origin.ts";
import type { EquivalenciesService } from "../equivalencies.ts";
import { decideCreate, decideUpdate, type EquivalencyCreate, type RuleTargetInput } from "./decisions.ts";
import { ruleKey, sourceSetKey } from "./model.ts";
import { readRows, type ImportIssue, type ImportResult, type ParsedRow } from "./import-csv.ts";
import { createImportBatch, LostRaceError, type ImportBatch } from "./import-batch.ts";

export {
  IMPORT_COLUMNS,
  MAX_IMPORT_ROWS,
  parseRow,
  type ImportIssue,
  type ImportResult,
} from "./import-csv.ts";

/** A file of 10,000 rows is written in one transaction: longer than a request's. */
const IMPORT_TRANSACTION = { timeout: 120_000 };
const MAX_ATTEMPTS = 3;
/** An import that writes this many equivalencies refreshes the planner's statistics (see refreshStatistics). */
const REFRESH_STATISTICS_AFTER = 1_000;

/** A row whose courses were found: the rule it asks for, by ids. */
interface PlannedRow {
  row: ParsedRow;
  body: EquivalencyCreate;
  identity: { sourceCourseId: string; targetInstitutionId: string; targetKey: string };
}

type RowOutcome = ImportIssue[] | { result: "created" | "updated" | "unchanged" | "conflict"; issue?: ImportIssue };

export function createEquivalencyImportService(
  deps: Pick<Repositories, "courses" | "equivalencies" | "equivalencyImports" | "stewardship" | "transaction"> & {
    /** Not used any more (rows are decided in a batch); still accepted so callers written for it compile. */
    equivalenciesService?: EquivalenciesService;
    now?: () => Date;
  },
) {
  const { courses, equivalencies, equivalencyImports, stewardship, transaction, now = () => new Date() } = deps;

  return {
    async importEquivalencies(
      caller: Credential,
      csv: string | undefined,
      options: { dryRun?: boolean } = {},
    ): Promise<ImportResult> {
      // The contract checks JSON bodies only; a text body that is missing (or blank) is refused here.
      if (csv === undefined) throw ValidationError.single("", "a request body is required: the CSV file");
      const dryRun = options.dryRun === true;
      const environment = caller.environment;
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
      const known = await courses.findByCodeKeys(environment, keys);
      const courseOf = (institutionId: string, code: string) =>
        known.get(`${institutionId}\u0000${courseCodeKey(code)}`);
      const plans = rows.map((row) => (row.issues.length ? row.issues : plan(row)));
      const planned = plans.filter((p): p is PlannedRow => !Array.isArray(p));

      /** Reads what the rows name, then decides every row in order. */
      const decideAll = async (imports: EquivalencyImportsRepository, lock: boolean) => {
        const sets = planned.map(({ body, identity }) => ({
          targetInstitutionId: identity.targetInstitutionId,
          sourceSetKey: sourceSetKey(body.sourceCourseIds!),
        }));
        // The single write's locks, taken before anything is read, so no concurrent writer of these sets slips between.
        if (lock) await imports.lockRuleSets(environment, sets);
        const stored = await imports.findByIdentitiesOrAcceptedInSets(
          environment,
          planned.map((p) => p.identity),
          sets,
        );
        const courseIds = planned.flatMap(({ body }) => [
          ...body.sourceCourseIds!,
          ...(body.targets ?? []).flatMap((t) => (t.courseId ? [t.courseId] : [])),
        ]);
        const batch = createImportBatch(
          caller,
          {
            stored,
            courses: await imports.findCourses(environment, courseIds),
            institutions: await imports.findInstitutions(
              environment,
              planned.map((p) => p.identity.targetInstitutionId),
            ),
          },
          { record: !dryRun },
        );
        const summary = { received: rows.length, created: 0, updated: 0, unchanged: 0, conflict: 0, rejected: 0 };
        const issues: ImportIssue[] = [...headerIssues];
        for (const rowPlan of plans) {
          const outcome = Array.isArray(rowPlan) ? rowPlan : await decideRow(batch, rowPlan);
          if (Array.isArray(outcome)) {
            summary.rejected += 1;
            issues.push(...outcome);
          } else {
            summary[outcome.result] += 1;
            if (outcome.issue) issues.push(outcome.issue);
          }
        }
        return { batch, result: { dryRun, summary, issues } };
      };

      if (dryRun) {
        noteNothingChanged();
        return (await decideAll(equivalencyImports, false)).result;
      }
      for (let attempt = 1; ; attempt++) {
        try {
          const { batch, result } = await transaction(async (writes) => {
            const decided = await decideAll(writes.equivalencyImports, true);
            await decided.batch.write(writes);
            return decided;
          }, IMPORT_TRANSACTION);
          if (batch.size) equivalencies.forgetTotals();
          else noteNothingChanged();
          if (batch.size >= REFRESH_STATISTICS_AFTER) await equivalencyImports.refreshStatistics();
          return result;
        } catch (error) {
          // A PATCH of one of the file's equivalencies committed between the import's read and its write: decide again.
          if (!(error instanceof LostRaceError)) throw error;
          if (attempt >= MAX_ATTEMPTS)
            throw new ConflictError("Equivalencies of the file are being changed concurrently; retry the import.");
        }
      }

      /** The row's rule by course ids, or the issues of the source courses that were not found. */
      function plan(row: ParsedRow): PlannedRow | ImportIssue[] {
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
        const targetKey = ruleKey({
          sourceCourseIds,
          targets: targets.map((t) => ({ courseId: t.courseId ?? null, code: t.code ?? null, credits: null })),
          kind: body.kind ?? "equivalent",
          generalEducationArea: body.generalEducationArea ?? null,
          effectiveFrom: body.effectiveFrom ?? null,
        });
        return {
          row,
          body,
          identity: { sourceCourseId: sourceCourseIds[0], targetInstitutionId: row.targetInstitutionId, targetKey },
        };
      }

      /** The row decided (and, outside a dry run, recorded in the batch): its result, or the issues that kept it out. */
      async function decideRow(batch: ImportBatch, { row, body, identity }: PlannedRow): Promise<RowOutcome> {
        try {
          const existingId = await batch.lookups.idByTarget(identity);
          return existingId ? await update(batch, row, existingId, body) : await create(batch, row, body);
        } catch (error) {
          if (!(error instanceof ProblemError) || error.status >= 500) throw error;
          return problemIssues(row, error);
        }
      }

      async function create(batch: ImportBatch, row: ParsedRow, body: EquivalencyCreate) {
        const write = async (input: EquivalencyCreate) => {
          const { record, resolved } = await decideCreate(batch.lookups, caller, input, now);
          batch.created(record, resolved);
        };
        try {
          await write(body);
          return { result: "created" as const };
        } catch (error) {
          if (!(error instanceof RuleOverlapError)) throw error;
          await write({ ...body, status: "conflict" });
          return { result: "conflict" as const, issue: overlapIssue(row, error) };
        }
      }

      async function update(batch: ImportBatch, row: ParsedRow, id: string, body: EquivalencyCreate) {
        const { sourceCourseIds: _sources, targetInstitutionId: _target, ...patch } = body;
        const write = async (changes: typeof patch) => {
          const current = batch.current(id);
          const decision = await decideUpdate(batch.lookups, environment, current, changes, now());
          if (decision.changed) batch.updated(current, decision);
          return decision.changed;
        };
        try {
          return { result: (await write(patch)) ? ("updated" as const) : ("unchanged" as const) };
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
