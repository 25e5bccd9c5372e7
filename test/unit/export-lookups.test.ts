// The equivalency exports read every course a rule names by its key, whatever the catalog's size:
// on a real catalog's shape (several times more courses than rules, targets by course id and by
// code, alternatives, choices, several target institutions) the work the database does per rule
// stays the same when the catalog grows tenfold. The work is counted in buffer accesses of the
// rendering's plan (EXPLAIN ANALYZE BUFFERS, the SQL functions' own reads included), not timed:
// the plain joins this replaced hashed the whole course table for each rule, and their count
// grew with the catalog. On the database the suite runs on (PGlite, or PostgreSQL with
// SVC_TEST_DATABASE_URL).
import { expect } from "chai";
import { EQUIVALENCY_RENDERINGS, type RenderedFormat } from "../../src/repositories/exports.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { course } from "../helpers/rule-records.ts";

const SOURCE = "inst_122977";
const TARGETS = ["inst_110635", "inst_110662"];
const RULES = 60;

/** Buffer accesses (hits and reads) of the whole plan, from EXPLAIN's JSON. */
function blocks(plan: Record<string, unknown>): number {
  return Number(plan["Shared Hit Blocks"] ?? 0) + Number(plan["Shared Read Blocks"] ?? 0);
}

describe("exports read a rule's courses by key: the work per rule does not grow with the catalog", () => {
  let t: TestApp;

  const work = async (format: RenderedFormat) => {
    const { value, joins } = EQUIVALENCY_RENDERINGS[format];
    const [row] = await t.database.prisma.$queryRawUnsafe<{ "QUERY PLAN": unknown }[]>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
       SELECT string_agg(${value}, '' ORDER BY e.created_at, e.id)
       FROM (SELECT * FROM equivalencies WHERE environment = 'live' ORDER BY created_at, id) AS e ${joins}`,
    );
    const raw = row["QUERY PLAN"];
    const [explained] = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
    return blocks(explained.Plan);
  };

  const addCourses = async (count: number, prefix: string) => {
    const rows = [SOURCE, ...TARGETS].flatMap((institutionId) =>
      Array.from({ length: count }, (_, i) =>
        course(`crs_${prefix}_${institutionId}_${i}`, institutionId, {
          code: `${prefix} ${i}`,
          codeKey: `${prefix} ${i}`,
        }),
      ),
    );
    for (let i = 0; i < rows.length; i += 1_000)
      await t.database.prisma.course.createMany({ data: rows.slice(i, i + 1_000) });
    await t.database.prisma.$executeRawUnsafe("ANALYZE courses");
  };

  before(async function () {
    this.timeout(120_000);
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await addCourses(3 * RULES, "CAT");
    const id = (institutionId: string, i: number) => `crs_CAT_${institutionId}_${i}`;
    await t.database.prisma.equivalency.createMany({
      data: Array.from({ length: RULES }, (_, i) => {
        const target = TARGETS[i % TARGETS.length];
        const first = [id(SOURCE, i)];
        const sets = i % 3 === 0 ? [first, [id(SOURCE, i + RULES), id(SOURCE, i + 2 * RULES)]] : [first];
        const byId = i % 2 === 0;
        const targets = [
          { courseId: byId ? id(target, i) : null, code: byId ? null : `MATH ${i}X`, credits: null },
          { courseId: id(target, i + RULES), code: null, credits: null },
        ];
        return {
          id: `eq_shape_${String(i).padStart(3, "0")}`,
          environment: "live" as const,
          sourceCourseId: first[0],
          sourceCourseIds: first,
          sourceCourseSets: sets,
          targetInstitutionId: target,
          targetCourseId: targets[0].courseId,
          targetCode: targets[0].code,
          targetKey: `shape:${i}`,
          targets,
          targetChoice: i % 4 === 1 ? ("one_of" as const) : ("all" as const),
          status: "accepted" as const,
        };
      }),
    });
    await t.database.prisma.$executeRawUnsafe("ANALYZE equivalencies");
  });
  after(() => t?.close());

  it("CSV, JSON and CTDL: a catalog ten times larger costs each rule the same buffer accesses", async function () {
    this.timeout(120_000);
    const formats: RenderedFormat[] = ["csv", "json", "ctdl"];
    const small = Object.fromEntries(await Promise.all(formats.map(async (f) => [f, await work(f)] as const)));
    await addCourses(30 * RULES, "MORE");
    const large = Object.fromEntries(await Promise.all(formats.map(async (f) => [f, await work(f)] as const)));
    for (const format of formats) {
      expect(small[format], `${format} reads something`).to.be.above(0);
      // A B-tree one level deeper may cost a block per lookup; a scan of the catalog costs thousands.
      expect(large[format] / small[format], `${format}: ${small[format]} → ${large[format]} blocks`).to.be.below(1.5);
    }
  });

  it("the CSV export is never JIT-compiled, even past any cost threshold (on PostgreSQL it compiled a 20,000-rule export for 0.8 s before its first row)", async () => {
    const { value, joins } = EQUIVALENCY_RENDERINGS.csv;
    const plan = await t.database.prisma.$transaction(async (tx) => {
      // Every statement past the threshold: a connection that may JIT-compile does so here.
      await tx.$executeRawUnsafe("SET LOCAL jit_above_cost = 0");
      const [row] = await tx.$queryRawUnsafe<{ "QUERY PLAN": unknown }[]>(
        `EXPLAIN (ANALYZE, FORMAT JSON) SELECT string_agg(${value}, '') FROM equivalencies AS e ${joins}`,
      );
      const raw = row["QUERY PLAN"];
      return ((typeof raw === "string" ? JSON.parse(raw) : raw) as Record<string, unknown>[])[0];
    });
    expect(plan).to.have.property("Plan");
    expect(plan, "the plan's JIT section").to.not.have.property("JIT");
  });
});
