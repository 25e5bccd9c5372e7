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
        "No accepted rule of University of California-Berkeley has BIO 101 among its source courses.",
      ]);
      expect(chem).to.include({ outcome: "equivalent", equivalencyId: pair, equivalencyVersion: 1, awardedCredits: 4 });
      expect(chem.evaluatedOn).to.equal("2025-06-12");
      expect(chem.targets).to.deep.equal([
        { courseId: c["CHEM 4A"], code: "CHEM 4A", title: "General Chemistry and Quantitative Analysis", credits: 4 },
      ]);
      expect(chem.reasons).to.deep.equal([
        'Rule "CHEM 1A → CHEM 1XX" was not applied: CHEM 1A is already counted by rule "CHEM 1A + CHEM 1AL → CHEM 4A".',
        'Rule "CHEM 1A + CHEM 1AL → CHEM 4A" applies: equivalent (priority 1, in force on 2025-06-12).',
        'Grade C of CHEM 1A meets the condition of rule "CHEM 1A + CHEM 1AL → CHEM 4A": C or better.',
      ]);
      expect(lab).to.include({ outcome: "equivalent", equivalencyId: pair, awardedCredits: 0 });
      expect(lab.combinedWith).to.deep.equal([c["CHEM 1A"], c["CHEM 1AL"]]);
      expect(data.totals).to.deep.equal({
        courses: 3,
        matchedCourses: 2,
        unmatchedCourses: 1,
        unknownCourses: 0,
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
      expect(chem.reasons[0]).to.equal('Rule "CHEM 1A + CHEM 1AL → CHEM 4A" needs C or better; CHEM 1A has D.');
      expect(lab.outcome).to.equal("condition_not_met");

      const withdrawn = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [{ courseId: c["CHEM 1A"], grade: "W" }],
      });
      await expectContract(withdrawn, 200);
      const [alone] = withdrawn.body.data.results;
      expect(alone.outcome).to.equal("condition_not_met");
      expect(alone.reasons).to.include(
        'Rule "CHEM 1A + CHEM 1AL → CHEM 4A" needs CHEM 1AL too, which the list does not include.',
      );
      expect(alone.reasons).to.include(
        'Rule "CHEM 1A → CHEM 1XX" needs a passing grade; CHEM 1A has W, which is not passing.',
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
        'Rule "CHEM 1A → CHEM 1XX" is in force from 2024-08-15 with no end; CHEM 1A is evaluated on 2023-12-01, outside it.',
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
        {
          pointer: "/courses/2/code",
          message:
            'no course "BIO 999" at Santa Monica College (give its title too to evaluate a course the catalog lacks)',
        },
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
    it("listEquivalencyRequests: one count per requester, course, target and UTC day whatever the grades or dates, by demand", async () => {
      const history = { institutionId: SMC, code: "HIST 11", grade: "A" };
      const biology = { courseId: c["BIO 101"], grade: "B" };
      // HIST 11 was counted once above (the read-only key) and BIO 101 once (the live key): the
      // same requesters asking again today, with other grades or dates, count no more.
      await evaluate({ targetInstitutionId: BERKELEY, courses: [history, biology] });
      await evaluate({ targetInstitutionId: BERKELEY, courses: [history, biology] });
      await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [{ ...history, grade: "B", completedOn: "2024-01-02" }],
      });
      await evaluate({ targetInstitutionId: BERKELEY, courses: [history, biology] }, t.keys.liveReadOnly);

      const response = await requested(`targetInstitution=${BERKELEY}&limit=1`);
      await expectContract(response, 200);
      const [first] = response.body.data;
      const expected = [c["BIO 101"], c["HIST 11"]].sort();
      expect(first).to.deep.equal({
        targetInstitutionId: BERKELEY,
        sourceCourseId: expected[0],
        sourceCourse: {
          code: expected[0] === c["BIO 101"] ? "BIO 101" : "HIST 11",
          title: expected[0] === c["BIO 101"] ? "Concepts in Biology" : "History of the United States",
          institutionId: SMC,
        },
        requests: 2,
        distinctRequesters: 2,
        inCatalog: true,
        lastRequestedAt: first.lastRequestedAt,
      });
      expect(response.body.pagination).to.include({ total: 2, returned: 1 });
      const next = await requested(
        `targetInstitution=${BERKELEY}&limit=1&after=${response.body.pagination.nextCursor}`,
      );
      await expectContract(next, 200);
      expect(
        next.body.data.map((item: { sourceCourseId: string; requests: number; distinctRequesters: number }) => [
          item.sourceCourseId,
          item.requests,
          item.distinctRequesters,
        ]),
      ).to.deep.equal([[expected[1], 2, 2]]);
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

  describe("agreements as published: alternatives, choices, cross-listed codes, unknown courses, demand", () => {
    let either: string;
    let pair: string;
    let choice: string;
    let rival: string;

    before(async () => {
      Object.assign(
        c,
        await postCourses(t, [
          { institutionId: SMC, code: "MATH 7", title: "Calculus I", credits: 5, level: "lower" },
          { institutionId: SMC, code: "MATH 7H", title: "Honors Calculus I", credits: 5, level: "lower" },
          { institutionId: SMC, code: "BIOL 400", title: "Principles of Biology", credits: 4, level: "lower" },
          { institutionId: SMC, code: "BIOL 410", title: "Cell Biology Laboratory", credits: 1, level: "lower" },
          { institutionId: SMC, code: "BIOL 415", title: "Organismal Biology Laboratory", credits: 1, level: "lower" },
          { institutionId: SMC, code: "STAT 8", title: "Foundations of Data Science", credits: 4, level: "lower" },
          { institutionId: BERKELEY, code: "MATH 1A", title: "Calculus", credits: 4, level: "lower" },
          {
            institutionId: BERKELEY,
            code: "MATH 16A",
            title: "Analytic Geometry and Calculus",
            credits: 3,
            level: "lower",
          },
          { institutionId: BERKELEY, code: "BIOLOGY 1A", title: "General Biology Lecture", credits: 3, level: "lower" },
        ]),
      );
      // STAT 8 is also listed as DATA 8 (a cross-listed code of the same course).
      await t.database.prisma.$executeRawUnsafe(
        `INSERT INTO course_codes (environment, institution_id, code_key, course_id, code, cross_listed)
         VALUES ('live', $1, 'DATA 8', $2, 'DATA 8', true)`,
        SMC,
        c["STAT 8"],
      );
      either = await rule({
        sourceCourseIds: [c["MATH 7"]],
        sourceCourseSets: [[c["MATH 7"]], [c["MATH 7H"]]],
        targetCourseId: c["MATH 1A"],
        targetCode: "MATH 1A",
        targets: [{ courseId: c["MATH 1A"], code: "MATH 1A", credits: 4 }],
      });
      pair = await rule({
        sourceCourseIds: [c["BIOL 400"], c["BIOL 410"]],
        sourceCourseSets: [
          [c["BIOL 400"], c["BIOL 410"]],
          [c["BIOL 400"], c["BIOL 415"]],
        ],
        targetCourseId: c["BIOLOGY 1A"],
        targetCode: "BIOLOGY 1A",
        targets: [{ courseId: c["BIOLOGY 1A"], code: "BIOLOGY 1A", credits: 3 }],
      });
      choice = await rule({
        sourceCourseIds: [c["STAT 8"]],
        targetChoice: "one_of",
        targetCourseId: c["MATH 1A"],
        targetCode: "MATH 1A",
        targets: [
          { courseId: c["MATH 1A"], code: "MATH 1A", credits: 4 },
          { courseId: c["MATH 16A"], code: "MATH 16A", credits: 3 },
        ],
      });
      rival = await rule({
        sourceCourseIds: [c["STAT 8"]],
        status: "conflict",
        targetCode: "STAT 1XX",
        targets: [{ courseId: null, code: "STAT 1XX", credits: 4 }],
      });
    });

    it('createTransferEvaluation: "MATH 7 or MATH 7H" taken both credits MATH 1A once; "(BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415)"', async () => {
      const response = await evaluate({
        targetInstitutionId: BERKELEY,
        asOf: "2025-06-12",
        courses: [
          { institutionId: SMC, code: "MATH 7H", grade: "A" },
          { institutionId: SMC, code: "MATH 7", grade: "B" },
          { institutionId: SMC, code: "BIOL 415" },
          { institutionId: SMC, code: "BIOL 400" },
          { institutionId: SMC, code: "BIOL 410" },
        ],
      });
      await expectContract(response, 200);
      const [honours, plain, lab415, lecture, lab410] = response.body.data.results;
      expect(plain).to.include({ equivalencyId: either, sourceSetIndex: 0, awardedCredits: 4, targetChoice: "all" });
      expect(honours).to.include({
        outcome: "equivalent",
        equivalencyId: either,
        sourceSetIndex: 0,
        awardedCredits: 0,
      });
      expect(honours.reasons).to.include(
        'MATH 7H is in another set of rule "MATH 7 or MATH 7H → MATH 1A": the rule\'s credit was given through the applied set, MATH 7, once.',
      );
      expect(lecture).to.include({ equivalencyId: pair, sourceSetIndex: 0, awardedCredits: 3 });
      expect(lab410).to.include({ equivalencyId: pair, sourceSetIndex: 0, awardedCredits: 0 });
      expect(lab415).to.include({ equivalencyId: pair, sourceSetIndex: 0, awardedCredits: 0 });
      expect(lecture.reasons[0]).to.equal(
        'Rule "(BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415) → BIOLOGY 1A" applies through BIOL 400 + BIOL 410: ' +
          "equivalent (priority 0, in force on 2025-06-12).",
      );
      expect(response.body.data.totals).to.deep.include({ matchedCourses: 5, awardedCredits: 7, unknownCourses: 0 });
    });

    it("createTransferEvaluation: a one_of rule names every option and counts the least; a cross-listed code is the course; a rival in conflict is named", async () => {
      const response = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [{ institutionId: SMC, code: "data  8", grade: "B", completedOn: "2025-06-12" }],
      });
      await expectContract(response, 200);
      const [result] = response.body.data.results;
      expect(result).to.include({
        courseId: c["STAT 8"],
        code: "STAT 8",
        equivalencyId: choice,
        targetChoice: "one_of",
        awardedCredits: 3,
      });
      expect(result.targets.map((target: { code: string }) => target.code)).to.deep.equal(["MATH 1A", "MATH 16A"]);
      expect(result.reasons).to.include(
        "The student receives one of MATH 1A or MATH 16A, chosen by their program; the least option is counted: 3 semester units.",
      );
      expect(result.conflictingEquivalencyIds).to.deep.equal([rival]);
      expect(result.reasons.at(-1)).to.equal(
        'Rule "STAT 8 → STAT 1XX", which names STAT 8, is waiting in conflict with another rule: the answer may change when the stewards decide.',
      );
      expect(response.body.data.totals.awardedCredits).to.equal(3);
    });

    it("createTransferEvaluation: a course the catalog lacks, given with its title, is unknown_course and counted as demand", async () => {
      const response = await evaluate({
        targetInstitutionId: BERKELEY,
        courses: [
          { institutionId: SMC, code: "ASTR 102", title: "Astronomy of the Solar System", grade: "A" },
          { institutionId: SMC, code: "MATH 7", grade: "A" },
        ],
      });
      await expectContract(response, 200);
      const [unknown, known] = response.body.data.results;
      expect(unknown).to.deep.include({
        courseId: "",
        institutionId: SMC,
        code: "ASTR 102",
        title: "Astronomy of the Solar System",
        outcome: "unknown_course",
        equivalencyId: null,
        awardedCredits: null,
        targetChoice: null,
        sourceSetIndex: null,
        conflictingEquivalencyIds: [],
      });
      expect(unknown.reasons).to.deep.equal([
        "ASTR 102 is not in the catalog of Santa Monica College, so no rule can name it; the request for a rule is counted.",
      ]);
      expect(known).to.include({ equivalencyId: either });
      expect(response.body.data.totals).to.deep.include({
        courses: 2,
        matchedCourses: 1,
        unmatchedCourses: 1,
        unknownCourses: 1,
      });

      await evaluate(
        {
          targetInstitutionId: BERKELEY,
          courses: [{ institutionId: SMC, code: "astr 102", title: "Solar System Astronomy" }],
        },
        t.keys.liveReadOnly,
      );
      const lacking = await requested(`targetInstitution=${BERKELEY}&inCatalog=false`);
      await expectContract(lacking, 200);
      expect(lacking.body.data).to.deep.equal([
        {
          targetInstitutionId: BERKELEY,
          sourceCourseId: "",
          sourceCourse: { institutionId: SMC, code: "astr 102", title: "Solar System Astronomy" },
          requests: 2,
          distinctRequesters: 2,
          inCatalog: false,
          lastRequestedAt: lacking.body.data[0].lastRequestedAt,
        },
      ]);
      const both = await requested(`targetInstitution=${BERKELEY}`);
      await expectContract(both, 200);
      expect(both.body.data.map((item: { inCatalog: boolean }) => item.inCatalog)).to.include(false);
      const catalogOnly = await requested(`targetInstitution=${BERKELEY}&inCatalog=true`);
      expect(catalogOnly.body.data.map((item: { inCatalog: boolean }) => item.inCatalog)).to.not.include(false);
    });

    it("createTransferEvaluation: every faulty course in one 400; a code the catalog lacks without a title, an unknown institution or course id stay 400s", async () => {
      const response = await evaluate({
        targetInstitutionId: "inst_999999",
        courses: [
          { institutionId: SMC, code: "ASTR 103" },
          { institutionId: "inst_999998", code: "ASTR 102", title: "Astronomy" },
          { courseId: "crs_missing", title: "Astronomy" },
          { institutionId: SMC, code: "ASTR 104", title: "Stars" },
        ],
      });
      await expectContract(response, 400);
      expect(response.body.errors).to.deep.equal([
        { pointer: "/targetInstitutionId", message: 'no institution with id "inst_999999"' },
        {
          pointer: "/courses/0/code",
          message:
            'no course "ASTR 103" at Santa Monica College (give its title too to evaluate a course the catalog lacks)',
        },
        { pointer: "/courses/1/institutionId", message: 'no institution with id "inst_999998"' },
        { pointer: "/courses/2/courseId", message: 'no course with id "crs_missing"' },
      ]);
    });

    it("listEquivalencyRequests: 500 evaluations from one key with different dates and grades move a count by 1", async () => {
      const { "PHIL 1": philosophy } = await postCourses(t, [
        { institutionId: SMC, code: "PHIL 1", title: "Introduction to Philosophy", credits: 3, level: "lower" },
      ]);
      const grades = ["A", "B", "C", "P", "F"];
      const asks = Array.from({ length: 500 }, (_, n) => ({
        targetInstitutionId: BERKELEY,
        courses: [
          {
            courseId: philosophy,
            grade: grades[n % grades.length],
            completedOn: new Date(Date.UTC(2020, 0, 1 + n)).toISOString().slice(0, 10),
          },
        ],
      }));
      for (let start = 0; start < asks.length; start += 25) {
        const answers = await Promise.all(
          asks.slice(start, start + 25).map((body) => evaluate(body, t.keys.liveReadOnly)),
        );
        for (const answer of answers) expect(answer.status).to.equal(200);
      }
      const after = await requested(`targetInstitution=${BERKELEY}&inCatalog=true&limit=100`);
      await expectContract(after, 200);
      const item = after.body.data.find((one: { sourceCourseId: string }) => one.sourceCourseId === philosophy);
      expect(item).to.include({ requests: 1, distinctRequesters: 1, inCatalog: true });
      // A second requester the same day counts once more.
      await evaluate(asks[0]);
      const again = await requested(`targetInstitution=${BERKELEY}&inCatalog=true&limit=100`);
      const second = again.body.data.find((one: { sourceCourseId: string }) => one.sourceCourseId === philosophy);
      expect(second).to.include({ requests: 2, distinctRequesters: 2 });
    });
  });
});
