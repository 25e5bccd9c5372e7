// importEquivalencies reads agreements as colleges publish them: alternatives ("MATH 7 or
// MATH 7H", "(BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415)"), a choice of targets ("MATH 7 gives
// MATH 1A or MATH 16A"), a cross-listed target ("COMPSCI C8 = DATA C8"); each read back through
// the API. A dry run decides as the import does, rows above included, in the import's words, with
// the same counts. On the database the suite runs on (PGlite, or PostgreSQL with
// SVC_TEST_DATABASE_URL).
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";

const course = (institutionId: string, code: string, credits = 4, crossListedCodes?: string[]) => ({
  institutionId,
  code,
  title: `Course ${code}`,
  credits,
  level: "lower",
  ...(crossListedCodes ? { crossListedCodes } : {}),
});

describe("rules: importEquivalencies of agreements as published", () => {
  let t: TestApp;
  let ids: Record<string, string>;
  const upload = (csv: string, query = "") =>
    t.http
      .post(`/api/v1/equivalencies/imports${query}`)
      .set(bearer(t.keys.live))
      .set("Content-Type", "text/csv")
      .send(csv);
  const ruleOf = async (sourceCode: string, targetCode: string) => {
    const list = await t.http
      .get(`/api/v1/equivalencies?sourceCourse=${ids[`${SMC} ${sourceCode}`]}&limit=100`)
      .set(bearer(t.keys.live));
    await expectContract(list, 200);
    const found = list.body.data.filter((rule: { targets: { courseId: string | null }[] }) =>
      rule.targets.some((target) => target.courseId === ids[`${BERKELEY} ${targetCode}`]),
    );
    expect(found, `${sourceCode} → ${targetCode}`).to.have.length(1);
    const one = await t.http.get(`/api/v1/equivalencies/${found[0].id}`).set(bearer(t.keys.live));
    await expectContract(one, 200);
    return one.body.data;
  };

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const courses = [
      ...["MATH 7", "MATH 7H", "BIOL 400", "BIOL 410", "BIOL 415", "CIS 8", "ANTH 1", "ANTH 1H"].map((code) =>
        course(SMC, code),
      ),
      course(BERKELEY, "MATH 1A"),
      course(BERKELEY, "MATH 16A", 3),
      course(BERKELEY, "BIOL 1A", 3),
      course(BERKELEY, "BIOL 1AL", 1),
      course(BERKELEY, "COMPSCI C8", 4, ["DATA C8", "STAT C8"]),
      course(BERKELEY, "ANTHRO 1"),
      course(BERKELEY, "ANTHRO 2"),
    ];
    const response = await t.http.post("/api/v1/courses").set(bearer(t.keys.live)).send(courses);
    await expectContract(response, 201);
    ids = Object.fromEntries(
      response.body.data.map((r: { institutionId: string; code: string; id: string }) => [
        `${r.institutionId} ${r.code}`,
        r.id,
      ]),
    );
  });
  after(() => t.close());

  it("each published form is imported and read back through the API: alternatives, sets of several courses, a choice of targets, a cross-listed target", async () => {
    const csv = [
      "source_institution,source_courses,source_course_1,target_institution,target_courses,target_course_1,target_choice,status",
      `${SMC},MATH 7 or MATH 7H,,${BERKELEY},,MATH 1A,,pending`,
      `${SMC},(BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415),,${BERKELEY},BIOL 1A + BIOL 1AL,,,pending`,
      `${SMC},,MATH 7,${BERKELEY},MATH 1A or MATH 16A,,,pending`,
      `${SMC},,CIS 8,${BERKELEY},,COMPSCI C8 = DATA C8,,pending`,
      `${SMC},,ANTH 1,${BERKELEY},,ANTHRO 1,one_of,pending`,
    ].join("\n");
    const dry = await upload(csv, "?dryRun=true");
    await expectContract(dry, 200);
    const imported = await upload(csv);
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.equal({
      received: 5,
      created: 4,
      updated: 0,
      unchanged: 0,
      conflict: 0,
      rejected: 1,
    });
    expect(dry.body.summary).to.deep.equal(imported.body.summary);
    expect(imported.body.issues).to.have.length(1);
    expect(imported.body.issues[0]).to.deep.include({ row: 5, column: "target_choice" });

    const id = (code: string, institution = SMC) => ids[`${institution} ${code}`];
    const alternatives = await ruleOf("MATH 7H", "MATH 1A");
    expect(alternatives.sourceCourseSets).to.deep.equal([[id("MATH 7")], [id("MATH 7H")]]);
    expect(alternatives.sourceCourseIds).to.deep.equal([id("MATH 7")]);
    const labs = await ruleOf("BIOL 415", "BIOL 1A");
    expect(labs.sourceCourseSets).to.deep.equal([
      [id("BIOL 400"), id("BIOL 410")],
      [id("BIOL 400"), id("BIOL 415")],
    ]);
    expect(labs.targetChoice).to.equal("all");
    expect(labs.targets.map((target: { courseId: string }) => target.courseId)).to.deep.equal([
      id("BIOL 1A", BERKELEY),
      id("BIOL 1AL", BERKELEY),
    ]);
    const choice = await ruleOf("MATH 7", "MATH 16A");
    expect(choice.targetChoice).to.equal("one_of");
    expect(choice.sourceCourseSets).to.deep.equal([[id("MATH 7")]]);
    expect(choice.targets.map((target: { courseId: string }) => target.courseId)).to.deep.equal([
      id("MATH 1A", BERKELEY),
      id("MATH 16A", BERKELEY),
    ]);
    const crossListed = await ruleOf("CIS 8", "COMPSCI C8");
    expect(crossListed.targets).to.have.length(1);

    // The same file again changes nothing.
    const again = await upload(csv);
    await expectContract(again, 200);
    expect(again.body.summary).to.deep.include({ created: 0, unchanged: 4, rejected: 1 });
  });

  it("a dry run finds contradictions between rows of the file, says 'would be stored as conflict', and counts what the import then counts", async () => {
    const csv = [
      "source_institution,source_courses,target_institution,target_course_1,status",
      `${SMC},ANTH 1 or ANTH 1H,${BERKELEY},ANTHRO 1,accepted`,
      `${SMC},ANTH 1H,${BERKELEY},ANTHRO 2,accepted`,
      `${SMC},ANTH 1H,${BERKELEY},ANTHRO 1,accepted`,
    ].join("\n");
    const before = await t.database.prisma.equivalency.count();
    const dry = await upload(csv, "?dryRun=true");
    await expectContract(dry, 200);
    expect(await t.database.prisma.equivalency.count()).to.equal(before);
    const imported = await upload(csv);
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.equal({
      received: 3,
      created: 1,
      updated: 0,
      unchanged: 0,
      conflict: 2,
      rejected: 0,
    });
    expect(dry.body.summary).to.deep.equal(imported.body.summary);
    const words = (body: { issues: { row: number; message: string }[] }) =>
      body.issues.map((issue) => [issue.row, issue.message.replace(/eq_\w+/g, "eq")]);
    expect(words(dry.body)).to.deep.equal([
      [2, "ambiguous with the accepted rule of row 1 (eq): would be stored as conflict"],
      [3, "a duplicate of the accepted rule of row 1 (eq): would be stored as conflict"],
    ]);
    expect(words(imported.body)).to.deep.equal([
      [2, "ambiguous with the accepted rule of row 1 (eq): stored as conflict"],
      [3, "a duplicate of the accepted rule of row 1 (eq): stored as conflict"],
    ]);
  });

  it("a rule restated in the file with an alternative, or with its targets as a choice, is told as another rule, not merged into the first", async () => {
    const csv = [
      "source_institution,source_courses,target_institution,target_courses,status",
      `${SMC},CIS 8,${BERKELEY},MATH 16A,accepted`,
      `${SMC},CIS 8 or BIOL 415,${BERKELEY},MATH 16A,accepted`,
      `${SMC},BIOL 410,${BERKELEY},MATH 1A + MATH 16A,accepted`,
      `${SMC},BIOL 410,${BERKELEY},MATH 1A or MATH 16A,accepted`,
    ].join("\n");
    const dry = await upload(csv, "?dryRun=true");
    await expectContract(dry, 200);
    const imported = await upload(csv);
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.equal({
      received: 4,
      created: 2,
      updated: 0,
      unchanged: 0,
      conflict: 2,
      rejected: 0,
    });
    expect(dry.body.summary).to.deep.equal(imported.body.summary);
    expect(
      imported.body.issues.map((issue: { row: number; message: string }) => [
        issue.row,
        issue.message.replace(/eq_\w+/g, "eq"),
      ]),
    ).to.deep.equal([
      [2, "a duplicate of the accepted rule of row 1 (eq): stored as conflict"],
      [4, "ambiguous with the accepted rule of row 3 (eq): stored as conflict"],
    ]);
    const choice = await ruleOf("BIOL 410", "MATH 1A").catch(() => null);
    expect(choice, "two rules of BIOL 410 to MATH 1A, not one").to.equal(null);
    const list = await t.http
      .get(`/api/v1/equivalencies?sourceCourse=${ids[`${SMC} BIOL 410`]}&status=conflict`)
      .set(bearer(t.keys.live));
    await expectContract(list, 200);
    expect(list.body.data.map((rule: { targetChoice: string }) => rule.targetChoice)).to.deep.equal(["one_of"]);
  });
});
