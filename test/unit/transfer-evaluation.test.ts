// The evaluation engine as a specification (src/services/rules/evaluation-engine.ts): one example per
// outcome and per reason, then properties over generated rules and courses (fast-check).
import { expect } from "chai";
import fc from "fast-check";
import {
  convertCredits,
  evaluateTransfer,
  gradeMeets,
  LETTER_GRADES,
  type EvaluationCourse,
  type EvaluationInput,
  type EvaluationRule,
  type EvaluationResult,
} from "../../src/services/rules/evaluation-engine.ts";

const BERKELEY = "inst_ucb";
const TODAY = "2026-11-26";

function course(id: string, fields: Partial<EvaluationCourse> = {}): EvaluationCourse {
  return {
    id,
    code: id.toUpperCase(),
    title: `Title of ${id}`,
    institutionId: "inst_smc",
    credits: 4,
    creditUnit: "semester",
    ...fields,
  };
}

function rule(id: string, sourceCourseIds: string[], fields: Partial<EvaluationRule> = {}): EvaluationRule {
  return {
    id,
    version: 1,
    targetInstitutionId: BERKELEY,
    status: "accepted",
    sourceCourseIds,
    kind: "equivalent",
    targets: [{ courseId: `crs_${id}`, code: `T-${id}`, title: `Target of ${id}`, credits: 3 }],
    generalEducationArea: null,
    minimumGrade: null,
    effectiveFrom: null,
    effectiveUntil: null,
    priority: 0,
    awardedCredits: null,
    awardedCreditUnit: null,
    ...fields,
  };
}

function evaluate(rules: EvaluationRule[], courses: EvaluationCourse[], fields: Partial<EvaluationInput> = {}) {
  return evaluateTransfer({
    targetInstitutionId: BERKELEY,
    targetUnit: "semester",
    rules,
    courses,
    today: TODAY,
    ...fields,
  });
}

function only(
  rules: EvaluationRule[],
  input: EvaluationCourse,
  fields: Partial<EvaluationInput> = {},
): EvaluationResult {
  return evaluate(rules, [input], fields).results[0];
}

describe("transfer evaluation: the grade scale and units", () => {
  it("ranks A+ with A, P at C, and NP, F, W, I below every minimum", () => {
    expect(gradeMeets("A+", "A")).to.equal(true);
    expect(gradeMeets("A", "A+")).to.equal(true);
    expect(gradeMeets("B", "C")).to.equal(true);
    expect(gradeMeets("C-", "C")).to.equal(false);
    expect(gradeMeets("D-", null)).to.equal(true);
    expect(gradeMeets("P", "C")).to.equal(true);
    expect(gradeMeets("P", "C+")).to.equal(false);
    expect(gradeMeets("P", null)).to.equal(true);
    expect(gradeMeets("P", "P")).to.equal(true);
    expect(gradeMeets("C", "P")).to.equal(true);
    expect(gradeMeets("C-", "P")).to.equal(false);
    for (const mark of ["NP", "F", "W", "I"]) {
      expect(gradeMeets(mark, null), mark).to.equal(false);
      expect(gradeMeets(mark, "D-"), mark).to.equal(false);
    }
  });

  it("converts quarter and semester units both ways, to two decimals, and nothing else", () => {
    expect(convertCredits(4, "quarter", "semester")).to.equal(2.67);
    expect(convertCredits(3, "semester", "quarter")).to.equal(4.5);
    expect(convertCredits(3, "semester", "semester")).to.equal(3);
    expect(convertCredits(30, "clock_hour", "semester")).to.equal(null);
    expect(convertCredits(1, "ceu", "quarter")).to.equal(null);
  });
});

describe("transfer evaluation: outcomes", () => {
  it("equivalent: the rule, its targets and their credits", () => {
    const result = only([rule("eq_bio", ["bio101"])], course("bio101", { grade: "B" }));
    expect(result.outcome).to.equal("equivalent");
    expect(result.equivalencyId).to.equal("eq_bio");
    expect(result.equivalencyVersion).to.equal(1);
    expect(result.targets).to.deep.equal([
      { courseId: "crs_eq_bio", code: "T-eq_bio", title: "Target of eq_bio", credits: 3 },
    ]);
    expect(result.awardedCredits).to.equal(3);
    expect(result.awardedCreditUnit).to.equal("semester");
    expect(result.reasons[0]).to.match(/^Rule eq_bio \(version 1\) applies: BIO101 → T-eq_bio, equivalent/);
    expect(result.reasons[1]).to.equal(
      "Grade B of BIO101 meets the condition of Rule eq_bio (version 1): a passing grade.",
    );
  });

  it("elective without targets: the source course's credits, converted", () => {
    const elective = rule("eq_el", ["art1"], { kind: "elective", targets: [] });
    const result = only([elective], course("art1", { credits: 4, creditUnit: "quarter", grade: "A" }));
    expect(result.outcome).to.equal("elective");
    expect(result.awardedCredits).to.equal(2.67);
    expect(result.reasons).to.include("4 quarter units (ART1) = 2.67 semester units.");
  });

  it("general_education: the area, and the rule's own awarded credits in their unit", () => {
    const ge = rule("eq_ge", ["hist1"], {
      kind: "general_education",
      targets: [],
      generalEducationArea: "IGETC 4",
      awardedCredits: 6,
      awardedCreditUnit: "quarter",
    });
    const result = only([ge], course("hist1", { grade: "C" }));
    expect(result.outcome).to.equal("general_education");
    expect(result.generalEducationArea).to.equal("IGETC 4");
    expect(result.awardedCredits).to.equal(4);
    expect(result.reasons[0]).to.include("general education, area IGETC 4");
    expect(result.reasons).to.include("6 quarter units (the rule's credits) = 4 semester units.");
  });

  it("no_credit: the rule applies and awards 0", () => {
    const result = only([rule("eq_none", ["pe1"], { kind: "no_credit", targets: [] })], course("pe1"));
    expect(result.outcome).to.equal("no_credit");
    expect(result.awardedCredits).to.equal(0);
    expect(result.reasons).to.include("Rule eq_none (version 1) awards no credit.");
    const { totals } = evaluate([rule("eq_none", ["pe1"], { kind: "no_credit", targets: [] })], [course("pe1")]);
    expect(totals).to.deep.include({ matchedCourses: 1, unmatchedCourses: 0, awardedCredits: 0 });
  });

  it("condition_not_met: a grade below the minimum, named with the rule", () => {
    const result = only([rule("eq_chem", ["chem1a"], { minimumGrade: "C" })], course("chem1a", { grade: "D+" }));
    expect(result.outcome).to.equal("condition_not_met");
    expect(result.equivalencyId).to.equal(null);
    expect(result.awardedCredits).to.equal(null);
    expect(result.reasons).to.deep.equal(["Rule eq_chem (version 1) needs C or better; CHEM1A has D+."]);
  });

  it("condition_not_met: a grade that is not passing where the rule sets no minimum", () => {
    const result = only([rule("eq_chem", ["chem1a"])], course("chem1a", { grade: "W" }));
    expect(result.outcome).to.equal("condition_not_met");
    expect(result.reasons).to.deep.equal([
      "Rule eq_chem (version 1) needs a passing grade; CHEM1A has W, which is not passing.",
    ]);
  });

  it("condition_not_met: a course completed outside the rule's dates", () => {
    const dated = rule("eq_new", ["bio101"], { effectiveFrom: "2025-08-01", effectiveUntil: "2027-07-31" });
    const result = only([dated], course("bio101", { completedOn: "2024-05-15" }));
    expect(result.outcome).to.equal("condition_not_met");
    expect(result.evaluatedOn).to.equal("2024-05-15");
    expect(result.reasons).to.deep.equal([
      "Rule eq_new (version 1) is in force from 2025-08-01 until 2027-07-31; BIO101 is evaluated on 2024-05-15, outside it.",
    ]);
  });

  it("no_rule: no accepted rule of the target mentions the course", () => {
    const rules = [
      rule("eq_pending", ["bio101"], { status: "pending" }),
      rule("eq_elsewhere", ["bio101"], { targetInstitutionId: "inst_ucla" }),
    ];
    const result = only(rules, course("bio101"));
    expect(result.outcome).to.equal("no_rule");
    expect(result.reasons).to.deep.equal([
      "No accepted rule of the target institution has BIO101 among its source courses.",
    ]);
    const { totals } = evaluate(rules, [course("bio101")]);
    expect(totals).to.deep.include({ courses: 1, matchedCourses: 0, unmatchedCourses: 1, awardedCredits: 0 });
  });

  it("no_rule: a combination with a course missing names the missing course", () => {
    const combination = rule("eq_lab", ["chem1a", "chem1al"], {
      sourceCourseCodes: { chem1a: "CHEM 1A", chem1al: "CHEM 1AL" },
    });
    const result = only([combination], course("chem1a", { grade: "C" }));
    expect(result.outcome).to.equal("no_rule");
    expect(result.reasons).to.deep.equal([
      "Rule eq_lab (version 1) needs CHEM 1AL too, which the list does not include.",
    ]);
  });
});

describe("transfer evaluation: choosing among rules", () => {
  it("a combination counts all its courses once; its credits are carried by its first course", () => {
    const combination = rule("eq_lab", ["chem1a", "chem1al"]);
    const { results, totals } = evaluate(
      [combination],
      [course("chem1al", { grade: "B" }), course("chem1a", { grade: "C" })],
    );
    expect(results.map((result) => result.outcome)).to.deep.equal(["equivalent", "equivalent"]);
    expect(results[1].awardedCredits).to.equal(3);
    expect(results[0].awardedCredits).to.equal(0);
    expect(results[0].combinedWith).to.deep.equal(["chem1a", "chem1al"]);
    expect(results[0].reasons).to.include("The credits of Rule eq_lab (version 1) are counted once, with CHEM1A.");
    expect(totals).to.deep.include({ matchedCourses: 2, awardedCredits: 3 });
  });

  it("a combination is evaluated on the latest date of its courses", () => {
    const combination = rule("eq_lab", ["chem1a", "chem1al"], { effectiveUntil: "2025-06-30" });
    const { results } = evaluate(
      [combination],
      [course("chem1a", { completedOn: "2025-05-01" }), course("chem1al", { completedOn: "2025-08-20" })],
    );
    expect(results.map((result) => result.outcome)).to.deep.equal(["condition_not_met", "condition_not_met"]);
    expect(results[0].reasons[0]).to.include(
      "the combination CHEM1A + CHEM1AL (its latest date) is evaluated on 2025-08-20",
    );
  });

  it("the highest priority wins; a failed condition lets the lower one apply and says why", () => {
    const strict = rule("eq_strict", ["chem1a"], { minimumGrade: "C", priority: 10 });
    const otherwise = rule("eq_otherwise", ["chem1a"], { kind: "elective", targets: [], priority: 1 });
    const good = only([otherwise, strict], course("chem1a", { grade: "B-" }));
    expect(good.equivalencyId).to.equal("eq_strict");
    const poor = only([otherwise, strict], course("chem1a", { grade: "D" }));
    expect(poor.outcome).to.equal("elective");
    expect(poor.equivalencyId).to.equal("eq_otherwise");
    expect(poor.reasons[0]).to.equal("Rule eq_strict (version 1) needs C or better; CHEM1A has D.");
    expect(poor.awardedCredits).to.equal(4);
  });

  it("at equal priority, more source courses first, then the smaller id", () => {
    const single = rule("eq_a", ["chem1a"]);
    const pair = rule("eq_b", ["chem1a", "chem1al"]);
    const results = evaluate([single, pair], [course("chem1a"), course("chem1al")]).results;
    expect(results.map((result) => result.equivalencyId)).to.deep.equal(["eq_b", "eq_b"]);
    expect(only([rule("eq_z", ["x"]), rule("eq_y", ["x"])], course("x")).equivalencyId).to.equal("eq_y");
  });

  it("a rule whose course is already counted is not applied, and the course left over says so", () => {
    const single = rule("eq_single", ["chem1a"], { priority: 5 });
    const pair = rule("eq_pair", ["chem1a", "chem1al"]);
    const [first, second] = evaluate([single, pair], [course("chem1a"), course("chem1al")]).results;
    expect(first.equivalencyId).to.equal("eq_single");
    expect(second.outcome).to.equal("no_rule");
    expect(second.reasons).to.deep.equal([
      "Rule eq_pair (version 1) was not applied: CHEM1A is already counted by eq_single.",
    ]);
  });

  it("no grade: conditions are assumed met and named; no date: asOf, else today", () => {
    const dated = rule("eq_c", ["bio101"], { minimumGrade: "C", effectiveFrom: "2026-01-01" });
    const result = only([dated], course("bio101"), { asOf: "2026-03-01" });
    expect(result.outcome).to.equal("equivalent");
    expect(result.evaluatedOn).to.equal("2026-03-01");
    expect(result.reasons).to.include(
      "No grade given for BIO101: the condition of Rule eq_c (version 1), C or better, is assumed met.",
    );
    expect(only([dated], course("bio101")).evaluatedOn).to.equal(TODAY);
    expect(only([dated], course("bio101"), { asOf: "2025-12-31" }).outcome).to.equal("condition_not_met");
  });

  it("clock hours are not converted: the result keeps their unit, the totals list them apart", () => {
    const hours = rule("eq_hours", ["weld1"], {
      kind: "elective",
      targets: [],
      awardedCredits: 90,
      awardedCreditUnit: "clock_hour",
    });
    const { results, totals } = evaluate([hours], [course("weld1")]);
    expect(results[0]).to.deep.include({ awardedCredits: 90, awardedCreditUnit: "clock_hour" });
    expect(results[0].reasons).to.include(
      "90 clock hours (the rule's credits) are not converted to semester units: they are awarded in clock hours.",
    );
    expect(totals.awardedCredits).to.equal(0);
    expect(totals.unconvertedCredits).to.deep.equal([{ credits: 90, creditUnit: "clock_hour" }]);
  });

  it("refuses a course given twice", () => {
    expect(() => evaluate([], [course("a"), course("a")])).to.throw("course a is given twice");
  });
});

// Properties: generated rules over a small pool of courses, so that rules share courses often.
const POOL = ["c0", "c1", "c2", "c3", "c4", "c5"];
const GRADE_ORDER = [...LETTER_GRADES, "F"] as const;
const gradeArb = fc.constantFrom(...GRADE_ORDER);
const dateArb = fc.integer({ min: 0, max: 7 }).map((offset) => `202${offset}-06-01`);

const ruleArb = fc
  .record({
    id: fc.integer({ min: 0, max: 50 }).map((n) => `eq_${n}`),
    version: fc.integer({ min: 1, max: 3 }),
    sourceCourseIds: fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 3 }),
    kind: fc.constantFrom("equivalent", "elective", "general_education", "no_credit" as const),
    minimumGrade: fc.option(fc.constantFrom(...LETTER_GRADES, "P"), { nil: null }),
    effectiveFrom: fc.option(dateArb, { nil: null }),
    effectiveUntil: fc.option(dateArb, { nil: null }),
    priority: fc.integer({ min: 0, max: 3 }),
    awardedCredits: fc.option(fc.integer({ min: 0, max: 8 }), { nil: null }),
  })
  .map((fields) => rule(fields.id, fields.sourceCourseIds, fields));

const rulesArb = fc.uniqueArray(ruleArb, { maxLength: 12, selector: (r) => `${r.id}/${r.version}` });
const coursesArb = fc
  .uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: POOL.length })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc
          .record({ grade: fc.option(gradeArb, { nil: null }), completedOn: fc.option(dateArb, { nil: null }) })
          .map((fields) => course(id, fields)),
      ),
    ),
  );
const asOfArb = fc.option(dateArb, { nil: null });

const MET = new Set(["equivalent", "elective", "general_education", "no_credit"]);

describe("transfer evaluation: properties", () => {
  it("the same input gives the same answer, whatever the order of the rules", () => {
    fc.assert(
      fc.property(rulesArb, coursesArb, asOfArb, (rules, courses, asOf) => {
        const first = evaluate(rules, courses, { asOf });
        expect(evaluate(rules, courses, { asOf })).to.deep.equal(first);
        expect(evaluate([...rules].reverse(), courses, { asOf })).to.deep.equal(first);
      }),
    );
  });

  it("adding an unrelated rule (no input course among its sources, or another target) changes no result", () => {
    const unrelatedArb = fc.oneof(
      ruleArb.map((r) => ({ ...r, id: `eq_other_${r.id}`, sourceCourseIds: ["z_not_given"] })),
      ruleArb.map((r) => ({ ...r, id: `eq_other_${r.id}`, targetInstitutionId: "inst_elsewhere" })),
    );
    fc.assert(
      fc.property(rulesArb, coursesArb, asOfArb, unrelatedArb, (rules, courses, asOf, unrelated) => {
        const before = evaluate(rules, courses, { asOf });
        expect(evaluate([...rules, unrelated], courses, { asOf })).to.deep.equal(before);
      }),
    );
  });

  it("a higher grade never turns a course's met outcome into condition_not_met or no_rule", () => {
    fc.assert(
      fc.property(rulesArb, coursesArb, asOfArb, fc.nat(), fc.nat(), (rules, courses, asOf, pick, steps) => {
        const index = pick % courses.length;
        const before = evaluate(rules, courses, { asOf }).results[index];
        const grade = courses[index].grade;
        fc.pre(MET.has(before.outcome) && grade !== null && grade !== undefined);
        const rank = GRADE_ORDER.indexOf(grade as (typeof GRADE_ORDER)[number]);
        const raised = GRADE_ORDER[rank - (steps % (rank + 1))];
        const changed = courses.map((c, i) => (i === index ? { ...c, grade: raised } : c));
        expect(MET.has(evaluate(rules, changed, { asOf }).results[index].outcome)).to.equal(true);
      }),
    );
  });

  it("no input course is counted by two rules, and a rule applies to all its courses or none", () => {
    fc.assert(
      fc.property(rulesArb, coursesArb, asOfArb, (rules, courses, asOf) => {
        const { results, totals } = evaluate(rules, courses, { asOf });
        const applied = results.filter((result) => result.equivalencyId !== null);
        for (const result of applied) {
          expect(result.combinedWith).to.include(result.courseId);
          for (const other of result.combinedWith) {
            const partner = results.find((candidate) => candidate.courseId === other);
            expect(partner?.equivalencyId).to.equal(result.equivalencyId);
            expect(partner?.equivalencyVersion).to.equal(result.equivalencyVersion);
          }
        }
        expect(new Set(results.map((result) => result.courseId)).size).to.equal(courses.length);
        expect(totals.matchedCourses + totals.unmatchedCourses).to.equal(courses.length);
      }),
    );
  });
});
