// Benchmark of POST /api/v1/courses: 100 batches of 500 distinct courses over
// real HTTP, one batch at a time, then the same 50,000 again (every one an
// update with a course.updated event). The baseline inserts the same rows with
// Prisma's createMany in 500-row batches, without HTTP, on another fresh database.
//
//   npx tsx scripts/bench/course-upsert.ts [--database-url postgresql://…]
import {
  createCredential,
  createInstitutions,
  fixed,
  freshDatabase,
  machine,
  cleanupStack,
  percentile,
  printTable,
  readOptions,
  startServer,
  type BenchDatabase,
} from "./harness.ts";
import { courseCodeKey } from "../../src/views/catalog.ts";
import { newId } from "../../src/kernel/ids.ts";

const BATCHES = 100;
const BATCH_SIZE = 500;
const INSTITUTIONS = 5;
const CIP_CODES = [
  ["11.0701", "Computer Science."],
  ["27.0101", "Mathematics, General."],
  ["26.0101", "Biology/Biological Sciences, General."],
  ["40.0801", "Physics, General."],
  ["23.0101", "English Language and Literature, General."],
  ["52.0201", "Business Administration and Management, General."],
] as const;
const GOAL_COURSES_PER_SECOND = 5_000;

interface CourseInput {
  institutionId: string;
  code: string;
  title: string;
  credits: number;
  level: "lower" | "upper";
  description: string;
  cipCode: string;
}

function batchOf(institutions: string[], batch: number, revision: number): CourseInput[] {
  return Array.from({ length: BATCH_SIZE }, (_, i) => {
    const n = batch * BATCH_SIZE + i;
    return {
      institutionId: institutions[n % institutions.length],
      code: `BEN ${String(n).padStart(5, "0")}`,
      title: `Benchmark course ${n}${revision ? ` (revision ${revision})` : ""}`,
      credits: 3 + (n % 2),
      level: n % 3 === 0 ? "upper" : "lower",
      description: `A course created by the upsert benchmark, number ${n}.`,
      cipCode: CIP_CODES[n % CIP_CODES.length][0],
    };
  });
}

async function seedCatalog(bench: BenchDatabase): Promise<string[]> {
  const institutions = await createInstitutions(bench.database, INSTITUTIONS);
  for (const [code, title] of CIP_CODES) {
    await bench.database.prisma.cipCode.create({ data: { code, title, digits: 6 } });
  }
  return institutions;
}

interface PassFigures {
  name: string;
  seconds: number;
  latenciesMs: number[];
}

async function httpPass(
  origin: string,
  key: string,
  institutions: string[],
  revision: number,
  name: string,
): Promise<PassFigures> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  for (let batch = 0; batch < BATCHES; batch++) {
    const body = JSON.stringify(batchOf(institutions, batch, revision));
    const sent = performance.now();
    const response = await fetch(`${origin}/api/v1/courses`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "application/json" },
      body,
    });
    const answer = (await response.json()) as { summary?: { created: number; updated: number } };
    latenciesMs.push(performance.now() - sent);
    const expected = revision === 0 ? "created" : "updated";
    if (response.status !== 201 || answer.summary?.[expected] !== BATCH_SIZE) {
      throw new Error(
        `Batch ${batch} of "${name}" answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`,
      );
    }
  }
  return { name, seconds: (performance.now() - started) / 1000, latenciesMs: latenciesMs.sort((a, b) => a - b) };
}

async function baselinePass(bench: BenchDatabase, institutions: string[]): Promise<PassFigures> {
  const latenciesMs: number[] = [];
  const started = performance.now();
  for (let batch = 0; batch < BATCHES; batch++) {
    const now = new Date();
    const data = batchOf(institutions, batch, 0).map((course) => ({
      ...course,
      id: newId("crs"),
      environment: "live" as const,
      codeKey: courseCodeKey(course.code),
      version: 1,
      createdAt: now,
      updatedAt: now,
    }));
    const sent = performance.now();
    await bench.database.prisma.course.createMany({ data });
    latenciesMs.push(performance.now() - sent);
  }
  return {
    name: "baseline: Prisma createMany, no HTTP",
    seconds: (performance.now() - started) / 1000,
    latenciesMs: latenciesMs.sort((a, b) => a - b),
  };
}

async function main() {
  const options = readOptions();
  const { push, cleanup } = cleanupStack();
  try {
    const baselineDb = await freshDatabase(options);
    push(baselineDb.dispose);
    const baseline = await baselinePass(baselineDb, await seedCatalog(baselineDb));
    await cleanup();

    const bench = await freshDatabase(options);
    push(bench.dispose);
    const institutions = await seedCatalog(bench);
    const { key } = await createCredential(bench.database);
    const server = await startServer(bench);
    push(server.close);
    const created = await httpPass(server.origin, key, institutions, 0, "POST /courses, 500 new courses per batch");
    const updated = await httpPass(
      server.origin,
      key,
      institutions,
      1,
      "POST /courses, the same 500 again (updates + events)",
    );
    const events = await bench.database.prisma.outboxEvent.count({ where: { type: "course.updated" } });

    const total = BATCHES * BATCH_SIZE;
    const rate = (pass: PassFigures) => total / pass.seconds;
    console.log(`\nCourse upsert benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `${BATCHES} sequential batches of ${BATCH_SIZE} courses (${total.toLocaleString("en-US")} courses) per pass.\n`,
    );
    printTable(
      ["pass", "courses/s", "p50 ms/batch", "p95 ms/batch", "ratio to baseline"],
      [created, updated, baseline].map((pass) => [
        pass.name,
        fixed(rate(pass), 0),
        fixed(percentile(pass.latenciesMs, 50)),
        fixed(percentile(pass.latenciesMs, 95)),
        fixed(rate(pass) / rate(baseline), 2),
      ]),
    );
    console.log(`\ncourse.updated events written by the second pass: ${events.toLocaleString("en-US")}`);
    const met = rate(created) >= GOAL_COURSES_PER_SECOND;
    console.log(
      `Goal (set for the embedded database): ≥ ${GOAL_COURSES_PER_SECOND.toLocaleString("en-US")} courses/s over HTTP — ${met ? "met" : "NOT met"} (${fixed(rate(created), 0)}).`,
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
