// Benchmark of POST /equivalencies/imports' work: a CSV file of `--rows` rules (default 10,000;
// one source course each, accepted, C or better, dated) imported through the import service:
// parsed as it streams, every code resolved and every rule decided (the ambiguity check
// included) from records read before a transaction, and written under the rule sets' advisory
// locks: in one transaction on PostgreSQL, in chunks of 100 rows (each a transaction) on the
// embedded database, as the server does; the reads of another request meanwhile are measured. The baseline, in the same run, on the same database and through the same
// driver, is the plainest way to store the same rows: equivalencies, their versions, their
// events and their audit entries with plain multi-row INSERT … VALUES statements in one
// transaction, the values computed beforehand, no file, no lookups, no checks.
// Goal: ≥ 5,000 rows/s on both databases.
//
//   npm run bench:import -- [--rows 10000] [--database-url postgresql://…]
import os from "node:os";
import type { Database } from "../../src/db/database.ts";
import { newId } from "../../src/kernel/ids.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { createEquivalencyImportService, importChunkRowsFor } from "../../src/services/rules/import.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { cleanupStack, fixed, machine, printTable } from "./harness.ts";
import { courseId, createCourses, readRuleBenchOptions, ruleBench } from "./rules-common.ts";

const GOAL_ROWS_PER_SECOND = 5_000;
/** Another request's read waits at most this long while a file is imported (the usual latency of a busy request). */
const GOAL_BUSY_READ_MS = 250;
const READ_EVERY_MS = 10;

function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
}
/** Rows per INSERT … VALUES statement: well under PostgreSQL's 65,535 parameters. */
const CHUNK = 1_000;

type Tx = Parameters<Parameters<Database["prisma"]["$transaction"]>[0]>[0];

/** Inserts `rows` into `table`, CHUNK rows a statement; a column is `name` or `name::cast`. */
async function insertValues(tx: Tx, table: string, columns: string[], rows: unknown[][]) {
  const names = columns.map((column) => column.split("::")[0]);
  const casts = columns.map((column) => (column.includes("::") ? `::${column.split("::")[1]}` : ""));
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const tuples = chunk.map(
      (_, r) => `(${casts.map((cast, c) => `$${r * columns.length + c + 1}${cast}`).join(", ")})`,
    );
    await tx.$executeRawUnsafe(
      `INSERT INTO ${table} (${names.join(", ")}) VALUES ${tuples.join(", ")}`,
      ...chunk.flat(),
    );
  }
}

/** The same rules as the file's, stored by plain INSERTs: the floor of what an import must write. */
async function plainInserts(database: Database, caller: Credential, target: string, rows: number) {
  const now = new Date();
  const rules = Array.from({ length: rows }, (_, n) => ({ id: newId("eq"), source: courseId("base", n) }));
  const targetCourse = courseId("tgt", 0);
  const targets = JSON.stringify([{ courseId: targetCourse, code: "TGT 0", credits: null }]);
  await database.prisma.$transaction(
    async (tx) => {
      await insertValues(
        tx,
        "equivalencies",
        [
          "id",
          'environment::"Environment"',
          "source_course_id",
          "source_course_ids::text[]",
          "source_set_key",
          "target_institution_id",
          "target_course_id",
          "target_code",
          "target_key",
          "targets::jsonb",
          'status::"EquivalencyStatus"',
          "minimum_grade",
          "effective_from::date",
          "awarded_credits::float8",
          'awarded_credit_unit::"CreditUnit"',
          "decided_at::timestamp(3)",
          'provenance::"Channel"',
          "organization_id",
          "created_at::timestamp(3)",
          "updated_at::timestamp(3)",
        ],
        rules.map((r) => [
          r.id,
          "live",
          r.source,
          [r.source],
          r.source,
          target,
          targetCourse,
          "TGT 0",
          `course:${targetCourse}|from:2024-08-15`,
          targets,
          "accepted",
          "C",
          "2024-08-15",
          2.67,
          "semester",
          now,
          caller.channel,
          caller.organizationId,
          now,
          now,
        ]),
      );
      await insertValues(
        tx,
        "equivalency_versions",
        [
          "id",
          "equivalency_id",
          "version::int",
          "state::jsonb",
          "changed_fields::text[]",
          "actor_credential_id",
          "actor_organization_id",
          'actor_kind::"CredentialKind"',
          "recorded_at::timestamp(3)",
        ],
        rules.map((r) => [
          newId("eqv"),
          r.id,
          1,
          JSON.stringify({ id: r.id, status: "accepted", targets: JSON.parse(targets) }),
          [],
          caller.id,
          caller.organizationId,
          caller.kind,
          now,
        ]),
      );
      await insertValues(
        tx,
        "outbox_events",
        ["id", 'environment::"Environment"', "type", "payload::jsonb", "created_at::timestamp(3)"],
        rules.map((r) => {
          const id = newId("evt");
          return [id, "live", "equivalency.created", JSON.stringify({ id, data: { equivalencyId: r.id } }), now];
        }),
      );
      await insertValues(
        tx,
        "audit_entries",
        [
          "id",
          "organization_id",
          'actor_kind::"CredentialKind"',
          "actor_id",
          "operation_id",
          "target_type",
          "target_id",
          'environment::"Environment"',
          "created_at::timestamp(3)",
        ],
        rules.map((r) => [
          newId("aud"),
          caller.organizationId,
          caller.kind,
          caller.id,
          "importEquivalencies",
          "equivalency",
          r.id,
          "live",
          now,
        ]),
      );
    },
    { timeout: 600_000 },
  );
}

async function main() {
  const options = readRuleBenchOptions({ rows: 10_000 });
  const { rows } = options.counts;
  const { push, cleanup } = cleanupStack();
  try {
    const { bench, source, target, caller } = await ruleBench(options);
    push(bench.dispose);
    await createCourses(bench.database, source, "imp", rows);
    await createCourses(bench.database, source, "base", rows);
    await createCourses(bench.database, target, "tgt", 1);
    await createCourses(bench.database, source, "busy", rows);
    const repositories = repositoriesOf(bench.database);
    // As the server builds it: the embedded database writes the file in chunks.
    const imports = createEquivalencyImportService({
      ...repositories,
      chunkRows: importChunkRowsFor(bench.database.kind),
    });
    const loadBefore = os.loadavg()[0];

    const baselineStarted = performance.now();
    await plainInserts(bench.database, caller, target, rows);
    const baselineSeconds = (performance.now() - baselineStarted) / 1000;

    const header =
      "source_institution,source_course_1,target_institution,target_course_1,minimum_grade,effective_from,status";
    const lines = Array.from({ length: rows }, (_, n) => `${source},IMP ${n},${target},TGT 0,C,2024-08-15,accepted`);
    const csv = `${header}\r\n${lines.join("\r\n")}\r\n`;
    const started = performance.now();
    const result = await imports.importEquivalencies(caller, csv);
    const seconds = (performance.now() - started) / 1000;
    if (result.summary.created !== rows)
      throw new Error(
        `The import created ${result.summary.created} of ${rows} rows: ${JSON.stringify(result.issues.slice(0, 3))}`,
      );
    const reimportStarted = performance.now();
    const again = await imports.importEquivalencies(caller, csv);
    const reimportSeconds = (performance.now() - reimportStarted) / 1000;
    if (again.summary.unchanged !== rows)
      throw new Error(`The re-import left ${again.summary.unchanged} of ${rows} rows unchanged`);

    // Another request's reads while a file is imported: each read's latency, one every READ_EVERY_MS.
    const readWhile = async (work: Promise<unknown> | null, seconds: number) => {
      const latencies: number[] = [];
      let done = false;
      const finished = (work ?? new Promise((resolve) => setTimeout(resolve, seconds * 1000))).finally(() => {
        done = true;
      });
      while (!done) {
        const sent = performance.now();
        await repositories.institutions.findById("live", target);
        latencies.push(performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
      }
      await finished;
      latencies.sort((a, b) => a - b);
      return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? 0 };
    };
    const idleReads = await readWhile(null, 2);
    const busyLines = Array.from(
      { length: rows },
      (_, n) => `${source},BUSY ${n},${target},TGT 0,C,2024-08-15,accepted`,
    );
    const busyReads = await readWhile(
      imports.importEquivalencies(caller, `${header}\r\n${busyLines.join("\r\n")}\r\n`),
      0,
    );

    const rate = rows / seconds;
    const baselineRate = rows / baselineSeconds;
    console.log(`\nRule import benchmark — ${bench.label}; ${machine()} (${fixed(loadBefore, 1)} before the passes)`);
    console.log(
      `${rows.toLocaleString("en-US")} rows (${(csv.length / 1024).toFixed(0)} KiB of CSV), every one created accepted.\n`,
    );
    printTable(
      ["pass", "rows/s", "seconds", "ratio to baseline"],
      [
        [
          `importEquivalencies (CSV parse, code lookups, decisions, ${bench.database.kind === "embedded" ? "a transaction per chunk" : "one transaction"})`,
          fixed(rate, 0),
          fixed(seconds, 2),
          fixed(rate / baselineRate, 2),
        ],
        [
          "the same file again (every row unchanged)",
          fixed(rows / reimportSeconds, 0),
          fixed(reimportSeconds, 2),
          fixed(rows / reimportSeconds / baselineRate, 2),
        ],
        [
          "baseline: the same rows, versions, events and audit entries by plain multi-row INSERTs",
          fixed(baselineRate, 0),
          fixed(baselineSeconds, 2),
          "1.00",
        ],
      ],
    );
    console.log(
      `\nAnother request's read (an institution by id, every ${READ_EVERY_MS} ms) while the same number of new rows is imported, beside the same reads on an idle database:\n`,
    );
    printTable(
      ["reads", "p50 ms", "p99 ms", "max ms"],
      [
        ["during the import", fixed(busyReads.p50, 1), fixed(busyReads.p99, 1), fixed(busyReads.max, 1)],
        ["idle (baseline)", fixed(idleReads.p50, 1), fixed(idleReads.p99, 1), fixed(idleReads.max, 1)],
      ],
    );
    console.log(
      `\nGoal: ≥ ${GOAL_ROWS_PER_SECOND.toLocaleString("en-US")} rows/s — ${rate >= GOAL_ROWS_PER_SECOND ? "met" : "NOT met"} (${fixed(rate, 0)}); ` +
        `reads during an import within ${GOAL_BUSY_READ_MS} ms — ${busyReads.max <= GOAL_BUSY_READ_MS ? "met" : "NOT met"} (max ${fixed(busyReads.max, 0)} ms).`,
    );
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
