// POST /equivalencies/imports: a CSV file of articulation rules (import-csv.ts for
// the layout). Each row is decided as POST /equivalencies or PATCH /equivalencies/{id} would
// decide it (the same checks, the ambiguity check included); a row that would be ambiguous is
// stored as `conflict` with an issue. The file is checked whole first (header, institutions,
// stewardship, course codes); its rows are then decided from records read before a transaction
// (other requests are served meanwhile, on the embedded database's one connection too) and written
// in one (import-batch.ts) if nothing they read has changed since. On PostgreSQL the whole file is
// one transaction: all of it or, after a failure, nothing. On the embedded database it is written
// in chunks of EMBEDDED_IMPORT_CHUNK_ROWS rows, each its own transaction, so that other requests
// wait at most one chunk's write: a failure leaves whole chunks written, and importing the file
// again completes it (its written rows are `unchanged`).
import { setImmediate as turn } from "node:timers/promises";
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
import { createIssueList, readRows, type ImportIssue, type ImportResult, type ParsedRow } from "./import-csv.ts";
import { clip, type CourseRef } from "./import-cells.ts";
import { createImportBatch, LostRaceError, type BatchRecords, type ImportBatch } from "./import-batch.ts";
import { stampsSorted } from "../../repositories/equivalency-imports.ts";

export {
  IMPORT_COLUMNS,
  MAX_IMPORT_ROWS,
  parseRow,
  type ImportIssue,
  type ImportResult,
} from "./import-csv.ts";

/**
 * Rows per transaction on the embedded database: about 30 ms of writing on a two-core machine, the
 * longest other requests wait (docs/operations.md has the measurement).
 */
export const EMBEDDED_IMPORT_CHUNK_ROWS = 100;

/** The chunk size for a database: the embedded one has one connection, PostgreSQL writes the file in one transaction. */
export function importChunkRowsFor(kind: "embedded" | "postgresql"): number | undefined {
  return kind === "embedded" ? EMBEDDED_IMPORT_CHUNK_ROWS : undefined;
}

/**
 * Rows planned or decided between two turns of the event loop: a whole file's, at once, kept the
 * process's other requests waiting for a quarter of a second.
 */
const ROWS_A_TURN = 500;

/** A file of 10,000 rows is written in one transaction on PostgreSQL: longer than a request's. */
const IMPORT_TRANSACTION = { timeout: 120_000 };
const MAX_ATTEMPTS = 3;
/**
 * An import that writes this many equivalencies refreshes the planner's statistics afterwards (see
 * refreshStatistics); a file of this many rows written in chunks, before its first chunk too.
 */
const REFRESH_STATISTICS_AFTER = 1_000;

/** A row whose courses were found: the rule it asks for, by ids. */
interface PlannedRow {
  row: ParsedRow;
  body: EquivalencyCreate;
  identity: { sourceCourseId: string; targetInstitutionId: string; targetKey: string };
  /** The row's courses by id, named as the file named them (for its issues). */
  names: Map<string, string>;
}

type Result = "created" | "updated" | "unchanged" | "conflict";
type RowOutcome = ImportIssue[] | { result: Result; issue?: ImportIssue };

export function createEquivalencyImportService(
  deps: Pick<Repositories, "courses" | "equivalencies" | "equivalencyImports" | "stewardship" | "transaction"> & {
    /** Not used any more (rows are decided in a batch); still accepted so callers written for it compile. */
    equivalenciesService?: EquivalenciesService;
    now?: () => Date;
    /**
     * Rows written per transaction; the whole file in one when absent. The embedded database
     * serves other requests on its one connection only between transactions (importChunkRowsFor).
     */
    chunkRows?: number;
  },
) {
  const { equivalencies, equivalencyImports, stewardship, transaction, now = () => new Date() } = deps;
  const chunkRows = deps.chunkRows ?? Number.POSITIVE_INFINITY;

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
      const institutions = await equivalencyImports.findInstitutions(
        environment,
        rows.flatMap((row) => [row.sourceInstitutionId, row.targetInstitutionId]),
      );
      for (const row of rows) {
        if (row.sourceInstitutionId && !institutions.has(row.sourceInstitutionId))
          row.issues.push(unknownInstitution(row, "source_institution", row.sourceInstitutionId));
        if (row.targetInstitutionId && !institutions.has(row.targetInstitutionId))
          row.issues.push(unknownInstitution(row, "target_institution", row.targetInstitutionId));
      }
      const wellFormed = rows.filter((row) => !row.issues.length);
      await assertSteward(
        stewardship,
        caller,
        wellFormed.map((row) => ({ institutionId: row.targetInstitutionId })),
      );
      const keys = wellFormed.flatMap((row) => [
        ...row.sourceSets
          .flat()
          .flatMap((ref) =>
            ref.codes.map((code) => ({ institutionId: row.sourceInstitutionId, codeKey: courseCodeKey(code) })),
          ),
        ...row.targets.flatMap((t) =>
          t.ref.codes.map((code) => ({ institutionId: row.targetInstitutionId, codeKey: courseCodeKey(code) })),
        ),
      ]);
      const known = await equivalencyImports.findCourseIdsByCodes(environment, keys);
      const courseOf = (institutionId: string, code: string) =>
        known.get(`${institutionId}\u0000${courseCodeKey(code)}`);
      const plans: (PlannedRow | ImportIssue[])[] = [];
      for (const row of rows) {
        plans.push(row.issues.length ? row.issues : plan(row));
        if (plans.length % ROWS_A_TURN === 0) await turn();
      }

      const summary = { received: rows.length, created: 0, updated: 0, unchanged: 0, conflict: 0, rejected: 0 };
      const issues = createIssueList();
      issues.push(...headerIssues);
      /** The file's own rules by id, to name them by row (across chunks too). */
      let rowOfRule = new Map<string, number>();
      const tally = (outcomes: RowOutcome[]) => {
        for (const outcome of outcomes) {
          if (Array.isArray(outcome)) {
            summary.rejected += 1;
            issues.push(...outcome);
          } else {
            summary[outcome.result] += 1;
            if (outcome.issue) issues.push(outcome.issue);
          }
        }
      };
      const answer = (): ImportResult => ({ dryRun, summary, issues: issues.list() });

      if (dryRun) {
        noteNothingChanged();
        const whole = needsOf(plans);
        tally((await decide(plans, await readRecords(equivalencyImports, whole), rowOfRule)).outcomes);
        return answer();
      }
      let written = 0;
      // The embedded database has no autovacuum, and a chunk's lookups of stored rules are planned
      // from statistics: without them (rules written by single requests) each chunk of 100 rows took
      // 40–110 ms more than with them. Refreshed once: every 1,000 rows cost more than it saved.
      const chunked = plans.length > chunkRows;
      if (chunked && plans.length >= REFRESH_STATISTICS_AFTER) await refreshStatistics();
      for (let first = 0; first < plans.length; first += chunkRows) {
        written += await writeChunk(plans.slice(first, first + chunkRows));
      }
      if (written) equivalencies.forgetTotals();
      else noteNothingChanged();
      if (written >= REFRESH_STATISTICS_AFTER) await refreshStatistics();
      return answer();

      /** In a transaction of its own: its sample size is set for that transaction only. */
      async function refreshStatistics() {
        await transaction((writes) => writes.equivalencyImports.refreshStatistics());
      }

      /**
       * Decides these rows and writes them in one transaction; returns how many equivalencies it
       * wrote. Read and decided before the transaction, so that the embedded database's one
       * connection serves other requests meanwhile; the transaction then takes the rule sets' locks
       * and writes these decisions if nothing they read has changed since, else decides again.
       */
      async function writeChunk(chunk: (PlannedRow | ImportIssue[])[]): Promise<number> {
        const needs = needsOf(chunk);
        for (let attempt = 1; ; attempt++) {
          try {
            const early = await readRecords(equivalencyImports, needs);
            const decidedEarly = await decide(chunk, early, rowOfRule);
            const decided = await transaction(async (writes) => {
              await writes.equivalencyImports.lockRuleSets(environment, needs.sets);
              const current = await writes.equivalencyImports.readStamps(
                environment,
                needs.identities,
                needs.sets,
                needs.courseIds,
              );
              const decision = sameStamps(current, stampsOf(early))
                ? decidedEarly
                : await decide(chunk, await readRecords(writes.equivalencyImports, needs), rowOfRule);
              await decision.batch.write(writes);
              return decision;
            }, IMPORT_TRANSACTION);
            rowOfRule = decided.rowOfRule;
            tally(decided.outcomes);
            return decided.batch.size;
          } catch (error) {
            // A PATCH of one of the file's equivalencies committed between the import's read and its write: decide again.
            if (!(error instanceof LostRaceError)) throw error;
            if (attempt >= MAX_ATTEMPTS)
              throw new ConflictError("Equivalencies of the file are being changed concurrently; retry the import.");
          }
        }
      }

      /** The stored records the rows' decisions depend on. */
      async function readRecords(imports: EquivalencyImportsRepository, needs: RecordNeeds): Promise<BatchRecords> {
        return {
          stored: await imports.findByIdentitiesOrAcceptedInSets(environment, needs.identities, needs.sets),
          courses: await imports.findCourses(environment, needs.courseIds),
          institutions: await imports.findInstitutions(environment, needs.targetInstitutionIds),
        };
      }

      /** These rows decided in order against these records (a dry run too: it only writes nothing). */
      async function decide(chunk: (PlannedRow | ImportIssue[])[], records: BatchRecords, named: Map<string, number>) {
        const batch = createImportBatch(caller, records, { record: true });
        const ruleRows = new Map(named);
        const outcomes: RowOutcome[] = [];
        for (const rowPlan of chunk) {
          outcomes.push(Array.isArray(rowPlan) ? rowPlan : await decideRow(batch, rowPlan, ruleRows));
          if (outcomes.length % ROWS_A_TURN === 0) await turn();
        }
        return { batch, outcomes, rowOfRule: ruleRows };
      }

      /** One course of the row by its codes (all of them must name the same course), or why not. */
      function resolve(
        institutionId: string,
        ref: CourseRef,
      ): { id: string } | { missing: string[] } | { split: true } {
        const ids = ref.codes.map((code) => courseOf(institutionId, code));
        const missing = ref.codes.filter((_, i) => !ids[i]);
        if (missing.length) return { missing };
        if (new Set(ids).size > 1) return { split: true };
        return { id: ids[0]! };
      }

      /** The row's rule by course ids, or the issues of the courses that were not found. */
      function plan(row: ParsedRow): PlannedRow | ImportIssue[] {
        const issues: ImportIssue[] = [];
        const names = new Map<string, string>();
        const institutionName = (id: string) => `${institutions.get(id)?.name ?? id} (${id})`;
        const sourceColumn = (index: number) =>
          row.sourceColumns === "expression"
            ? "source_courses"
            : `source_course_${row.sourceColumns[index] ?? index + 1}`;
        const sets = row.sourceSets.map((set) =>
          set.map((ref, index) => {
            const found = resolve(row.sourceInstitutionId, ref);
            if ("id" in found) {
              if (!names.has(found.id)) names.set(found.id, ref.text);
              return found.id;
            }
            issues.push({
              row: row.row,
              column: sourceColumn(index),
              message:
                "split" in found
                  ? `"${ref.text}" joins codes of different courses at ${institutionName(row.sourceInstitutionId)}`
                  : `no course ${found.missing.map((code) => `"${code}"`).join(", ")} at ${institutionName(row.sourceInstitutionId)}`,
            });
            return "";
          }),
        );
        // A code that names a course of the target institution is that course; any other is a code (elective, …).
        const targets: RuleTargetInput[] = row.targets.map(({ ref, credits }, index) => {
          const found = resolve(row.targetInstitutionId, ref);
          const withCredits = credits !== undefined ? { credits } : {};
          if ("id" in found) {
            if (!names.has(found.id)) names.set(found.id, ref.text);
            return { courseId: found.id, ...withCredits };
          }
          if (ref.codes.length === 1) return { code: ref.codes[0], ...withCredits };
          issues.push({
            row: row.row,
            column:
              row.targetColumns === "expression"
                ? "target_courses"
                : `target_course_${row.targetColumns[index] ?? index + 1}`,
            message:
              "split" in found
                ? `"${ref.text}" joins codes of different courses at ${institutionName(row.targetInstitutionId)}`
                : `"${ref.text}" names one course by several codes, but ${institutionName(row.targetInstitutionId)} has no course ${found.missing.map((code) => `"${code}"`).join(", ")}`,
          });
          return {};
        });
        if (issues.length) return issues;
        const sourceCourseIds = sets[0];
        const body: EquivalencyCreate = {
          ...row.fields,
          sourceCourseIds,
          ...(sets.length > 1 ? { sourceCourseSets: sets } : {}),
          ...(row.targetChoice ? { targetChoice: row.targetChoice } : {}),
          targetInstitutionId: row.targetInstitutionId,
          targets,
        };
        const keyed = {
          sourceCourseIds,
          sourceCourseSets: sets,
          targetChoice: row.targetChoice ?? "all",
          targets: targets.map((t) => ({ courseId: t.courseId ?? null, code: t.code ?? null, credits: null })),
          kind: body.kind ?? "equivalent",
          generalEducationArea: body.generalEducationArea ?? null,
          effectiveFrom: body.effectiveFrom ?? null,
        };
        const targetKey = ruleKey(keyed);
        return {
          row,
          body,
          names,
          identity: { sourceCourseId: sourceCourseIds[0], targetInstitutionId: row.targetInstitutionId, targetKey },
        };
      }

      /** The row decided and recorded in the batch: its result, or the issues that kept it out. */
      async function decideRow(
        batch: ImportBatch,
        planned: PlannedRow,
        rowOfRule: Map<string, number>,
      ): Promise<RowOutcome> {
        const { row, identity } = planned;
        try {
          const existingId = await batch.lookups.idByTarget(identity);
          const outcome = existingId
            ? await update(batch, planned, existingId, rowOfRule)
            : await create(batch, planned, rowOfRule);
          if (!existingId) rowOfRule.set(outcome.id, row.row);
          return outcome.issue ? { result: outcome.result, issue: outcome.issue } : { result: outcome.result };
        } catch (error) {
          if (!(error instanceof ProblemError) || error.status >= 500) throw error;
          return problemIssues(row, error, planned.names);
        }
      }

      async function create(batch: ImportBatch, { row, body }: PlannedRow, rowOfRule: Map<string, number>) {
        const write = async (input: EquivalencyCreate) => {
          const { record, resolved } = await decideCreate(batch.lookups, caller, input, now);
          batch.created(record, resolved);
          return record.id;
        };
        try {
          return { result: "created" as const, id: await write(body) };
        } catch (error) {
          if (!(error instanceof RuleOverlapError)) throw error;
          const id = await write({ ...body, status: "conflict" });
          return { result: "conflict" as const, id, issue: overlapIssue(row, error, dryRun, rowOfRule) };
        }
      }

      async function update(batch: ImportBatch, { row, body }: PlannedRow, id: string, rowOfRule: Map<string, number>) {
        const { sourceCourseIds: _sources, targetInstitutionId: _target, ...patch } = body;
        const write = async (changes: typeof patch) => {
          const current = batch.current(id);
          const decision = await decideUpdate(batch.lookups, environment, current, changes, now());
          if (decision.changed) batch.updated(current, decision);
          return decision.changed;
        };
        try {
          return { result: (await write(patch)) ? ("updated" as const) : ("unchanged" as const), id };
        } catch (error) {
          if (!(error instanceof RuleOverlapError)) throw error;
          await write({ ...patch, status: "conflict" });
          return { result: "conflict" as const, id, issue: overlapIssue(row, error, dryRun, rowOfRule) };
        }
      }
    },
  };
}

/** What deciding these rows reads: the rules of their identities and sets, their courses and target institutions. */
interface RecordNeeds {
  identities: PlannedRow["identity"][];
  sets: { targetInstitutionId: string; sourceSetKey: string }[];
  courseIds: string[];
  targetInstitutionIds: string[];
}

function needsOf(plans: (PlannedRow | ImportIssue[])[]): RecordNeeds {
  const planned = plans.filter((p): p is PlannedRow => !Array.isArray(p));
  return {
    identities: planned.map((p) => p.identity),
    sets: planned.flatMap(({ body, identity }) =>
      setsOf(body).map((set) => ({
        targetInstitutionId: identity.targetInstitutionId,
        sourceSetKey: sourceSetKey(set),
      })),
    ),
    courseIds: planned.flatMap(({ body }) => [
      ...setsOf(body).flat(),
      ...(body.targets ?? []).flatMap((t) => (t.courseId ? [t.courseId] : [])),
    ]),
    targetInstitutionIds: planned.map((p) => p.identity.targetInstitutionId),
  };
}

/** The stamps (EquivalencyImportsRepository.readStamps) of the records a decision read. */
function stampsOf(records: BatchRecords): string[] {
  return stampsSorted([
    ...records.stored.map((rule) => `${rule.id} ${rule.version} ${rule.status}`),
    ...[...records.courses.values()].map((course) => `${course.id} ${course.version}`),
  ]);
}

function sameStamps(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((stamp, i) => stamp === b[i]);
}

/** The rule's source course sets (its only set when it gives none). */
function setsOf(body: EquivalencyCreate): string[][] {
  const sets = (body as { sourceCourseSets?: string[][] }).sourceCourseSets;
  return sets?.length ? sets : [body.sourceCourseIds!];
}

function unknownInstitution(row: ParsedRow, column: string, id: string): ImportIssue {
  return {
    row: row.row,
    column,
    message: `the institution "${clip(id)}" is unknown (no institution with that id or IPEDS unit id)`,
  };
}

/** Rules of the file named by their row ("the accepted rule of row 3 (eq_…)"), stored rules by id. */
function overlapIssue(
  row: ParsedRow,
  error: RuleOverlapError,
  dryRun: boolean,
  rowOfRule: Map<string, number>,
): ImportIssue {
  const which = error.ambiguous ? "ambiguous with" : "a duplicate of";
  const rules = error.conflictingEquivalencyIds.map((id) =>
    rowOfRule.has(id) ? `of row ${rowOfRule.get(id)} (${id})` : id,
  );
  return {
    row: row.row,
    column: "status",
    message: `${which} the accepted rule${rules.length > 1 ? "s" : ""} ${rules.join(", ")}: ${dryRun ? "would be stored" : "stored"} as conflict`,
  };
}

/** The service's 4xx problem as the row's issues: one per pointer, by column, courses by the file's codes. */
function problemIssues(row: ParsedRow, error: ProblemError, names: Map<string, string>): ImportIssue[] {
  const named = (message: string) =>
    message.replace(/\bcrs_[0-9A-Za-z]+\b/g, (id) => (names.has(id) ? `"${names.get(id)}"` : id));
  const errors = error.extensions.errors ?? [];
  if (!errors.length) return [{ row: row.row, column: null, message: named(error.message) }];
  return errors.map(({ pointer, message }) => ({
    row: row.row,
    column: columnOf(pointer, row),
    message: named(message),
  }));
}

function columnOf(pointer: string, row: ParsedRow): string | null {
  const sources = row.sourceColumns;
  const targets = row.targetColumns;
  const patterns: [RegExp, (match: RegExpMatchArray) => string][] = [
    [
      /^\/(sourceCourseIds|sourceCourseId)(?:\/(\d+))?/,
      (m) =>
        sources === "expression"
          ? "source_courses"
          : `source_course_${sources[Number(m[2] ?? 0)] ?? Number(m[2] ?? 0) + 1}`,
    ],
    [/^\/sourceCourseSets/, () => (sources === "expression" ? "source_courses" : "source_course_1")],
    [
      /^\/targets\/(\d+)/,
      (m) =>
        targets === "expression" ? "target_courses" : `target_course_${targets[Number(m[1])] ?? Number(m[1]) + 1}`,
    ],
    [/^\/targetChoice/, () => (targets === "expression" ? "target_courses" : "target_choice")],
    [/^\/targetInstitutionId/, () => "target_institution"],
    [/^\/(\w+)/, (m) => m[1].replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)],
  ];
  for (const [pattern, column] of patterns) {
    const match = pointer.match(pattern);
    if (match) return column(match);
  }
  return null;
}
