// The explorer's agreement and evaluation wording as pure functions: rules with alternatives
// (sourceCourseSets), a choice of targets (targetChoice) and cross-listed codes, where the rules'
// model has them, and the same rules read as one set, `all` targets and no further codes where
// it has not; reasons without ids; a trailing state word in the institution search.
import { expect } from "chai";
import { agreementRules, type CourseRecord, type RuleRecord } from "../../src/services/explorer-agreement.ts";
import { reasonInWords } from "../../src/services/explorer-evaluation.ts";
import { institutionIdOf, institutionQuery } from "../../src/services/explorer.ts";

const course = (id: string, code: string, extra: Partial<CourseRecord> = {}): CourseRecord => ({
  id,
  code,
  title: `${code} title`,
  credits: 4,
  creditUnit: "semester",
  ...extra,
});

const rule = (
  fields: Partial<RuleRecord> & Pick<RuleRecord, "id" | "sourceCourseIds" | "sourceCourses">,
): RuleRecord => ({
  version: 1,
  kind: "equivalent",
  targets: [],
  generalEducationArea: null,
  minimumGrade: null,
  effectiveFrom: null,
  effectiveUntil: null,
  awardedCredits: null,
  awardedCreditUnit: null,
  decidedBy: null,
  decidedAt: null,
  policyBasis: null,
  ...fields,
});

describe("the explorer's agreement (getExplorerAgreement) and wording (createExplorerTransferEvaluation)", () => {
  it("names every set of alternatives, a choice of targets and cross-listed codes, fetching the courses it lacks", async () => {
    const math7 = course("c7", "MATH 7");
    const asked: string[][] = [];
    const rules = await agreementRules(
      [
        rule({
          id: "r1",
          sourceCourseIds: ["c7"],
          sourceCourses: [math7],
          sourceCourseSets: [["c7"], ["c7h"]],
          targets: [
            { courseId: "t1", code: "MATH 1A", credits: null },
            { courseId: null, code: "MATH 16A", credits: 3 },
          ],
          targetChoice: "one_of",
        }),
      ],
      async (ids) => {
        asked.push(ids);
        return [course("c7h", "MATH 7H", { crossListedCodes: ["HON 7"] }), course("t1", "MATH 1A", { credits: 4 })];
      },
    );
    expect(asked).to.deep.equal([["c7h", "t1"]]);
    const [only] = rules;
    expect(only.sourceCourseSets.map((set) => set.map((c) => c.code))).to.deep.equal([["MATH 7"], ["MATH 7H"]]);
    expect(only.sourceCourseSets[1][0].crossListedCodes).to.deep.equal(["HON 7"]);
    expect(only.sourceCourses.map((c) => c.code)).to.deep.equal(["MATH 7"]);
    expect(only.targetChoice).to.equal("one_of");
    expect(only.targets).to.deep.equal([
      { courseId: "t1", code: "MATH 1A", title: "MATH 1A title", credits: 4, creditUnit: "semester" },
      { courseId: null, code: "MATH 16A", title: null, credits: 3, creditUnit: null },
    ]);
  });

  it("reads a rule of the model without alternatives as one set, all targets, no further codes; orders by target code", async () => {
    const rules = await agreementRules(
      [
        rule({ id: "b", sourceCourseIds: ["c2"], sourceCourses: [course("c2", "ART 2")], kind: "no_credit" }),
        rule({
          id: "a",
          sourceCourseIds: ["c1", "c3"],
          sourceCourses: [course("c1", "CHEM 1A"), course("c3", "CHEM 1AL")],
          targets: [{ courseId: null, code: "CHEM 4A", credits: 4 }],
        }),
      ],
      async () => [],
    );
    expect(rules.map((r) => r.id)).to.deep.equal(["a", "b"]);
    expect(rules[0].sourceCourseSets.map((set) => set.map((c) => c.code))).to.deep.equal([["CHEM 1A", "CHEM 1AL"]]);
    expect(rules[0].targetChoice).to.equal("all");
    expect(rules[0].sourceCourses[0].crossListedCodes).to.deep.equal([]);
  });

  it("words reasons without rule ids or priorities, naming the receiving institution", () => {
    expect(
      reasonInWords(
        "Rule eq_01JD5B4E5F6G7H8J9K0M1N2P3Q (version 2) applies: CHEM 1A → CHEM 4A, equivalent (priority 0, in force on 2025-06-12).",
        "UC Berkeley",
      ),
    ).to.equal("The rule applies: CHEM 1A → CHEM 4A, equivalent (in force on 2025-06-12).");
    expect(
      reasonInWords("No accepted rule of the target institution has BIO 1 among its source courses.", "UC Berkeley"),
    ).to.equal("No accepted rule of UC Berkeley has BIO 1 among its source courses.");
  });

  it("takes a trailing two-letter word of the institution search as its state, and an IPEDS unit id as an institution id", () => {
    expect(institutionQuery("berkeley ca", undefined)).to.deep.equal({ q: "berkeley", state: "ca" });
    expect(institutionQuery("de anza", undefined)).to.deep.equal({ q: "de anza" });
    expect(institutionQuery("berkeley ca", "TX")).to.deep.equal({ q: "berkeley ca", state: "TX" });
    expect(institutionIdOf("110635")).to.equal("inst_110635");
    expect(institutionIdOf("inst_110635")).to.equal("inst_110635");
  });
});
