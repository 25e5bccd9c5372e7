// What an evaluation reads (src/repositories/transfer-evaluations.ts), on the suite's database
// (PGlite, or PostgreSQL with SVC_TEST_DATABASE_URL): the institutions and courses it names, and
// the target institution's accepted candidate rules with the codes and titles of the courses they
// name and the institution's credit unit, through the driver (`read`) and through Prisma alike.
import { expect } from "chai";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { storeRule, type StoredRuleFields } from "../helpers/fixtures.ts";
import {
  createTransferEvaluationsRepository,
  type TransferEvaluationsRepository,
} from "../../src/repositories/transfer-evaluations.ts";

const SMC = "inst_smc";
const UCB = "inst_ucb";
const UCLA = "inst_ucla";

describe("transfer evaluations repository", () => {
  let database: TestDatabase;

  function rule(fields: Omit<StoredRuleFields, "targetInstitutionId"> & { targetInstitutionId?: string }) {
    return storeRule(database.prisma, { targetInstitutionId: UCB, ...fields });
  }

  before(async () => {
    database = await freshDatabase();
    const place = { city: "Los Angeles", state: "CA", type: "four_year_public", source: "direct" } as const;
    await database.prisma.institution.createMany({
      data: [
        { environment: "live", id: SMC, ipedsId: "122977", name: "Santa Monica College", ...place },
        { environment: "live", id: UCB, ipedsId: "110635", name: "UC Berkeley", ...place },
        { environment: "live", id: UCLA, ipedsId: "110662", name: "UCLA", ...place },
        { environment: "sandbox", id: "inst_sandbox", ipedsId: "110635", name: "UC Berkeley", ...place },
      ],
    });
    const course = (id: string, institutionId: string, code: string, creditUnit = "semester") => ({
      id,
      environment: "live" as const,
      institutionId,
      code,
      codeKey: code,
      title: `Title of ${code}`,
      credits: 4,
      level: "lower" as const,
      creditUnit: creditUnit as "semester" | "quarter",
    });
    await database.prisma.course.createMany({
      data: [
        course("crs_bio", SMC, "BIO 101"),
        course("crs_chem", SMC, "CHEM 1A"),
        course("crs_lab", SMC, "CHEM 1AL"),
        course("crs_hist", SMC, "HIST 11"),
        course("crs_chem4a", UCB, "CHEM 4A", "quarter"),
        course("crs_chem4b", UCB, "CHEM 4B", "quarter"),
        course("crs_bio1a", UCB, "BIO 1A"),
        course("crs_ucla", UCLA, "CHEM 14A"),
        course("crs_ucla2", UCLA, "CHEM 14B", "quarter"),
      ],
    });
  });
  after(() => database.close());

  for (const via of ["the driver", "Prisma"] as const) {
    describe(`through ${via}`, () => {
      let reads: TransferEvaluationsRepository;
      before(() => {
        reads = createTransferEvaluationsRepository(
          database.prisma,
          via === "the driver" ? database.statement.bind(database) : undefined,
        );
      });

      it("subjects: the institutions that exist, and the courses asked by id or by code, once each", async () => {
        const subjects = await reads.subjects(
          "live",
          [UCB, SMC, "inst_nowhere"],
          ["crs_bio", "crs_chem", "crs_none"],
          [
            { institutionId: SMC, codeKey: "CHEM 1A" },
            { institutionId: SMC, codeKey: "CHEM 1AL" },
            { institutionId: UCLA, codeKey: "CHEM 1AL" },
          ],
        );
        expect([...subjects.institutions.keys()].sort()).to.deep.equal([SMC, UCB]);
        expect(subjects.codes.get(`${SMC}\nCHEM 1AL`)).to.equal("crs_lab");
        expect(subjects.codes.has(`${UCLA}\nCHEM 1AL`)).to.equal(false);
        const courses = [...subjects.courses].sort((a, b) => a.id.localeCompare(b.id));
        expect(courses.map((row) => row.id)).to.deep.equal(["crs_bio", "crs_chem", "crs_lab"]);
        expect(courses[2]).to.deep.equal({
          id: "crs_lab",
          institutionId: SMC,
          code: "CHEM 1AL",
          codeKey: "CHEM 1AL",
          title: "Title of CHEM 1AL",
          credits: 4,
          creditUnit: "semester",
        });
        const sandbox = await reads.subjects("sandbox", [UCB, "inst_sandbox"], ["crs_bio"], []);
        expect([...sandbox.institutions.keys()]).to.deep.equal(["inst_sandbox"]);
        expect(sandbox.courses).to.deep.equal([]);
      });
    });
  }

  describe("candidates, on both paths", () => {
    before(async () => {
      await rule({
        id: "eq_pair",
        sourceCourseIds: ["crs_chem", "crs_lab"],
        targets: [
          { courseId: "crs_chem4a", code: "CHEM 4A", credits: 4 },
          { courseId: "crs_chem4b", code: "CHEM 4B", credits: 4 },
          { courseId: null, code: "CHEM 1XX", credits: 1 },
        ],
        minimumGrade: "C",
        priority: 2,
        awardedCredits: 5.5,
        awardedCreditUnit: "quarter",
        generalEducationArea: "5A",
      });
      await rule({
        id: "eq_expired",
        sourceCourseIds: ["crs_bio"],
        targets: [{ courseId: "crs_bio1a", code: "BIO 1A", credits: 4 }],
        effectiveFrom: new Date("2019-08-15"),
        effectiveUntil: new Date("2021-05-31"),
        kind: "elective",
      });
      await rule({ id: "eq_needs_hist", sourceCourseIds: ["crs_bio", "crs_hist"] });
      await rule({ id: "eq_pending", sourceCourseIds: ["crs_bio"], status: "pending" });
      await rule({ id: "eq_rejected", sourceCourseIds: ["crs_chem"], status: "conflict" });
      await rule({ id: "eq_other_target", sourceCourseIds: ["crs_bio"], targetInstitutionId: UCLA });
      await rule({ id: "eq_unrelated", sourceCourseIds: ["crs_hist"] });
      // Found through its second set; the codes of every set are named.
      await rule({
        id: "eq_alt",
        sourceCourseIds: ["crs_hist"],
        sourceCourseSets: [["crs_hist"], ["crs_lab"]],
        targetChoice: "one_of",
        targets: [
          { courseId: "crs_chem4a", code: "CHEM 4A", credits: 4 },
          { courseId: "crs_chem4b", code: "CHEM 4B", credits: 3 },
        ],
      });
    });

    for (const via of ["the driver", "Prisma"] as const) {
      it(`through ${via}: the accepted rules of the target naming any course, whatever their dates, with every source and target`, async () => {
        const reads = createTransferEvaluationsRepository(
          database.prisma,
          via === "the driver" ? database.statement.bind(database) : undefined,
        );
        const found = await reads.candidates("live", UCB, ["crs_bio", "crs_lab"]);
        expect(found.rules.map((row) => row.id)).to.deep.equal(["eq_alt", "eq_expired", "eq_needs_hist", "eq_pair"]);
        const [alternative, expired, needsHistory, pair] = found.rules;
        expect(alternative).to.deep.include({
          sourceCourseIds: ["crs_hist"],
          sourceCourseSets: [["crs_hist"], ["crs_lab"]],
          targetChoice: "one_of",
          sourceCodes: { crs_hist: "HIST 11", crs_lab: "CHEM 1AL" },
        });
        expect(pair).to.deep.equal({
          id: "eq_pair",
          version: 1,
          targetInstitutionId: UCB,
          status: "accepted",
          sourceCourseIds: ["crs_chem", "crs_lab"],
          sourceCourseSets: [["crs_chem", "crs_lab"]],
          kind: "equivalent",
          targetChoice: "all",
          targets: [
            { courseId: "crs_chem4a", code: "CHEM 4A", credits: 4 },
            { courseId: "crs_chem4b", code: "CHEM 4B", credits: 4 },
            { courseId: null, code: "CHEM 1XX", credits: 1 },
          ],
          generalEducationArea: "5A",
          minimumGrade: "C",
          effectiveFrom: null,
          effectiveUntil: null,
          priority: 2,
          awardedCredits: 5.5,
          awardedCreditUnit: "quarter",
          sourceCodes: { crs_chem: "CHEM 1A", crs_lab: "CHEM 1AL" },
          targetTitles: { crs_chem4a: "Title of CHEM 4A", crs_chem4b: "Title of CHEM 4B" },
        });
        expect([expired.effectiveFrom, expired.effectiveUntil, expired.kind]).to.deep.equal([
          "2019-08-15",
          "2021-05-31",
          "elective",
        ]);
        expect(expired.targetTitles).to.deep.equal({ crs_bio1a: "Title of BIO 1A" });
        expect(needsHistory.sourceCodes).to.deep.equal({ crs_bio: "BIO 101", crs_hist: "HIST 11" });
        expect(needsHistory.targetTitles).to.equal(null);
        expect(found.creditUnit).to.equal("quarter");
      });
    }

    it("the rules waiting in conflict that name a course come too, with their status", async () => {
      const reads = createTransferEvaluationsRepository(database.prisma, database.statement.bind(database));
      const found = await reads.candidates("live", UCB, ["crs_chem"]);
      expect(found.rules.map((row) => [row.id, row.status])).to.deep.equal([
        ["eq_pair", "accepted"],
        ["eq_rejected", "conflict"],
      ]);
    });

    it("no candidates for courses no accepted rule of the target names, or in another environment", async () => {
      const reads = createTransferEvaluationsRepository(database.prisma, database.statement.bind(database));
      expect((await reads.candidates("live", UCB, ["crs_ucla", "crs_none"])).rules).to.deep.equal([]);
      expect((await reads.candidates("sandbox", UCB, ["crs_bio", "crs_chem"])).rules).to.deep.equal([]);
      const other = await reads.candidates("live", UCLA, ["crs_bio", "crs_chem"]);
      expect(other.rules.map((row) => row.id)).to.deep.equal(["eq_other_target"]);
    });

    it("the credit unit: the one most of the target's courses count in, the enum's first on a tie, null without courses", async () => {
      const reads = createTransferEvaluationsRepository(database.prisma, database.statement.bind(database));
      expect((await reads.candidates("live", UCLA, [])).creditUnit).to.equal("semester");
      expect((await reads.candidates("live", "inst_nowhere", ["crs_bio"])).creditUnit).to.equal(null);
    });

    it("a rule stops being a candidate when it leaves accepted and conflict, and becomes one when accepted", async () => {
      const reads = createTransferEvaluationsRepository(database.prisma, database.statement.bind(database));
      await database.prisma.equivalency.update({ where: { id: "eq_needs_hist" }, data: { status: "pending" } });
      await database.prisma.equivalency.update({ where: { id: "eq_pending" }, data: { status: "accepted" } });
      const found = await reads.candidates("live", UCB, ["crs_bio"]);
      expect(found.rules.map((row) => row.id)).to.deep.equal(["eq_expired", "eq_pending"]);
    });
  });
});
