// The sandbox dataset loaded on first start: enough real-shaped data to try
// every read, readable with the public key.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";

describe("sandbox seed", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await t.app.context.services.sandbox.seedSandboxIfEmpty();
  });
  after(() => t.close());

  it("holds at least 40 institutions of all three types in several states", async () => {
    const institutions = await t.database.prisma.institution.findMany({ where: { environment: "sandbox" } });
    expect(institutions.length).to.be.at.least(40);
    expect(new Set(institutions.map((i) => i.type))).to.have.lengthOf(3);
    expect(new Set(institutions.map((i) => i.state)).size).to.be.at.least(5);
    expect(institutions.every((i) => /^\d{6}$/.test(i.ipedsId) && i.id === `inst_${i.ipedsId}`)).to.equal(true);
    expect(await t.database.prisma.institution.count({ where: { environment: "live" } })).to.equal(0);
  });

  it("holds at least 300 courses with CIP 2020 codes", async () => {
    const courses = await t.database.prisma.course.findMany({ where: { environment: "sandbox" } });
    expect(courses.length).to.be.at.least(300);
    const coded = courses.filter((c) => c.cipCode);
    expect(coded.length / courses.length).to.be.greaterThan(0.9);
    expect(coded.every((c) => /^\d{2}\.\d{4}$/.test(c.cipCode!))).to.equal(true);
  });

  it("holds at least 200 equivalencies in every status and provenance, some with history", async () => {
    const equivalencies = await t.database.prisma.equivalency.findMany({ where: { environment: "sandbox" } });
    expect(equivalencies.length).to.be.at.least(200);
    expect(new Set(equivalencies.map((e) => e.status))).to.have.lengthOf(3);
    expect(new Set(equivalencies.map((e) => e.provenance))).to.have.lengthOf(3);
    const withHistory = equivalencies.filter((e) => e.version > 1);
    expect(withHistory.length).to.be.at.least(20);
    for (const e of withHistory.slice(0, 5)) {
      const versions = await t.database.prisma.equivalencyVersion.findMany({
        where: { equivalencyId: e.id },
        orderBy: { version: "asc" },
      });
      expect(versions.map((v) => v.version)).to.deep.equal(Array.from({ length: e.version }, (_, i) => i + 1));
    }
  });

  it("is read through the API with the public sandbox key, versions included", async () => {
    const key = t.config.publicSandboxKey;
    const list = await t.http.get("/api/v1/equivalencies?status=accepted&expand=course&limit=5").set(bearer(key));
    await expectContract(list, 200);
    expect(list.body.data).to.have.length(5);
    const withHistory = await t.database.prisma.equivalency.findFirstOrThrow({
      where: { environment: "sandbox", version: { gt: 1 } },
    });
    const history = await t.http.get(`/api/v1/equivalencies/${withHistory.id}/versions`).set(bearer(key));
    await expectContract(history, 200);
    expect(history.body.data.versions).to.have.length(withHistory.version);
    expect(history.body.data.versions[0].changeNote).to.be.a("string");
  });

  it("is seeded only once", async () => {
    expect(await t.app.context.services.sandbox.seedSandboxIfEmpty()).to.equal(null);
  });
});
