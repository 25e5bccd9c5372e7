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
    await repository.count("sandbox", "inst_ucb", ["crs_0", "crs_1"], first);
    await repository.count("sandbox", "inst_ucb", ["crs_1"], later);
    await repository.count("sandbox", "inst_ucb", ["crs_1", "crs_2"], first);
    await repository.count("live", "inst_ucb", ["crs_0"], first);
    await repository.count("sandbox", "inst_smc", ["crs_0"], first);

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

  it("records a fingerprint once per day and forgets earlier days", async () => {
    expect(await repository.firstToday("hash-a", "2026-03-01")).to.equal(true);
    expect(await repository.firstToday("hash-a", "2026-03-01")).to.equal(false);
    expect(await repository.firstToday("hash-b", "2026-03-01")).to.equal(true);
    expect(await repository.firstToday("hash-c", "2026-03-02")).to.equal(true);
    const left = await database.prisma.evaluationFingerprint.findMany({ orderBy: { fingerprint: "asc" } });
    expect(left.map((row) => row.fingerprint)).to.deep.equal(["hash-c"]);
  });
});
