// Stewardship: only a steward of an institution writes its courses, and only a
// steward of an equivalency's target institution creates or changes it; reads stay
// open. Two organizations, live and sandbox, single items and batches, create and PATCH.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { institutionId } from "../../src/kernel/ids.ts";

const SMC = institutionId("122977");
const UCB = institutionId("110635");
const UCLA = institutionId("110662");
const SHSU = institutionId("227881");

const course = (institution: string, code: string, title = "Calculus I") => ({
  institutionId: institution,
  code,
  title,
  credits: 4,
  level: "lower",
});

describe("stewardship: who may write for which institution", () => {
  let t: TestApp;
  /** Organization "beta" stewards Santa Monica College only, in live. */
  let beta: { id: string; key: string };

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await loadInstitutions(t.database.prisma, "sandbox");
    beta = await t.otherOrganization("beta", "live", "channel_b", { institutionIds: [SMC] });
  });
  after(() => t.close());

  const post = (path: string, key: string, body: unknown, query: Record<string, string> = {}) =>
    t.http
      .post(`/api/v1${path}`)
      .query(query)
      .set(bearer(key))
      .send(body as object);
  const courseCount = () => t.database.prisma.course.count();

  describe("courses (upsertCourses)", () => {
    it("lets a steward create and re-upsert its institution's courses", async () => {
      const created = await post("/courses", beta.key, course(SMC, "MATH 7"));
      await expectContract(created, 201);
      const again = await post("/courses", beta.key, course(SMC, "MATH 7", "Calculus I (revised)"));
      await expectContract(again, 201);
      expect(again.body.data[0]).to.include({ result: "updated", version: 2 });
    });

    it("403 not-steward for a single course of another institution, naming it, and writes nothing", async () => {
      const before = await courseCount();
      const response = await post("/courses", beta.key, course(UCB, "MATH 1A"));
      await expectContract(response, 403);
      expectProblem(response, "not-steward");
      expect(response.body.institutionId).to.equal(UCB);
      expect(response.body.detail).to.contain(UCB).and.contain("beta");
      expect(response.body.errors).to.deep.equal([
        { pointer: "/institutionId", message: `the organization does not steward ${UCB}` },
      ]);
      expect(await courseCount()).to.equal(before);
    });

    it("rejects a whole batch when one item is outside stewardship, pointing to each such item", async () => {
      const before = await courseCount();
      const response = await post("/courses", beta.key, [
        course(SMC, "PHYS 21"),
        course(UCB, "PHYS 7A"),
        course(UCLA, "PHYS 1A"),
      ]);
      await expectContract(response, 403);
      expectProblem(response, "not-steward");
      expect(response.body.institutionId).to.equal(UCB);
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
        "/1/institutionId",
        "/2/institutionId",
      ]);
      expect(await courseCount()).to.equal(before);
      expect(await t.database.prisma.course.findFirst({ where: { codeKey: "PHYS 21" } })).to.equal(null);
    });

    it("refuses to re-upsert another organization's institution's course, leaving it unchanged", async () => {
      const owned = await post("/courses", t.keys.live, course(UCB, "MATH 1B", "Calculus II"));
      await expectContract(owned, 201);
      const response = await post("/courses", beta.key, course(UCB, "MATH 1B", "Rewritten by beta"));
      await expectContract(response, 403);
      const stored = await t.database.prisma.course.findUniqueOrThrow({ where: { id: owned.body.data[0].id } });
      expect(stored).to.include({ title: "Calculus II", version: 1 });
    });

    it("applies to dry runs too, and validation failures come first (400)", async () => {
      const dry = await post("/courses", beta.key, [course(UCB, "X 1")], { dryRun: "true" });
      await expectContract(dry, 403);
      expectProblem(dry, "not-steward");
      const invalid = await post("/courses", beta.key, [course(UCB, "X 1"), course("inst_999999", "X 2")]);
      await expectContract(invalid, 400);
      expectProblem(invalid, "validation-failed");
    });
  });

  describe("equivalencies (createEquivalency, updateEquivalency)", () => {
    let sourceCourseId: string;
    let acmeDecision: string;

    before(async () => {
      const created = await post("/courses", beta.key, course(SMC, "CS 55"));
      sourceCourseId = created.body.data[0].id;
      const decided = await post("/equivalencies", t.keys.live, {
        sourceCourseId,
        targetInstitutionId: UCB,
        targetCode: "COMPSCI 61A",
      });
      await expectContract(decided, 201);
      acmeDecision = decided.body.data.id;
    });

    it("403 when creating an equivalency whose target institution the caller does not steward", async () => {
      const response = await post("/equivalencies", beta.key, {
        sourceCourseId,
        targetInstitutionId: UCLA,
        targetCode: "COM SCI 31",
      });
      await expectContract(response, 403);
      expectProblem(response, "not-steward");
      expect(response.body.institutionId).to.equal(UCLA);
      expect(response.body.errors).to.deep.equal([
        { pointer: "/targetInstitutionId", message: `the organization does not steward ${UCLA}` },
      ]);
      expect(await t.database.prisma.equivalency.count({ where: { targetInstitutionId: UCLA } })).to.equal(0);
    });

    it("lets a steward of the target institution create it, with its own channel as provenance", async () => {
      const upstream = await post("/courses", t.keys.live, course(UCB, "MATH 54"));
      const response = await post("/equivalencies", beta.key, {
        sourceCourseId: upstream.body.data[0].id,
        targetInstitutionId: SMC,
        targetCode: "MATH 13",
      });
      await expectContract(response, 201);
      expect(response.body.data).to.include({ provenance: "channel_b", status: "pending" });
    });

    it("403 when changing an equivalency of an institution the caller does not steward; the decision is unchanged", async () => {
      const response = await t.http
        .patch(`/api/v1/equivalencies/${acmeDecision}`)
        .set(bearer(beta.key))
        .send({ status: "conflict" });
      await expectContract(response, 403);
      expectProblem(response, "not-steward");
      expect(response.body.institutionId).to.equal(UCB);
      const stored = await t.database.prisma.equivalency.findUniqueOrThrow({ where: { id: acmeDecision } });
      expect(stored).to.include({ status: "pending", version: 1 });
    });

    it("lets another steward of the target change it: provenance stays, the version records the actor", async () => {
      const gamma = await t.otherOrganization("gamma", "live", "direct", { institutionIds: [UCB] });
      const response = await t.http
        .patch(`/api/v1/equivalencies/${acmeDecision}`)
        .set(bearer(gamma.key))
        .send({ status: "accepted", note: "reviewed" });
      await expectContract(response, 200);
      expect(response.body.data).to.include({ status: "accepted", version: 2, provenance: "channel_a" });
      const version = await t.database.prisma.equivalencyVersion.findFirstOrThrow({
        where: { equivalencyId: acmeDecision, version: 2 },
      });
      expect(version.actorOrganizationId).to.equal(gamma.id);
    });
  });

  describe("grants", () => {
    it("a revoked grant stops writes at once", async () => {
      const delta = await t.otherOrganization("delta", "live", "direct", { institutionIds: [SHSU] });
      await expectContract(await post("/courses", delta.key, course(SHSU, "HIST 1301")), 201);
      await t.app.context.services.stewardship.revokeStewardship(delta.id, "live", { institutionIds: [SHSU] });
      const refused = await post("/courses", delta.key, course(SHSU, "HIST 1302"));
      await expectContract(refused, 403);
      expectProblem(refused, "not-steward");
    });

    it("a standing grant (--all) covers institutions imported after it", async () => {
      const office = await t.otherOrganization("system-office", "live", "direct", { all: true });
      async function* one() {
        yield {
          row: {
            ipedsId: "228778",
            name: "The University of Texas at Austin",
            city: "Austin",
            state: "TX",
            type: "four_year_public" as const,
            system: null,
            source: "direct" as const,
          },
        };
      }
      await t.app.context.services.catalogImports.importInstitutions(one(), "live");
      await expectContract(await post("/courses", office.key, course(institutionId("228778"), "M 408C")), 201);
    });

    it("is per environment: a live grant does not let the organization write in sandbox, a sandbox grant does", async () => {
      const epsilon = await t.otherOrganization("epsilon", "live", "direct", { institutionIds: [SMC] });
      const sandboxKey = await t.keyFor(epsilon.id, "sandbox");
      const refused = await post("/courses", sandboxKey, course(SMC, "ENGL 1"));
      await expectContract(refused, 403);
      expect(refused.body.detail).to.contain("sandbox");
      await t.app.context.services.stewardship.grantStewardship(epsilon.id, "sandbox", { institutionIds: [SMC] });
      await expectContract(await post("/courses", sandboxKey, course(SMC, "ENGL 1")), 201);
    });
  });

  describe("GET /organizations/me (getCurrentOrganization)", () => {
    it("shows a standing grant for acme", async () => {
      const response = await t.http.get("/api/v1/organizations/me").set(bearer(t.keys.live));
      await expectContract(response, 200);
      expect(response.body.data).to.deep.include({ environment: "live", scopes: ["read:public", "write:contribute"] });
      expect(response.body.data.organization).to.include({ slug: "acme", channel: "channel_a" });
      expect(response.body.data.credential.kind).to.equal("api_key");
      expect(response.body.data.stewardship).to.deep.equal({ allInstitutions: true, institutionIds: [] });
    });

    it("pages the explicitly stewarded institutions like every list", async () => {
      const zeta = await t.otherOrganization("zeta", "live", "channel_a", { institutionIds: [UCLA, SMC, UCB] });
      const first = await t.http.get("/api/v1/organizations/me?limit=2").set(bearer(zeta.key));
      await expectContract(first, 200);
      expect(first.body.data.stewardship).to.deep.equal({ allInstitutions: false, institutionIds: [UCB, UCLA] });
      expect(first.body.pagination).to.include({ total: 3, limit: 2, offset: 0, returned: 2 });
      expect(first.headers["x-total-count"]).to.equal("3");
      expect(first.headers.link).to.contain('rel="next"');
      const second = await t.http.get("/api/v1/organizations/me?limit=2&offset=2").set(bearer(zeta.key));
      expect(second.body.data.stewardship.institutionIds).to.deep.equal([SMC]);
    });

    it("shows nothing stewarded for a read-only organization, and answers 400 for bad paging", async () => {
      const response = await t.http.get("/api/v1/organizations/me").set(bearer(t.config.publicSandboxKey));
      await expectContract(response, 200);
      expect(response.body.data).to.deep.include({ environment: "sandbox", scopes: ["read:public"] });
      expect(response.body.data.stewardship).to.deep.equal({ allInstitutions: false, institutionIds: [] });
      const bad = await t.http.get("/api/v1/organizations/me?limit=0").set(bearer(t.keys.live));
      await expectContract(bad, 400);
    });
  });
});
