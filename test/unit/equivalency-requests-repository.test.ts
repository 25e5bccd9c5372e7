// The demand for missing rules as stored (src/repositories/equivalency-requests.ts), on the
// suite's database (PGlite, or PostgreSQL with SVC_TEST_DATABASE_URL): counts, the day's
// fingerprints, clearing, and the list by demand with its source courses.
import { expect } from "chai";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { createEquivalencyRequestsRepository } from "../../src/repositories/equivalency-requests.ts";

describe("equivalency requests repository", () => {
  let database: TestDatabase;
  let repository: ReturnType<typeof createEquivalencyRequestsRepository>;
  const first = new Date("2026-03-01T10:00:00.000Z");
  const later = new Date("2026-03-02T09:00:00.000Z");

  before(async () => {
    database = await freshDatabase();
    repository = createEquivalencyRequestsRepository(database.prisma);
    const place = { city: "Santa Monica", state: "CA", type: "community_college", source: "direct" } as const;
    await database.prisma.institution.createMany({
      data: [
        { environment: "sandbox", id: "inst_smc", ipedsId: "122977", name: "Santa Monica College", ...place },
        { environment: "sandbox", id: "inst_ucb", ipedsId: "110635", name: "UC Berkeley", ...place },
      ],
    });
    await database.prisma.course.createMany({
      data: ["BIO 101", "CHEM 1A", "CHEM 1AL"].map((code, index) => ({
        id: `crs_${index}`,
        environment: "sandbox",
        institutionId: "inst_smc",
        code,
        codeKey: code,
        title: `Title ${code}`,
        credits: 4,
        level: "lower",
      })),
    });
  });
  after(() => database.close());

  it("counts requests per source course, keeps the last time asked, lists them by demand and clears them", async () => {
    const day = "2026-03-02";
    await repository.countOncePerDay("list-1", day, "sandbox", "inst_ucb", ["crs_0", "crs_1"], first);
    await repository.countOncePerDay("list-2", day, "sandbox", "inst_ucb", ["crs_1"], later);
    await repository.countOncePerDay("list-3", day, "sandbox", "inst_ucb", ["crs_2", "crs_1"], first);
    await repository.countOncePerDay("list-4", day, "live", "inst_ucb", ["crs_0"], first);
    await repository.countOncePerDay("list-5", day, "sandbox", "inst_smc", ["crs_0"], first);

    const page = await repository.listPage("sandbox", "inst_ucb", { limit: 2, offset: 0 });
    expect(page.total).to.equal(3);
    expect(page.items.map((item) => [item.sourceCourseId, item.requests])).to.deep.equal([
      ["crs_1", 3],
      ["crs_0", 1],
    ]);
    expect(page.items[0].lastRequestedAt.toISOString()).to.equal(later.toISOString());
    expect(page.items[0].sourceCourse).to.deep.equal({
      id: "crs_1",
      code: "CHEM 1A",
      title: "Title CHEM 1A",
      institutionId: "inst_smc",
    });
    expect(page.next).to.deep.equal([1, "crs_0"]);
    const rest = await repository.listPage("sandbox", "inst_ucb", { limit: 2, offset: 0, after: page.next ?? [] });
    expect(rest.items.map((item) => item.sourceCourseId)).to.deep.equal(["crs_2"]);
    expect(rest.next).to.equal(null);

    await repository.clear("sandbox", "inst_ucb", ["crs_1"]);
    const cleared = await repository.listPage("sandbox", "inst_ucb", { limit: 10, offset: 0 });
    expect(cleared.items.map((item) => item.sourceCourseId)).to.deep.equal(["crs_0", "crs_2"]);
    const live = await repository.listPage("live", "inst_ucb", { limit: 10, offset: 0 });
    expect(live.items.map((item) => item.sourceCourseId)).to.deep.equal(["crs_0"]);
  });

  it("counts an evaluation's fingerprint once per day, and forgets the fingerprints of earlier days", async () => {
    const asked = { environment: "sandbox", target: "inst_smc" } as const;
    const countOnce = (fingerprint: string, day: string, ids: string[]) =>
      repository.countOncePerDay(fingerprint, day, asked.environment, asked.target, ids, first);
    const requestsFor = async (id: string) =>
      (
        await database.prisma.equivalencyRequest.findUnique({
          where: {
            environment_targetInstitutionId_courseKey: {
              environment: asked.environment,
              targetInstitutionId: asked.target,
              courseKey: id,
            },
          },
        })
      )?.requests ?? 0;

    expect(await countOnce("hash-a", "2026-03-01", ["crs_2"])).to.equal(true);
    expect(await countOnce("hash-a", "2026-03-01", ["crs_2"])).to.equal(false);
    expect(await requestsFor("crs_2")).to.equal(1);
    expect(await countOnce("hash-b", "2026-03-01", ["crs_2", "crs_1"])).to.equal(true);
    expect([await requestsFor("crs_2"), await requestsFor("crs_1")]).to.deep.equal([2, 1]);
    expect(await countOnce("hash-c", "2026-03-03", ["crs_1"])).to.equal(true);
    expect(await requestsFor("crs_1")).to.equal(2);
    const left = await database.prisma.evaluationFingerprint.findMany({ orderBy: { fingerprint: "asc" } });
    expect(left.map((row) => row.fingerprint)).to.deep.equal(["hash-c"]);
  });

  it("counts concurrent evaluations that share courses, in any order, without losing one", async () => {
    const ids = ["crs_0", "crs_1", "crs_2"];
    const orders = Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? ids : [...ids].reverse()));
    const counted = await Promise.all(
      orders.map((order, index) =>
        repository.countOncePerDay(`parallel-${index}`, "2026-03-03", "live", "inst_smc", order, later),
      ),
    );
    expect(counted.every(Boolean)).to.equal(true);
    const page = await repository.listPage("live", "inst_smc", { limit: 10, offset: 0 });
    expect(page.items.map((item) => [item.sourceCourseId, item.requests])).to.deep.equal([
      ["crs_0", 12],
      ["crs_1", 12],
      ["crs_2", 12],
    ]);
  });
});
