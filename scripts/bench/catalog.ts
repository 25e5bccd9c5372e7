// What the read and export benchmarks share: the catalog they read (100
// institutions, 100,000 courses and any number of equivalencies, loaded in
// bulk), and the server (or floor) in a process of its own.
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInstitutions, fixed, type BenchDatabase } from "./harness.ts";

const INSTITUTIONS = 100;
const COURSES_PER_INSTITUTION = 1_000;

/** Courses "crs_bench_NNNNNNNN", 1,000 per institution; equivalencies 60% accepted, 30% pending, 10% conflict. */
function step(what: string): () => void {
  const started = performance.now();
  process.stderr.write(`${what}… `);
  return () => process.stderr.write(`${fixed((performance.now() - started) / 1000)} s\n`);
}

/**
 * Loads equivalencies `from` … `equivalencies - 1` (and, when `from` is 0, the
 * institutions and courses): a later call with a larger count adds to an earlier one.
 */
export async function loadCatalog(
  bench: BenchDatabase,
  organizationId: string,
  equivalencies: number,
  from = 0,
): Promise<void> {
  const institutions = from === 0 ? await createInstitutions(bench.database, INSTITUTIONS) : null;
  const firstIpeds = institutions
    ? Number(institutions[0].slice("inst_".length))
    : Number(
        (await bench.database.prisma.institution.findFirstOrThrow({ orderBy: { id: "asc" } })).id.slice("inst_".length),
      );
  const courses = INSTITUTIONS * COURSES_PER_INSTITUTION;
  await bench.database.session(async (sql) => {
    // The rows are consistent by construction: skip the per-row foreign key
    // triggers, and build the secondary indexes once at the end (as the
    // migrations define them) instead of row by row.
    await sql.exec("SET session_replication_role = replica");
    const indexes = await sql.query<{ name: string; definition: string }>(
      `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
       WHERE schemaname = current_schema() AND tablename = 'equivalencies' AND indexname <> 'equivalencies_pkey'
       ORDER BY indexdef LIKE 'CREATE UNIQUE%' DESC, indexname`,
    );
    for (const index of indexes) await sql.exec(`DROP INDEX "${index.name}"`);
    let done = step(`loading ${courses.toLocaleString("en-US")} courses`);
    if (from === 0)
      await sql.query(
        `INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, level, description, cip_code, version, created_at, updated_at)
       SELECT 'crs_bench_' || lpad(n::text, 8, '0'), 'live', 'inst_' || ($1::int + n / $2::int), 'BEN ' || lpad((n % $2::int)::text, 4, '0'),
              'BEN ' || lpad((n % $2::int)::text, 4, '0'), 'Benchmark course ' || n, 3, 'lower', NULL, '11.0701', 1, now(), now()
       FROM generate_series(0, $3::int - 1) AS n`,
        [firstIpeds, COURSES_PER_INSTITUTION, courses],
      );
    done();
    done = step(`loading ${(equivalencies - from).toLocaleString("en-US")} equivalencies`);
    await sql.query(
      `INSERT INTO equivalencies (id, environment, source_course_id, target_institution_id, target_course_id, target_code, target_key, status,
                                  decided_by, decided_at, policy_basis, version, provenance, organization_id, created_at, updated_at)
       SELECT 'eq_bench_' || lpad(n::text, 8, '0'), 'live', 'crs_bench_' || lpad(src::text, 8, '0'), 'inst_' || ($1::int + t),
              'crs_bench_' || lpad((t * $2::int + src % $2::int)::text, 8, '0'), 'BEN ' || lpad((src % $2::int)::text, 4, '0'),
              'course:crs_bench_' || lpad((t * $2::int + src % $2::int)::text, 8, '0'), status::"EquivalencyStatus",
              CASE WHEN status = 'pending' THEN NULL ELSE 'Registrar' END, CASE WHEN status = 'pending' THEN NULL ELSE created END,
              'Articulation agreement 2025', 1, 'direct', $4, created, created
       FROM (
         SELECT n, n % $3::int AS src, ((n % $3::int) / $2::int + 1 + (n / $3::int) * 7) % 100 AS t,
                CASE WHEN n % 10 < 6 THEN 'accepted' WHEN n % 10 < 9 THEN 'pending' ELSE 'conflict' END AS status,
                timestamp '2025-01-01' + n * interval '10 milliseconds' AS created
         FROM generate_series($6::int, $5::int - 1) AS n
       ) AS g`,
      [firstIpeds, COURSES_PER_INSTITUTION, courses, organizationId, equivalencies, from],
    );
    done();
    // A checkpoint after each step keeps the embedded database's write-ahead log
    // short; without it, building the fourth or fifth index on a million rows
    // stalled for over ten minutes.
    await sql.exec("CHECKPOINT");
    for (const index of indexes) {
      done = step(`building ${index.name}`);
      await sql.exec(index.definition);
      await sql.exec("CHECKPOINT");
      done();
    }
    done = step("VACUUM ANALYZE");
    await sql.exec("SET session_replication_role = DEFAULT");
    await sql.exec("VACUUM ANALYZE courses");
    await sql.exec("VACUUM ANALYZE equivalencies");
    done();
  });
}

/**
 * Gives the loaded rules the shape of published agreements (bench:export --shape real): every rule
 * names its source courses, seven in ten target a course record by id and the rest a code only,
 * every tenth has an alternative source set ("A or B"), every twentieth two targets of which the
 * student's program picks one. Course lookups by key are then what each rendered row costs, as on a
 * real catalog; the plain shape names no course beyond the row's own columns.
 */
export async function shapeLikePublishedAgreements(bench: BenchDatabase): Promise<void> {
  const done = step("shaping the rules like published agreements");
  await bench.database.session(async (sql) => {
    await sql.exec(
      `UPDATE equivalencies AS e SET
         source_course_ids = ARRAY[e.source_course_id],
         source_course_sets = CASE WHEN g.n % 10 = 0
           THEN jsonb_build_array(jsonb_build_array(e.source_course_id), jsonb_build_array('crs_bench_' || lpad(((g.src + 1) % ${INSTITUTIONS * COURSES_PER_INSTITUTION})::text, 8, '0')))
           ELSE jsonb_build_array(jsonb_build_array(e.source_course_id)) END,
         targets = CASE
           WHEN g.n % 20 = 1 THEN jsonb_build_array(
             jsonb_build_object('courseId', e.target_course_id, 'code', e.target_code, 'credits', NULL),
             jsonb_build_object('courseId', NULL, 'code', e.target_code || 'H', 'credits', NULL))
           WHEN g.n % 10 < 7 THEN jsonb_build_array(jsonb_build_object('courseId', e.target_course_id, 'code', e.target_code, 'credits', NULL))
           ELSE jsonb_build_array(jsonb_build_object('courseId', NULL, 'code', e.target_code || 'X', 'credits', NULL)) END,
         target_choice = CASE WHEN g.n % 20 = 1 THEN 'one_of'::"TargetChoice" ELSE 'all'::"TargetChoice" END
       FROM (SELECT id, substring(id from '[0-9]+$')::int AS n, substring(source_course_id from '[0-9]+$')::int AS src
             FROM equivalencies) AS g
       WHERE g.id = e.id`,
    );
    await sql.exec("VACUUM ANALYZE equivalencies");
  });
  done();
}

/** server.ts (the service) or floor-server.ts, in a process of its own. */
export function startServerProcess(
  bench: BenchDatabase,
  script = "server.ts",
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; origin: string }> {
  const child = fork(path.join(import.meta.dirname, script), [], {
    // BENCH_SERVER_NODE_OPTIONS="--cpu-prof" profiles the server process.
    execArgv: ["--import", "tsx", ...(process.env.BENCH_SERVER_NODE_OPTIONS?.split(" ").filter(Boolean) ?? [])],
    env: {
      ...process.env,
      BENCH_DATA_DIR: bench.config.dataDir,
      BENCH_DATABASE_URL: bench.config.databaseUrl ?? "",
      BENCH_SHARED_BUFFERS_MB: String(bench.config.embeddedSharedBuffersMb),
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve({ child, origin: (message as { origin: string }).origin }));
    child.once("exit", (code) => reject(new Error(`The server process exited with ${code} before listening.`)));
  });
}

export function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.disconnect();
  });
}
