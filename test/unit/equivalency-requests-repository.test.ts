// The demand for missing rules as stored (src/repositories/equivalency-requests.ts), on the
// suite's database (PGlite, or PostgreSQL with SVC_TEST_DATABASE_URL): requester-days counted
// once, distinct requesters, the day's fingerprints, courses the catalog lacks, clearing, and the
// list by demand with its source courses.
import { expect } from "chai";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { createEquivalencyRequestsRepository, type DemandAsk } from "../../src/repositories/equivalency-requests.ts";

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

  /** One ask: requester `who` asked for the course on `day`; the fingerprint is (who, day, target, course). */
  function ask(
    who: string,
    day: string,
    environment: "live" | "sandbox",
    target: string,
    courseKey: string,
    at: Date,
    unknown?: { institutionId: string; code: string; title: string },
  ): DemandAsk {
    return {
      fingerprint: `${who}|${day}|${environment}|${target}|${courseKey}`,
      requester: who,
      day,
      environment,
      targetInstitutionId: target,
      courseKey,
      sourceCourseId: unknown ? "" : courseKey,
      institutionId: unknown?.institutionId ?? null,
      code: unknown?.code ?? null,
      title: unknown?.title ?? null,
      at,
    };
  }

  it("counts requester-days per course, keeps the last time asked, lists them by demand and clears them", async () => {
    const day = "2026-03-02";
    await repository.countBatch(
      [
        ask("r1", day, "sandbox", "inst_ucb", "crs_0", first),
        ask("r1", day, "sandbox", "inst_ucb", "crs_1", first),
        ask("r2", day, "sandbox", "inst_ucb", "crs_1", later),
      ],
      day,
    );
    await repository.countBatch(
      [
        ask("r3", day, "sandbox", "inst_ucb", "crs_2", first),
        ask("r3", day, "sandbox", "inst_ucb", "crs_1", first),
        // Asked again by r1 the same day: counts nothing.
        ask("r1", day, "sandbox", "inst_ucb", "crs_1", later),
        ask("r1", day, "live", "inst_ucb", "crs_0", first),
        ask("r1", day, "sandbox", "inst_smc", "crs_0", first),
      ],
      day,
    );

    const page = await repository.listPage("sandbox", "inst_ucb", undefined, { limit: 2, offset: 0 });
    expect(page.total).to.equal(3);
    expect(page.items.map((item) => [item.sourceCourseId, item.requests, item.distinctRequesters])).to.deep.equal([
      ["crs_1", 3, 3],
      ["crs_0", 1, 1],
    ]);
    expect(page.items[0].lastRequestedAt.toISOString()).to.equal(later.toISOString());
    expect(page.items[0].sourceCourse).to.deep.equal({
      code: "CHEM 1A",
      title: "Title CHEM 1A",
      institutionId: "inst_smc",
    });
    expect(page.next).to.deep.equal([1, "crs_0"]);
    const rest = await repository.listPage("sandbox", "inst_ucb", undefined, {
      limit: 2,
      offset: 0,
      after: page.next ?? [],
    });
    expect(rest.items.map((item) => item.sourceCourseId)).to.deep.equal(["crs_2"]);
    expect(rest.next).to.equal(null);

    await repository.clear("sandbox", "inst_ucb", ["crs_1"]);
    const cleared = await repository.listPage("sandbox", "inst_ucb", undefined, { limit: 10, offset: 0 });
    expect(cleared.items.map((item) => item.sourceCourseId)).to.deep.equal(["crs_0", "crs_2"]);
    const live = await repository.listPage("live", "inst_ucb", undefined, { limit: 10, offset: 0 });
    expect(live.items.map((item) => item.sourceCourseId)).to.deep.equal(["crs_0"]);
    // Cleared with its requesters: a requester asking again is counted as new.
    await repository.countBatch([ask("r1", "2026-03-03", "sandbox", "inst_ucb", "crs_1", later)], "2026-03-03");
    const again = await repository.listPage("sandbox", "inst_ucb", true, { limit: 10, offset: 0 });
    expect(again.items.find((item) => item.sourceCourseId === "crs_1")).to.include({
      requests: 1,
      distinctRequesters: 1,
    });
  });

  it("a requester counts once per day and once among the distinct requesters; fingerprints of earlier days go", async () => {
    const requestsFor = async (key: string) =>
      database.prisma.equivalencyRequest.findUnique({
        where: {
          environment_targetInstitutionId_courseKey: {
            environment: "sandbox",
            targetInstitutionId: "inst_smc",
            courseKey: key,
          },
        },
      });
    expect(
      await repository.countBatch([ask("a", "2026-03-01", "sandbox", "inst_smc", "crs_2", first)], "2026-03-01"),
    ).to.equal(1);
    expect(
      await repository.countBatch([ask("a", "2026-03-01", "sandbox", "inst_smc", "crs_2", first)], "2026-03-01"),
    ).to.equal(0);
    expect(
      await repository.countBatch([ask("a", "2026-03-02", "sandbox", "inst_smc", "crs_2", later)], "2026-03-02"),
    ).to.equal(1);
    expect(await requestsFor("crs_2")).to.include({ requests: 2, distinctRequesters: 1 });
    await repository.countBatch([ask("b", "2026-03-04", "sandbox", "inst_smc", "crs_2", later)], "2026-03-04");
    expect(await requestsFor("crs_2")).to.include({ requests: 3, distinctRequesters: 2 });
    const left = await database.prisma.evaluationFingerprint.findMany();
    expect(left.every((row) => row.day.toISOString().startsWith("2026-03-04"))).to.equal(true);
  });

  it("a course the catalog lacks: keyed by institution and code, listed with the latest title, apart with inCatalog", async () => {
    const lacking = (title: string) => ({ institutionId: "inst_smc", code: "ASTR 102", title });
    await repository.countBatch(
      [
        ask("x", "2026-03-05", "sandbox", "inst_ucb", "inst_smc ASTR 102", first, lacking("Astronomy")),
        ask("y", "2026-03-05", "sandbox", "inst_ucb", "inst_smc ASTR 102", later, lacking("Solar System Astronomy")),
      ],
      "2026-03-05",
    );
    const page = await repository.listPage("sandbox", "inst_ucb", false, { limit: 10, offset: 0 });
    expect(
      page.items.map((item) => [item.courseKey, item.sourceCourseId, item.requests, item.distinctRequesters]),
    ).to.deep.equal([["inst_smc ASTR 102", "", 2, 2]]);
    expect(page.items[0].sourceCourse).to.deep.equal({
      institutionId: "inst_smc",
      code: "ASTR 102",
      title: "Solar System Astronomy",
    });
    const catalog = await repository.listPage("sandbox", "inst_ucb", true, { limit: 10, offset: 0 });
    expect(catalog.items.every((item) => item.sourceCourseId !== "")).to.equal(true);
  });

  it("counts concurrent batches that share courses, in any order, without losing one", async () => {
    const ids = ["crs_0", "crs_1", "crs_2"];
    const orders = Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? ids : [...ids].reverse()));
    const counted = await Promise.all(
      orders.map((order, index) =>
        repository.countBatch(
          order.map((id) => ask(`parallel-${index}`, "2026-03-05", "live", "inst_smc", id, later)),
          "2026-03-05",
        ),
      ),
    );
    expect(counted).to.deep.equal(orders.map(() => 3));
    const page = await repository.listPage("live", "inst_smc", undefined, { limit: 10, offset: 0 });
    expect(page.items.map((item) => [item.sourceCourseId, item.requests, item.distinctRequesters])).to.deep.equal([
      ["crs_0", 12, 12],
      ["crs_1", 12, 12],
      ["crs_2", 12, 12],
    ]);
  });
});
