// "Will my courses transfer?" through the API: createTransferEvaluation against rules stored in
// the database, and listEquivalencyRequests, the demand it counts (docs/api-guide.md).
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions, postCourses, storeRule, type StoredRuleFields } from "../helpers/fixtures.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";

const CATALOG = [
  { institutionId: SMC, code: "BIO 101", title: "Concepts in Biology", credits: 4, level: "lower" },
  { institutionId: SMC, code: "CHEM 1A", title: "General Chemistry", credits: 5, level: "lower" },
  { institutionId: SMC, code: "CHEM 1AL", title: "General Chemistry Laboratory", credits: 1, level: "lower" },
  { institutionId: SMC, code: "HIST 11", title: "History of the United States", credits: 3, level: "lower" },
  {
    institutionId: BERKELEY,
    code: "CHEM 4A",
    title: "General Chemistry and Quantitative Analysis",
    credits: 4,
    level: "lower",
  },
];

describe("transfer evaluations: createTransferEvaluation and listEquivalencyRequests", () => {
  let t: TestApp;
  let c: Record<string, string>;
  let sequence = 0;

  const evaluate = (body: object, key = t.keys.live) =>
    t.http.post("/api/v1/transfer-evaluations").set(bearer(key)).send(body);
  const requested = (query: string, key = t.keys.live) =>
    t.http.get(`/api/v1/equivalency-requests?${query}`).set(bearer(key));

  /** An accepted rule of Berkeley, written as the rules' columns hold it. */
  function rule(fields: Omit<StoredRuleFields, "id" | "targetInstitutionId">) {
    sequence += 1;
    return storeRule(t.database.prisma, { id: `eq_test${sequence}`, targetInstitutionId: BERKELEY, ...fields });
  }

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    c = await postCourses(t, CATALOG);
  });
  after(() => t.close());

  describe("createTransferEvaluation", () => {
    let pair: string;
    let elective: string;

    before(async () => {
      pair = await rule({
        sourceCourseIds: [c["CHEM 1A"], c["CHEM 1AL"]],
        targetCourseId: c["CHEM 4A"],
        targetCode: "CHEM 4A",
        targets: [{ courseId: c["CHEM 4A"], code: "CHEM 4A", credits: 4 }],
        minimumGrade: "C",
        priority: 1,
        awardedCredits: 4,
        awardedCreditUnit: "semester",
      });
      elective = await rule({
        sourceCourseIds: [c["CHEM 1A"]],
        targetCode: "CHEM 1XX",
        targets: [{ courseId: null, code: "CHEM 1XX", credits: 3 }],
        kind: "elective",
        awardedCredits: 3,
        awardedCreditUnit: "semester",
        effectiveFrom: new Date("2024-08-15"),
      });
    });

    it("createTransferEvaluation: BIO 101 (B) and CHEM 1A + CHEM 1AL (C), by code and by id, with reasons and totals", async () => {
      const response = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [
          { institutionId: SMC, code: "bio  101", grade: "B", completedOn: "2025-06-12" },
          { institutionId: SMC, code: "CHEM 1A", grade: "C", completedOn: "2025-06-12" },
          { courseId: c["CHEM 1AL"], grade: "C", completedOn: "2025-05-30" },
        ],
      });
      await expectContract(response, 200);
      const { data } = response.body;
      expect(data).to.include({ targetInstitutionId: BERKELEY, asOf: null, creditUnit: "semester" });
      const [bio, chem, lab] = data.results;
      expect(bio).to.include({ courseId: c["BIO 101"], code: "BIO 101", outcome: "no_rule", equivalencyId: null });
      expect(bio.reasons).to.deep.equal([
        "No accepted rule of the target institution has BIO 101 among its source courses.",
      ]);
      expect(chem).to.include({ outcome: "equivalent", equivalencyId: pair, equivalencyVersion: 1, awardedCredits: 4 });
      expect(chem.evaluatedOn).to.equal("2025-06-12");
      expect(chem.targets).to.deep.equal([
        { courseId: c["CHEM 4A"], code: "CHEM 4A", title: "General Chemistry and Quantitative Analysis", credits: 4 },
      ]);
      expect(chem.reasons).to.deep.equal([
        `Rule ${elective} (version 1) was not applied: CHEM 1A is already counted by ${pair}.`,
        `Rule ${pair} (version 1) applies: CHEM 1A + CHEM 1AL → CHEM 4A, equivalent (priority 1, in force on 2025-06-12).`,
        `Grade C of CHEM 1A meets the condition of Rule ${pair} (version 1): C or better.`,
      ]);
      expect(lab).to.include({ outcome: "equivalent", equivalencyId: pair, awardedCredits: 0 });
      expect(lab.combinedWith).to.deep.equal([c["CHEM 1A"], c["CHEM 1AL"]]);
      expect(data.totals).to.deep.equal({
        courses: 3,
        matchedCourses: 2,
        unmatchedCourses: 1,
        awardedCredits: 4,
        creditUnit: "semester",
        unconvertedCredits: [],
      });
    });

    it("createTransferEvaluation: a grade below the pair's minimum falls to the elective; a W meets neither", async () => {
      const below = await evaluate({
        targetInstitutionId: BERKELEY,
        asOf: "2025-01-10",
        courses: [
          { courseId: c["CHEM 1A"], grade: "D" },
          { courseId: c["CHEM 1AL"], grade: "B" },
        ],
      });
      await expectContract(below, 200);
      const [chem, lab] = below.body.data.results;
      expect(chem).to.include({ outcome: "elective", equivalencyId: elective, awardedCredits: 3 });
      expect(chem.reasons[0]).to.equal(`Rule ${pair} (version 1) needs C or better; CHEM 1A has D.`);
      expect(lab.outcome).to.equal("condition_not_met");

      const withdrawn = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [{ courseId: c["CHEM 1A"], grade: "W" }],
      });
      await expectContract(withdrawn, 200);
      const [alone] = withdrawn.body.data.results;
      expect(alone.outcome).to.equal("condition_not_met");
      expect(alone.reasons).to.include(`Rule ${pair} (version 1) needs CHEM 1AL too, which the list does not include.`);
      expect(alone.reasons).to.include(
        `Rule ${elective} (version 1) needs a passing grade; CHEM 1A has W, which is not passing.`,
      );
    });

    it("createTransferEvaluation: a course completed before the rule was in force does not meet its date", async () => {
      const response = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [{ courseId: c["CHEM 1A"], grade: "A", completedOn: "2023-12-01" }],
      });
      await expectContract(response, 200);
      const [result] = response.body.data.results;
      expect(result.outcome).to.equal("condition_not_met");
      expect(result.reasons).to.include(
        `Rule ${elective} (version 1) is in force from 2024-08-15 with no end; CHEM 1A is evaluated on 2023-12-01, outside it.`,
      );
    });

    it("createTransferEvaluation: any credential of the environment may ask, and nothing is audited", async () => {
      const before = await t.database.prisma.auditEntry.count();
      const response = await evaluate(
        { targetInstitutionId: BERKELEY, courses: [{ courseId: c["HIST 11"] }] },
        t.keys.liveReadOnly,
      );
      await expectContract(response, 200);
      expect(response.body.data.results[0].outcome).to.equal("no_rule");
      expect(await t.database.prisma.auditEntry.count()).to.equal(before);
    });

    it("createTransferEvaluation: 400 pointing at the unknown institution, course or malformed item", async () => {
      const target = await evaluate({ targetInstitutionId: "inst_999999", courses: [{ courseId: c["BIO 101"] }] });
      await expectContract(target, 400);
      expectProblem(target, "validation-failed");
      expect(target.body.errors).to.deep.equal([
        { pointer: "/targetInstitutionId", message: 'no institution with id "inst_999999"' },
      ]);

      const items = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [
          { institutionId: "inst_999999", code: "BIO 101" },
          { courseId: "crs_missing" },
          { institutionId: SMC, code: "BIO 999" },
          { courseId: c["BIO 101"], code: "BIO 101" },
          { grade: "A" },
          { courseId: c["HIST 11"] },
          { institutionId: SMC, code: "hist 11" },
        ],
      });
      await expectContract(items, 400);
      expect(items.body.errors).to.deep.equal([
        { pointer: "/courses/0/institutionId", message: 'no institution with id "inst_999999"' },
        { pointer: "/courses/1/courseId", message: 'no course with id "crs_missing"' },
        { pointer: "/courses/2/code", message: `no course "BIO 999" at ${SMC}` },
        { pointer: "/courses/3", message: "give either courseId, or institutionId and code, not both" },
        { pointer: "/courses/4", message: "give courseId, or institutionId and code" },
        { pointer: "/courses/6", message: "the same course as /courses/5" },
      ]);

      const tooMany = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: Array.from({ length: 101 }, () => ({ courseId: c["BIO 101"] })),
      });
      await expectContract(tooMany, 400);
      expect(tooMany.body.errors[0].pointer).to.equal("/courses");
    });
  });

  describe("listEquivalencyRequests", () => {
    it("listEquivalencyRequests: counts each no_rule course, an identical evaluation once a day per credential, by demand", async () => {
      const history = { institutionId: SMC, code: "HIST 11", grade: "A" };
      const biology = { courseId: c["BIO 101"], grade: "B" };
      // HIST 11 was counted once above (the read-only key); these add to it.
      await evaluate({ targetInstitutionId: BERKELEY, courses: [history, biology] });
      await evaluate({ targetInstitutionId: BERKELEY, courses: [history, biology] });
      await evaluate({ targetInstitutionId: BERKELEY, courses: [{ ...history, grade: "B" }] });
      await evaluate({ targetInstitutionId: BERKELEY, courses: [history, biology] }, t.keys.liveReadOnly);

      const response = await requested(`targetInstitution=${BERKELEY}&limit=1`);
      await expectContract(response, 200);
      expect(response.body.data).to.deep.equal([
        {
          targetInstitutionId: BERKELEY,
          sourceCourseId: c["HIST 11"],
          sourceCourse: { code: "HIST 11", title: "History of the United States", institutionId: SMC },
          requests: 4,
          lastRequestedAt: response.body.data[0].lastRequestedAt,
        },
      ]);
      expect(response.body.pagination).to.include({ total: 2, returned: 1 });
      const next = await requested(
        `targetInstitution=${BERKELEY}&limit=1&after=${response.body.pagination.nextCursor}`,
      );
      await expectContract(next, 200);
      // BIO 101: the first test's evaluation, then two credentials' identical evaluations.
      expect(
        next.body.data.map((item: { sourceCourseId: string; requests: number }) => [
          item.sourceCourseId,
          item.requests,
        ]),
      ).to.deep.equal([[c["BIO 101"], 3]]);
      expect(next.body.pagination.nextCursor).to.equal(null);

      const elsewhere = await requested(`targetInstitution=${SMC}`);
      await expectContract(elsewhere, 200);
      expect(elsewhere.body.data).to.deep.equal([]);
    });

    it("listEquivalencyRequests: 400 without a target institution, or with another list's cursor", async () => {
      const missing = await requested("limit=5");
      await expectContract(missing, 400);
      expect(missing.body.errors[0].pointer).to.equal("/query/targetInstitution");
      const first = await requested(`targetInstitution=${BERKELEY}&limit=1`);
      const foreign = await requested(`targetInstitution=${SMC}&after=${first.body.pagination.nextCursor}`);
      await expectContract(foreign, 400);
      expectProblem(foreign, "invalid-cursor");
    });

    it("listEquivalencyRequests: creating an accepted rule, or accepting one, clears its source course's requests", async () => {
      const created = await t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send({
        sourceCourseId: c["HIST 11"],
        targetInstitutionId: BERKELEY,
        targetCode: "HIST 1XX",
        status: "accepted",
      });
      expect(created.status).to.equal(201);
      const pending = await t.http
        .post("/api/v1/equivalencies")
        .set(bearer(t.keys.live))
        .send({ sourceCourseId: c["BIO 101"], targetInstitutionId: BERKELEY, targetCode: "BIOL 1XX" });
      expect(pending.status).to.equal(201);
      const afterCreate = await requested(`targetInstitution=${BERKELEY}`);
      await expectContract(afterCreate, 200);
      expect(afterCreate.body.data.map((item: { sourceCourseId: string }) => item.sourceCourseId)).to.deep.equal([
        c["BIO 101"],
      ]);
      const accepted = await t.http
        .patch(`/api/v1/equivalencies/${pending.body.data.id}`)
        .set(bearer(t.keys.live))
        .send({ status: "accepted" });
      expect(accepted.status).to.equal(200);
      const afterAccept = await requested(`targetInstitution=${BERKELEY}`);
      await expectContract(afterAccept, 200);
      expect(afterAccept.body.data).to.deep.equal([]);
    });
  });
});
