// The parts of an articulation rule that need no database (src/services/rules/model.ts): its source
// set, date overlap, sameness of outcomes (ambiguous or duplicate), its identity key, and credit
// unit conversion, as ../shared decisions "Articulation rules and evaluation" define them.
import { expect } from "chai";
import {
  convertCredits,
  datesOverlap,
  defaultAwardedCredits,
  type CourseCredits,
  ruleKey,
  sameOutcome,
  sourceSetKey,
  type RuleOutcome,
} from "../../src/services/rules/model.ts";
import { overlapGroup } from "../../src/services/rules/overlaps.ts";
import type { Equivalency } from "../../generated/prisma/client.ts";

const outcome = (fields: Partial<RuleOutcome> = {}): RuleOutcome => ({
  kind: "equivalent",
  generalEducationArea: null,
  targets: [{ courseId: "crs_4a", code: "CHEM 4A", credits: null }],
  minimumGrade: "C",
  awardedCredits: 3.33,
  ...fields,
});

describe("rules: source sets and dates", () => {
  it("a source set is the same courses in any order, each once", () => {
    expect(sourceSetKey(["crs_b", "crs_a"])).to.equal(sourceSetKey(["crs_a", "crs_b"]));
    expect(sourceSetKey(["crs_a", "crs_a"])).to.equal("crs_a");
    expect(sourceSetKey(["crs_a"])).to.not.equal(sourceSetKey(["crs_a", "crs_b"]));
  });

  it("date ranges overlap when they share a day (inclusive); null is open", () => {
    const range = (effectiveFrom: string | null, effectiveUntil: string | null) => ({ effectiveFrom, effectiveUntil });
    expect(datesOverlap(range(null, null), range("2024-08-15", null))).to.equal(true);
    expect(datesOverlap(range(null, "2024-08-15"), range("2024-08-15", null))).to.equal(true);
    expect(datesOverlap(range(null, "2024-08-14"), range("2024-08-15", null))).to.equal(false);
    expect(datesOverlap(range("2025-01-01", "2025-12-31"), range("2024-01-01", "2024-12-31"))).to.equal(false);
    expect(datesOverlap(range("2025-01-01", "2025-12-31"), range("2025-06-01", "2026-01-01"))).to.equal(true);
  });
});

describe("rules: ambiguous or duplicate outcomes", () => {
  it("the same kind, area, targets (as a set, with credits), minimum grade and awarded credits are the same outcome", () => {
    expect(sameOutcome(outcome(), outcome())).to.equal(true);
    const two = [
      { courseId: "crs_4a", code: "CHEM 4A", credits: null },
      { courseId: null, code: "chem  1xx", credits: 1 },
    ];
    const reversed = [
      { courseId: null, code: "CHEM 1XX", credits: 1 },
      { courseId: "crs_4a", code: "CHEM 4A", credits: null },
    ];
    expect(sameOutcome(outcome({ targets: two }), outcome({ targets: reversed }))).to.equal(true);
  });

  it("a different kind, area, target, target credit, grade or awarded credits is a different outcome", () => {
    const differences: Partial<RuleOutcome>[] = [
      { kind: "elective" },
      { kind: "general_education", generalEducationArea: "IGETC 5A" },
      { targets: [{ courseId: "crs_4b", code: "CHEM 4B", credits: null }] },
      { targets: [{ courseId: "crs_4a", code: "CHEM 4A", credits: 3 }] },
      { minimumGrade: "C-" },
      { minimumGrade: null },
      { awardedCredits: 3 },
      { targets: [] },
    ];
    for (const difference of differences)
      expect(sameOutcome(outcome(), outcome(difference)), JSON.stringify(difference)).to.equal(false);
  });

  it("an overlap group keeps the rules that overlap another and says whether their outcomes differ", () => {
    const rule = (id: string, fields: Partial<Equivalency>) =>
      ({ id, ...outcome(), effectiveFrom: null, effectiveUntil: null, ...fields }) as Equivalency;
    const day = (date: string) => new Date(`${date}T00:00:00Z`);
    const duplicates = overlapGroup([rule("a", {}), rule("b", {}), rule("c", { effectiveUntil: day("2020-01-01") })]);
    expect(duplicates.ambiguous).to.equal(false);
    expect(duplicates.members.map((r) => r.id)).to.deep.equal(["a", "b", "c"]);
    const apart = overlapGroup([
      rule("a", { effectiveUntil: day("2023-12-31") }),
      rule("b", { effectiveFrom: day("2024-01-01"), kind: "elective" }),
    ]);
    expect(apart.members).to.deep.equal([]);
    const ambiguous = overlapGroup([rule("a", {}), rule("b", { minimumGrade: "B" })]);
    expect(ambiguous).to.deep.include({ ambiguous: true });
  });
});

describe("rules: identity key", () => {
  it("a 1.0 equivalency keeps its 1.0 key; sources, more targets, kind and start date extend it", () => {
    const base = {
      sourceCourseIds: ["crs_a"],
      targets: [{ courseId: "crs_t", code: "T 1", credits: null }],
      kind: "equivalent" as const,
      generalEducationArea: null,
      effectiveFrom: null,
    };
    expect(ruleKey(base)).to.equal("course:crs_t");
    expect(ruleKey({ ...base, targets: [{ courseId: null, code: "math  1a", credits: null }] })).to.equal(
      "code:MATH 1A",
    );
    expect(ruleKey({ ...base, targets: [] })).to.equal("none");
    expect(ruleKey({ ...base, sourceCourseIds: ["crs_b", "crs_a"] })).to.equal(
      ruleKey({ ...base, sourceCourseIds: ["crs_a", "crs_b"] }),
    );
    expect(
      ruleKey({ ...base, kind: "general_education", generalEducationArea: "igetc 5a", effectiveFrom: "2024-08-15" }),
    ).to.equal("course:crs_t|kind:general_education:IGETC 5A|from:2024-08-15");
  });

  it("alternatives and a one_of choice make another rule; the same alternatives in any order the same one", () => {
    const base = {
      sourceCourseIds: ["crs_7"],
      sourceCourseSets: [["crs_7"]],
      targets: [
        { courseId: "crs_1a", code: null, credits: null },
        { courseId: "crs_16a", code: null, credits: null },
      ],
      kind: "equivalent" as const,
      generalEducationArea: null,
      effectiveFrom: null,
    };
    const plain = ruleKey(base);
    expect(plain).to.equal("course:crs_1a|tgt:course:crs_16a");
    expect(ruleKey({ ...base, targetChoice: "all" })).to.equal(plain);
    expect(ruleKey({ ...base, targetChoice: "one_of" })).to.equal("course:crs_1a|tgt:course:crs_16a|choice:one_of");
    const either = ruleKey({ ...base, sourceCourseSets: [["crs_7"], ["crs_7h"], ["crs_7hh", "crs_lab"]] });
    expect(either).to.equal("course:crs_1a|alt:crs_7h;crs_7hh,crs_lab|tgt:course:crs_16a");
    expect(ruleKey({ ...base, sourceCourseSets: [["crs_7"], ["crs_lab", "crs_7hh"], ["crs_7h"]] })).to.equal(either);
  });
});

describe("rules: credit units", () => {
  it("quarter × 2/3 = semester and semester × 1.5 = quarter, rounded to two decimals", () => {
    expect(convertCredits(5, "quarter", "semester")).to.deep.equal({ credits: 3.33, unit: "semester" });
    expect(convertCredits(4, "quarter", "semester")).to.deep.equal({ credits: 2.67, unit: "semester" });
    expect(convertCredits(3, "semester", "quarter")).to.deep.equal({ credits: 4.5, unit: "quarter" });
    expect(convertCredits(3.333, "semester", "semester")).to.deep.equal({ credits: 3.33, unit: "semester" });
  });

  it("clock hours and CEUs are not converted: the value keeps its unit", () => {
    expect(convertCredits(45, "clock_hour", "semester")).to.deep.equal({ credits: 45, unit: "clock_hour" });
    expect(convertCredits(3, "semester", "ceu")).to.deep.equal({ credits: 3, unit: "semester" });
  });

  it("awarded credits default to the targets' credits, else (no target course known) the sources' converted sum; no_credit awards none", () => {
    const quarter = [
      { credits: 4, creditUnit: "quarter" as const },
      { credits: 1, creditUnit: "quarter" as const },
    ];
    const none = [{ courseId: "crs_t", code: "CHEM 4A", credits: null }];
    expect(defaultAwardedCredits("equivalent", quarter, none, "semester")).to.deep.equal({
      awardedCredits: 3.33,
      awardedCreditUnit: "semester",
    });
    expect(
      defaultAwardedCredits("elective", quarter, [{ courseId: null, code: "CHEM 1XX", credits: 3 }], "semester"),
    ).to.deep.equal({ awardedCredits: 3, awardedCreditUnit: "semester" });
    expect(defaultAwardedCredits("no_credit", quarter, [], "semester")).to.deep.equal({
      awardedCredits: null,
      awardedCreditUnit: null,
    });
    const mixed = [...quarter, { credits: 30, creditUnit: "clock_hour" as const }];
    expect(defaultAwardedCredits("equivalent", mixed, none, "semester")).to.deep.equal({
      awardedCredits: null,
      awardedCreditUnit: null,
    });
    const hours = [{ credits: 30, creditUnit: "clock_hour" as const }];
    expect(defaultAwardedCredits("equivalent", hours, none, "semester")).to.deep.equal({
      awardedCredits: 30,
      awardedCreditUnit: "clock_hour",
    });
  });

  it("without targets[].credits, a target course's own credits are awarded (converted to the target unit), not the sources' sum", () => {
    const quarter = [
      { credits: 4, creditUnit: "quarter" as const },
      { credits: 1, creditUnit: "quarter" as const },
    ];
    const chem4a = new Map<string, CourseCredits>([["crs_t", { credits: 4, creditUnit: "semester" }]]);
    const target = [{ courseId: "crs_t", code: "CHEM 4A", credits: null }];
    expect(defaultAwardedCredits("equivalent", quarter, target, "semester", chem4a)).to.deep.equal({
      awardedCredits: 4,
      awardedCreditUnit: "semester",
    });
    // A second target course counted in quarter units is converted to the first's semester units.
    const two = new Map<string, CourseCredits>([...chem4a, ["crs_q", { credits: 3, creditUnit: "quarter" }]]);
    const targets = [...target, { courseId: "crs_q", code: "CHEM 4L", credits: null }];
    expect(defaultAwardedCredits("equivalent", quarter, targets, "semester", two)).to.deep.equal({
      awardedCredits: 6,
      awardedCreditUnit: "semester",
    });
    // Credits given for a target win over its course's own.
    const given = [{ courseId: "crs_t", code: "CHEM 4A", credits: 5 }];
    expect(defaultAwardedCredits("equivalent", quarter, given, "semester", chem4a)).to.deep.equal({
      awardedCredits: 5,
      awardedCreditUnit: "semester",
    });
  });
});
