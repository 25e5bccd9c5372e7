// The public transfer explorer's operations (tag Explorer): no credential, a bucket per client
// address, only accepted rules in force, answers in names, and evaluations that count no demand.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions, postCourses, storeRule } from "../helpers/fixtures.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";
const UCLA = "inst_110662";

const CATALOG = [
  { institutionId: SMC, code: "CHEM 1A", title: "General Chemistry", credits: 5, level: "lower" },
  { institutionId: SMC, code: "CHEM 1AL", title: "General Chemistry Laboratory", credits: 1, level: "lower" },
  { institutionId: SMC, code: "MATH 7", title: "Calculus 1", credits: 5, level: "lower" },
  { institutionId: SMC, code: "HIST 11", title: "History of the United States", credits: 3, level: "lower" },
  { institutionId: SMC, code: "ART 10", title: "Design I", credits: 3, level: "lower" },
  { institutionId: SMC, code: "ENGL 1", title: "Reading and Composition", credits: 3, level: "lower" },
  {
    institutionId: BERKELEY,
    code: "CHEM 4A",
    title: "General Chemistry and Quantitative Analysis",
    credits: 4,
    level: "lower",
  },
  { institutionId: BERKELEY, code: "MATH 1A", title: "Calculus", credits: 4, level: "lower" },
];

describe("the public explorer: listExplorerEnvironments, searchExplorerInstitutions, listExplorerCourses, getExplorerAgreement, createExplorerTransferEvaluation", () => {
  let t: TestApp;
  let c: Record<string, string>;

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await loadInstitutions(t.database.prisma, "sandbox");
    c = await postCourses(t, CATALOG);
  });
  after(() => t.close());

  describe("listExplorerEnvironments", () => {
    it("listExplorerEnvironments answers without a credential and opens on the sandbox while live holds no accepted rule", async () => {
      const empty = await t.http.get("/api/v1/explorer/environments");
      await expectContract(empty, 200);
      expect(empty.body.defaultEnvironment).to.equal("live");

      const sandboxCourse = await t.http
        .post("/api/v1/courses")
        .set(bearer(t.keys.sandbox))
        .send({ institutionId: SMC, code: "BIO 3", title: "Biology", credits: 4, level: "lower" });
      await t.database.prisma.equivalency.create({
        data: {
          id: "eq_sandbox1",
          environment: "sandbox",
          sourceCourseId: sandboxCourse.body.data[0].id,
          sourceCourseIds: [sandboxCourse.body.data[0].id],
          sourceSetKey: sandboxCourse.body.data[0].id,
          targetInstitutionId: BERKELEY,
          targetCode: "BIO 1XX",
          targetKey: "test:eq_sandbox1",
          targets: [{ courseId: null, code: "BIO 1XX", credits: 4 }],
          kind: "elective",
          status: "accepted",
        },
      });
      const fresh = await t.http.get("/api/v1/explorer/environments");
      await expectContract(fresh, 200);
      expect(fresh.body.defaultEnvironment).to.equal("sandbox");
      expect(fresh.body.data).to.deep.include({ environment: "sandbox", institutions: 6, acceptedRules: 1 });
    });
  });

  describe("with rules from Santa Monica College", () => {
    before(async () => {
      await storeRule(t.database.prisma, {
        id: "eq_pair",
        targetInstitutionId: BERKELEY,
        sourceCourseIds: [c["CHEM 1A"], c["CHEM 1AL"]],
        targetCourseId: c["CHEM 4A"],
        targetCode: "CHEM 4A",
        targets: [{ courseId: c["CHEM 4A"], code: "CHEM 4A", credits: 4 }],
        minimumGrade: "C",
        effectiveFrom: new Date("2020-08-01"),
        decidedBy: "UC Berkeley Office of Undergraduate Admissions",
      });
      await storeRule(t.database.prisma, {
        id: "eq_math",
        targetInstitutionId: BERKELEY,
        sourceCourseIds: [c["MATH 7"]],
        targetCourseId: c["MATH 1A"],
        targetCode: "MATH 1A",
        targets: [{ courseId: c["MATH 1A"], code: "MATH 1A", credits: null }],
      });
      await storeRule(t.database.prisma, {
        id: "eq_art_elective",
        targetInstitutionId: BERKELEY,
        sourceCourseIds: [c["ART 10"]],
        targetCode: "ART 1XX",
        targets: [{ courseId: null, code: "ART 1XX", credits: 3 }],
        kind: "elective",
      });
      // Not in the agreement: pending, expired, and a rule of another receiving institution.
      await storeRule(t.database.prisma, {
        id: "eq_pending",
        targetInstitutionId: BERKELEY,
        sourceCourseIds: [c["HIST 11"]],
        targetCode: "HISTORY 7A",
        targets: [{ courseId: null, code: "HISTORY 7A", credits: 4 }],
        status: "pending",
      });
      await storeRule(t.database.prisma, {
        id: "eq_expired",
        targetInstitutionId: BERKELEY,
        sourceCourseIds: [c["HIST 11"]],
        targetCode: "HISTORY 7B",
        targets: [{ courseId: null, code: "HISTORY 7B", credits: 4 }],
        effectiveUntil: new Date("2021-06-30"),
      });
      await storeRule(t.database.prisma, {
        id: "eq_ucla",
        targetInstitutionId: UCLA,
        sourceCourseIds: [c["HIST 11"]],
        targetCode: "HIST 13A",
        targets: [{ courseId: null, code: "HIST 13A", credits: 4 }],
      });
    });

    it("searchExplorerInstitutions finds institutions by name or city, a trailing word as the state", async () => {
      const byName = await t.http.get("/api/v1/explorer/institutions?q=santa%20monica");
      await expectContract(byName, 200);
      expect(byName.body.data.map((i: { name: string }) => i.name)).to.deep.equal(["Santa Monica College"]);

      const withState = await t.http.get("/api/v1/explorer/institutions?q=berkeley%20ca");
      await expectContract(withState, 200);
      expect(withState.body.data.map((i: { id: string }) => i.id)).to.deep.equal([BERKELEY]);
      const otherState = await t.http.get("/api/v1/explorer/institutions?q=berkeley%20tx");
      expect(otherState.body.data).to.deep.equal([]);
    });

    it("searchExplorerInstitutions ignores an Authorization header, even a bad key, and reads the environment named", async () => {
      const response = await t.http
        .get("/api/v1/explorer/institutions?q=harvard&environment=sandbox")
        .set(bearer("svc_live_not_a_key_at_all_0000000000000000"));
      await expectContract(response, 200);
      expect(response.body.data).to.have.length(1);
      const invalid = await t.http.get("/api/v1/explorer/institutions?environment=staging");
      await expectContract(invalid, 400);
    });

    it("listExplorerCourses searches a catalog by code or title, the institution by IPEDS unit id", async () => {
      const response = await t.http.get("/api/v1/explorer/institutions/122977/courses?q=chem");
      await expectContract(response, 200);
      expect(response.body.data.map((course: { code: string }) => course.code)).to.deep.equal(["CHEM 1A", "CHEM 1AL"]);
      const byTitle = await t.http.get(`/api/v1/explorer/institutions/${SMC}/courses?q=calculus`);
      expect(byTitle.body.data.map((course: { code: string }) => course.code)).to.deep.equal(["MATH 7"]);
      const unknown = await t.http.get("/api/v1/explorer/institutions/999999/courses");
      await expectContract(unknown, 404);
      expectProblem(unknown, "not-found");
    });

    it("getExplorerAgreement answers the accepted rules in force, by target, with every course named", async () => {
      const response = await t.http.get("/api/v1/explorer/agreements/122977/110635");
      await expectContract(response, 200);
      const { from, to, rules, creditUnit, asOf } = response.body.data;
      expect([from.name, to.name]).to.deep.equal(["Santa Monica College", "University of California-Berkeley"]);
      expect(asOf).to.equal(new Date().toISOString().slice(0, 10));
      expect(creditUnit).to.equal("semester");
      expect(rules.map((rule: { id: string }) => rule.id)).to.deep.equal(["eq_art_elective", "eq_pair", "eq_math"]);
      const pair = rules[1];
      expect(
        pair.sourceCourses.map((course: { code: string; title: string }) => [course.code, course.title]),
      ).to.deep.equal([
        ["CHEM 1A", "General Chemistry"],
        ["CHEM 1AL", "General Chemistry Laboratory"],
      ]);
      expect(pair.sourceCourseSets).to.have.length(1);
      expect(pair.targets).to.deep.equal([
        {
          courseId: c["CHEM 4A"],
          code: "CHEM 4A",
          title: "General Chemistry and Quantitative Analysis",
          credits: 4,
          creditUnit: "semester",
        },
      ]);
      expect(pair).to.include({ minimumGrade: "C", effectiveFrom: "2020-08-01", targetChoice: "all" });
      expect(rules[0].targets[0]).to.include({ code: "ART 1XX", title: null, credits: 3 });
      // Without credits of its own, a target course shows the course's.
      expect(rules[2].targets[0]).to.include({ code: "MATH 1A", title: "Calculus", credits: 4 });
    });

    it("getExplorerAgreement of an unknown institution is a 404", async () => {
      const response = await t.http.get(`/api/v1/explorer/agreements/${SMC}/inst_999999`);
      await expectContract(response, 404);
    });

    it("createExplorerTransferEvaluation answers in names, a typed course the catalog lacks as unknown_course", async () => {
      const response = await t.http.post("/api/v1/explorer/transfer-evaluations").send({
        from: "122977",
        to: "110635",
        courses: [
          { code: "chem 1a", grade: "B", completedOn: "2025-06-12" },
          { courseId: c["CHEM 1AL"], grade: "B", completedOn: "2025-06-12" },
          { code: "PHIL 99", title: "Philosophy of Science", grade: "A" },
          { code: "ENGL 1", grade: "A" },
          { code: "HIST 11", grade: "A", completedOn: "2025-06-12" },
        ],
      });
      await expectContract(response, 200);
      const { results, totals, to } = response.body.data;
      expect(to.name).to.equal("University of California-Berkeley");
      expect(results.map((r: { outcome: string }) => r.outcome)).to.deep.equal([
        "equivalent",
        "equivalent",
        "unknown_course",
        "no_rule",
        "condition_not_met",
      ]);
      expect(results[0].course).to.include({ code: "CHEM 1A", title: "General Chemistry" });
      expect(results[0].combinedWith).to.deep.equal(["CHEM 1AL"]);
      expect(results[2].course).to.deep.equal({
        id: null,
        code: "PHIL 99",
        title: "Philosophy of Science",
        credits: null,
        creditUnit: null,
      });
      const reasons = results.flatMap((r: { reasons: string[] }) => r.reasons).join("\n");
      expect(reasons).not.to.match(/eq_|crs_|inst_|priority/);
      expect(reasons).to.include('Rule "CHEM 1A + CHEM 1AL → CHEM 4A" applies');
      expect(reasons).to.include("No accepted rule of University of California-Berkeley has ENGL 1");
      expect(totals).to.include({ courses: 5, matchedCourses: 2, unmatchedCourses: 3, awardedCredits: 4 });
    });

    it("createExplorerTransferEvaluation counts no demand (listEquivalencyRequests stays empty)", async () => {
      await t.http
        .post("/api/v1/explorer/transfer-evaluations")
        .send({ from: SMC, to: BERKELEY, courses: [{ code: "ENGL 1" }] });
      const requested = await t.http
        .get(`/api/v1/equivalency-requests?targetInstitution=${BERKELEY}`)
        .set(bearer(t.keys.live));
      await expectContract(requested, 200);
      expect(requested.body.data).to.deep.equal([]);
    });

    it("createExplorerTransferEvaluation refuses, all at once, a course of another institution and a course given twice", async () => {
      const response = await t.http.post("/api/v1/explorer/transfer-evaluations").send({
        from: SMC,
        to: BERKELEY,
        courses: [
          { courseId: c["CHEM 4A"] },
          { code: "MATH 7" },
          { code: "math  7" },
          { code: "X 1", courseId: c["MATH 7"] },
        ],
      });
      await expectContract(response, 400);
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
        "/courses/0/courseId",
        "/courses/2",
        "/courses/3",
      ]);
    });
  });

  describe("the address's bucket", () => {
    let limited: TestApp;
    before(async () => {
      limited = await createTestApp({ SVC_RATE_LIMIT_BURST: "2", SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.001" });
    });
    after(() => limited.close());

    it("listExplorerEnvironments is refused 429 with Retry-After once the address has used its bucket", async () => {
      for (let i = 0; i < 2; i++) await expectContract(await limited.http.get("/api/v1/explorer/environments"), 200);
      const refused = await limited.http.get("/api/v1/explorer/environments");
      await expectContract(refused, 429);
      expectProblem(refused, "rate-limited");
      expect(refused.headers["retry-after"]).to.match(/^\d+$/);
      // A credential's own bucket is not the address's: the API is still served to a key.
      const withKey = await limited.http.get("/api/v1/institutions").set(bearer(limited.keys.live));
      await expectContract(withKey, 200);
    });
  });
});
