// Benchmark of POST /transfer-evaluations: evaluations of 40 courses against many accepted rules
// (default 1,000,000: one or two source courses each, over 100,000 courses and 100 target
// institutions), 32 connections (autocannon), beside a floor that answers the same question
// with the same SQL and the same engine behind node:http (no framework, no validation, no
// credentials, no demand counting): what the service's stack costs above the work itself.
// Both servers run in this process, one after the other, on the same database; each request
// asks about a random 40 courses of one source institution, so some find rules and some not.
//
//   npx tsx scripts/bench/evaluate.ts [--database-url postgresql://…] [--rules 1000000] [--duration 10]
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { createRepositories } from "../../src/repositories/index.ts";
import { evaluateTransfer, type CreditUnit, type RuleKind } from "../../src/services/rules/evaluation-engine.ts";
import { cleanupStack, createCredential, fixed, freshDatabase, machine, printTable, startServer } from "./harness.ts";

const CONNECTIONS = 32;
const COURSES_PER_EVALUATION = 40;
const SOURCE_COURSES = 100_000;
const TARGETS = 100;
/** The goals: the service at least half the floor's throughput, p99 under 100 ms on PostgreSQL. */
const GOAL_FLOOR_RATIO = 0.5;
const GOAL_P99_MS = 100;

const { values } = parseArgs({
  options: {
    "database-url": { type: "string" },
    rules: { type: "string", default: "1000000" },
    duration: { type: "string", default: "10" },
  },
  strict: true,
});
const RULES = Number(values.rules);
const SECONDS = Number(values.duration);

function randomBody(): string {
  const base = Math.floor(Math.random() * (SOURCE_COURSES / 1000)) * 1000;
  const picked = new Set<number>();
  while (picked.size < COURSES_PER_EVALUATION) picked.add(base + Math.floor(Math.random() * 1000));
  return JSON.stringify({
    targetInstitutionId: `inst_${800001 + Math.floor(Math.random() * TARGETS)}`,
    courses: [...picked].map((n) => ({ courseId: `crs_ev_${n}`, grade: "B", completedOn: "2025-06-01" })),
  });
}

async function load(database: Awaited<ReturnType<typeof freshDatabase>>["database"]) {
  const started = performance.now();
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO institutions (environment, id, ipeds_id, name, city, state, type, source, created_at, updated_at)
     SELECT 'live', 'inst_' || (800000 + n), (800000 + n)::text, 'Evaluation College ' || n, 'Springfield', 'CA',
            'four_year_public', 'direct', now(), now()
     FROM generate_series(0, $1::int) AS n`,
    TARGETS,
  );
  // Source courses belong to inst_800000; each target institution has one course of its own.
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, level, version, created_at, updated_at)
     SELECT 'crs_ev_' || n, 'live'::"Environment", 'inst_800000', 'EV ' || n, 'EV ' || n, 'Evaluation course ' || n, 3, 'lower'::"CourseLevel", 1, now(), now()
     FROM generate_series(0, $1::int - 1) AS n
     UNION ALL
     SELECT 'crs_evt_' || t, 'live'::"Environment", 'inst_' || (800000 + t), 'TGT 1', 'TGT 1', 'Target course', 4, 'lower'::"CourseLevel", 1, now(), now()
     FROM generate_series(1, $2::int) AS t`,
    SOURCE_COURSES,
    TARGETS,
  );
  // The GIN indexes are built once after the rows, several times faster than entry by entry.
  const ginIndexes = await database.prisma.$queryRawUnsafe<{ name: string; definition: string }[]>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename = 'equivalencies' AND indexdef LIKE '% USING gin %'`,
  );
  for (const index of ginIndexes) await database.prisma.$executeRawUnsafe(`DROP INDEX "${index.name}"`);
  // Rule n: target institution 1 + n % 100; one source course, or (every fifth) two neighbours.
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO equivalencies (id, environment, source_course_id, target_institution_id, target_course_id, target_code,
                                target_key, status, version, created_at, updated_at, source_course_ids, source_set_key,
                                targets, kind, minimum_grade, priority, awarded_credits, awarded_credit_unit)
     SELECT 'eq_ev_' || n, 'live', 'crs_ev_' || s, 'inst_' || (800001 + n % $2::int), 'crs_evt_' || (1 + n % $2::int), 'TGT 1',
            'bench:' || n, 'accepted', 1, now(), now(),
            CASE WHEN n % 5 = 0 THEN ARRAY['crs_ev_' || s, 'crs_ev_' || ((s + 1) % $3::int)] ELSE ARRAY['crs_ev_' || s] END,
            'bench:' || n,
            jsonb_build_array(jsonb_build_object('courseId', 'crs_evt_' || (1 + n % $2::int), 'code', 'TGT 1', 'credits', 4)),
            (CASE WHEN n % 7 = 0 THEN 'elective' ELSE 'equivalent' END)::"RuleKind",
            CASE WHEN n % 3 = 0 THEN 'C' END, n % 2, 4, 'semester'
     FROM (SELECT n, ((n::bigint * 7919) % $3::int)::int AS s FROM generate_series(0, $1::int - 1) AS n) AS rules`,
    RULES,
    TARGETS,
    SOURCE_COURSES,
  );
  for (const index of ginIndexes) await database.prisma.$executeRawUnsafe(index.definition);
  // As a database that has been in service is: statistics gathered, and the rows' visibility
  // settled, which the first reads after a bulk insert would otherwise do at the requests' cost.
  await database.prisma.$executeRawUnsafe("VACUUM ANALYZE");
  process.stderr.write(
    `loaded ${RULES.toLocaleString("en-US")} rules in ${fixed((performance.now() - started) / 1000)} s\n`,
  );
}

/** The floor: node:http, the body parsed as is, the same two statements and the same engine. */
async function startFloor(database: Awaited<ReturnType<typeof freshDatabase>>["database"]) {
  const reads = createRepositories(database.prisma, { statement: database.statement }).transferEvaluations;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const ids: string[] = body.courses.map((course: { courseId: string }) => course.courseId);
        const { courses } = await reads.subjects("live", [body.targetInstitutionId], ids, []);
        const { rules, creditUnit: unit } = await reads.candidates("live", body.targetInstitutionId, ids);
        const evaluation = evaluateTransfer({
          targetInstitutionId: body.targetInstitutionId,
          targetUnit: (unit ?? "semester") as CreditUnit,
          rules: rules.map((rule) => ({
            ...rule,
            kind: rule.kind as RuleKind,
            targets: rule.targets.map((target) => ({ ...target, title: null })),
            awardedCreditUnit: rule.awardedCreditUnit as CreditUnit | null,
          })),
          courses: courses.map((course) => ({ ...course, creditUnit: course.creditUnit as CreditUnit, grade: "B" })),
          today: new Date().toISOString().slice(0, 10),
        });
        const text = JSON.stringify({ data: evaluation });
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        response.end(text);
      } catch (error) {
        response.writeHead(500).end((error as Error).message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function measure(origin: string, key: string) {
  const options = {
    url: `${origin}/api/v1/transfer-evaluations`,
    connections: CONNECTIONS,
    method: "POST" as const,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "application/json" },
    requests: [{ method: "POST" as const, setupRequest: (request: object) => ({ ...request, body: randomBody() }) }],
  };
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration: SECONDS });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

async function main() {
  const stack = cleanupStack();
  try {
    const bench = await freshDatabase({ databaseUrl: values["database-url"] ?? null });
    stack.push(bench.dispose);
    const { key } = await createCredential(bench.database);
    await load(bench.database);
    const floor = await startFloor(bench.database);
    const floorFigures = await measure(floor.origin, key);
    await floor.close();
    const service = await startServer(bench);
    stack.push(service.close);
    const serviceFigures = await measure(service.origin, key);
    console.log(`\n${bench.label}; ${machine()}`);
    console.log(
      `${RULES.toLocaleString("en-US")} accepted rules, ${COURSES_PER_EVALUATION} courses an evaluation, ${CONNECTIONS} connections, ${SECONDS} s\n`,
    );
    printTable(
      ["Server", "req/s", "p50 ms", "p99 ms", "failed"],
      [
        [
          "floor (node:http, same SQL and engine)",
          fixed(floorFigures.requestsPerSecond),
          floorFigures.p50,
          floorFigures.p99,
          floorFigures.failures,
        ],
        [
          "service",
          fixed(serviceFigures.requestsPerSecond),
          serviceFigures.p50,
          serviceFigures.p99,
          serviceFigures.failures,
        ],
      ],
    );
    const ratio = serviceFigures.requestsPerSecond / floorFigures.requestsPerSecond;
    console.log(
      `\nservice ÷ floor = ${fixed(ratio, 2)} (goal ≥ ${GOAL_FLOOR_RATIO}); service p99 ${serviceFigures.p99} ms (goal on PostgreSQL < ${GOAL_P99_MS} ms)`,
    );
  } finally {
    await stack.cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
