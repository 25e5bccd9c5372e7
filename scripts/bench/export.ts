// Benchmark of the exports: GET /exports?resource=equivalencies as CSV and as
// JSON, at 100,000 and at 1,000,000 equivalencies, each downloaded whole from a
// freshly started server process: rows per second, and the server's peak
// resident memory (VmHWM of the whole process, database thread included) beside
// its resident memory before the export. Baseline in the same run, on
// PostgreSQL: the same rows in the same order as CSV from
// `COPY (SELECT …) TO STDOUT WITH CSV` through the same driver (pg).
//
// `--shape real` gives the rules the shape of published agreements (sources named, targets by
// course id and by code, alternatives, choices: shapeLikePublishedAgreements), where every
// rendered row looks courses up by key, and prints CSV and CTDL beside JSON.
//
//   npx tsx scripts/bench/export.ts [--database-url postgresql://…] [--sizes 100000,1000000] [--formats csv,json,ctdl] [--shape plain|real]
import { parseArgs } from "node:util";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { cleanupStack, createCredential, fixed, freshDatabase, machine, printTable } from "./harness.ts";
import { loadCatalog, shapeLikePublishedAgreements, startServerProcess, stopServerProcess } from "./catalog.ts";
import { memoryOf } from "./procfs.ts";

const GOAL_COPY_RATIO = 0.3;
const GOAL_EMBEDDED_ROWS_PER_SECOND = 60_000;
const GOAL_PEAK_GROWTH = 1.2;
/** On the real shape: CSV and CTDL at least this share of JSON's rows/s. */
const GOAL_JSON_RATIO = 0.5;

/** The export's rows and order (src/repositories/exports.ts, CSV_COLUMNS), as the COPY baseline reads them. */
const COPY_QUERY = `COPY (
  SELECT id, source_course_id, target_institution_id, target_course_id, target_code, status, decided_by, decided_at,
         policy_basis, version, provenance, dataset_version_id, created_at, updated_at
  FROM equivalencies WHERE environment = 'live' ORDER BY created_at, id
) TO STDOUT WITH (FORMAT csv, HEADER)`;

interface Figure {
  name: string;
  rows: number;
  seconds: number;
  mib: number;
  rssBefore?: number;
  peak?: number;
}

async function download(origin: string, key: string, format: string): Promise<{ seconds: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(`${origin}/api/v1/exports?resource=equivalencies&format=${format}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  if (!response.ok || !response.body) throw new Error(`the export answered ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body) bytes += chunk.length;
  return { seconds: (performance.now() - started) / 1000, bytes };
}

async function copyBaseline(url: string): Promise<{ seconds: number; bytes: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    const stream = client.query(copyTo(COPY_QUERY));
    let bytes = 0;
    for await (const chunk of stream) bytes += (chunk as Buffer).length;
    return { seconds: (performance.now() - started) / 1000, bytes };
  } finally {
    await client.end();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      "database-url": { type: "string" },
      sizes: { type: "string", default: "100000,1000000" },
      formats: { type: "string", default: "csv,json" },
      shape: { type: "string", default: "plain" },
    },
    strict: true,
  });
  const sizes = values.sizes
    .split(",")
    .map(Number)
    .sort((a, b) => a - b);
  const { push, cleanup } = cleanupStack();
  try {
    const bench = await freshDatabase({ databaseUrl: values["database-url"] ?? null });
    push(bench.dispose);
    const embedded = !bench.config.databaseUrl;
    let database = bench.database;
    const { organizationId, key } = await createCredential(database);
    const figures: Figure[] = [];
    let loaded = 0;
    for (const size of sizes) {
      if (embedded && loaded > 0) database = await openMigratedDatabase(bench.config, createLogger("silent"));
      await loadCatalog({ ...bench, database }, organizationId, size, loaded);
      if (values.shape === "real") await shapeLikePublishedAgreements({ ...bench, database });
      loaded = size;
      // PGlite is one process's database: hand it over to the server process.
      if (embedded) await database.close();
      if (!embedded) {
        const copy = await copyBaseline(bench.config.databaseUrl!);
        figures.push({ name: `baseline: COPY … TO STDOUT WITH CSV (pg), ${size}`, rows: size, ...mib(copy) });
      }
      for (const format of values.formats.split(",")) {
        const server = await startServerProcess(bench);
        try {
          const before = memoryOf(server.child.pid!);
          const result = await download(server.origin, key, format);
          const after = memoryOf(server.child.pid!);
          figures.push({
            name: `GET /exports?format=${format}, ${size}`,
            rows: size,
            ...mib(result),
            rssBefore: before.rss,
            peak: after.peak,
          });
        } finally {
          await stopServerProcess(server.child);
        }
      }
    }

    console.log(
      `\nExport benchmark — ${bench.label}; ${machine()}; ${values.shape === "real" ? "rules shaped like published agreements (--shape real)" : "plain rules"}\n`,
    );
    const copyOf = (f: Figure) => figures.find((c) => c.name.startsWith("baseline") && c.rows === f.rows);
    const jsonOf = (f: Figure) => figures.find((c) => c.name.includes("format=json") && c.rows === f.rows);
    printTable(
      [
        "export",
        "rows",
        "s",
        "rows/s",
        "MiB",
        "÷ COPY rows/s",
        "÷ JSON rows/s",
        "server RSS before MiB",
        "server peak MiB",
      ],
      figures.map((f) => {
        const copy = copyOf(f);
        const json = jsonOf(f);
        return [
          f.name,
          f.rows.toLocaleString("en-US"),
          fixed(f.seconds, 1),
          fixed(f.rows / f.seconds, 0),
          fixed(f.mib, 0),
          copy && copy !== f ? fixed(copy.seconds / f.seconds, 2) : "",
          json && json !== f && !f.name.startsWith("baseline") ? fixed(json.seconds / f.seconds, 2) : "",
          f.rssBefore === undefined ? "" : fixed(f.rssBefore, 0),
          f.peak === undefined ? "" : fixed(f.peak, 0),
        ];
      }),
    );
    const csv = figures.filter((f) => f.name.includes("format=csv"));
    const [small, large] = [csv[0], csv[csv.length - 1]];
    const growth = small && large && small !== large ? large.peak! / small.peak! : undefined;
    const rate = large ? large.rows / large.seconds : Number.NaN;
    const copy = large && copyOf(large);
    const verdict = (met: boolean | undefined) => (met === undefined ? "not measured" : met ? "met" : "NOT met");
    console.log(
      `\nGoals: CSV ${embedded ? `≥ ${GOAL_EMBEDDED_ROWS_PER_SECOND.toLocaleString("en-US")} rows/s ${verdict(rate >= GOAL_EMBEDDED_ROWS_PER_SECOND)} (${fixed(rate, 0)})` : `≥ ${GOAL_COPY_RATIO} × COPY ${verdict(copy ? copy.seconds / large.seconds >= GOAL_COPY_RATIO : undefined)} (${copy ? fixed(copy.seconds / large.seconds, 2) : "n/a"})`}; ` +
        `peak RSS at ${large?.rows.toLocaleString("en-US")} ≤ ${GOAL_PEAK_GROWTH} × at ${small?.rows.toLocaleString("en-US")} ${verdict(growth === undefined ? undefined : growth <= GOAL_PEAK_GROWTH)} (${growth === undefined ? "n/a" : fixed(growth, 2)}).`,
    );
    if (values.shape === "real") {
      for (const format of ["csv", "ctdl"]) {
        const rendered = figures.filter((f) => f.name.includes(`format=${format}`));
        for (const f of rendered) {
          const json = jsonOf(f);
          const ratio = json ? json.seconds / f.seconds : undefined;
          console.log(
            `Goal (real shape): ${format.toUpperCase()} ≥ ${GOAL_JSON_RATIO} × JSON at ${f.rows.toLocaleString("en-US")} — ${verdict(ratio === undefined ? undefined : ratio >= GOAL_JSON_RATIO)} (${ratio === undefined ? "n/a: add json to --formats" : fixed(ratio, 2)}).`,
          );
        }
      }
    }
  } finally {
    await cleanup();
  }
}

function mib(result: { seconds: number; bytes: number }) {
  return { seconds: result.seconds, mib: result.bytes / 2 ** 20 };
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
