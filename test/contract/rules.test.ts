// Articulation rules (1.1.0): several source courses and targets, kinds, grades, dates, units,
// and no ambiguity at write: createEquivalency, updateEquivalency, listEquivalencies (asOf, kind),
// getEquivalency (sourceCourses), listEquivalencyOverlaps and importEquivalencies, on the
// database the suite runs on (PGlite, or PostgreSQL with SVC_TEST_DATABASE_URL).
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions, postCourses, ruleCourses } from "../helpers/fixtures.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";
const UCLA = "inst_110662";

/** A quarter-unit lecture and lab at the source, semester courses at the targets. */
const COURSES = ruleCourses("CHEM 1A", "CHEM 1AL", "HIST 11", "CHEM 4A", "CHEM 3A", "CHEM 14A", "HIST 13A");

describe("rules: createEquivalency, getEquivalency, listEquivalencies, updateEquivalency with the 1.1 rule fields", () => {
  let t: TestApp;
  let c: Record<string, string>;
  const post = (body: object, query = "") =>
    t.http.post(`/api/v1/equivalencies${query}`).set(bearer(t.keys.live)).send(body);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    c = await postCourses(t, COURSES);
  });
  after(() => t.close());

  it("createEquivalency: CHEM 1A + CHEM 1AL with C or better, from 2024-08-15, gives CHEM 4A and awards its own 3 semester units (not the sources' 5 quarter units = 3.33); getEquivalency reads it back", async () => {
    const response = await post({
      sourceCourseIds: [c["CHEM 1A"], c["CHEM 1AL"]],
      targetInstitutionId: BERKELEY,
      targets: [{ courseId: c["CHEM 4A"] }],
      minimumGrade: "C",
      effectiveFrom: "2024-08-15",
      status: "accepted",
    });
    await expectContract(response, 201);
    const rule = response.body.data;
    expect(rule).to.deep.include({
      sourceCourseId: c["CHEM 1A"],
      sourceCourseIds: [c["CHEM 1A"], c["CHEM 1AL"]],
      targetCourseId: c["CHEM 4A"],
      targetCode: "CHEM 4A",
      targets: [{ courseId: c["CHEM 4A"], code: "CHEM 4A", credits: null }],
      kind: "equivalent",
      minimumGrade: "C",
      effectiveFrom: "2024-08-15",
      effectiveUntil: null,
      priority: 0,
      awardedCredits: 3,
      awardedCreditUnit: "semester",
    });
    expect(rule.sourceCourses.map((s: { code: string }) => s.code)).to.deep.equal(["CHEM 1A", "CHEM 1AL"]);
    expect(rule.sourceCourses[1].institution.name).to.equal("Santa Monica College");

    const read = await t.http.get(`/api/v1/equivalencies/${rule.id}`).set(bearer(t.keys.live));
    await expectContract(read, 200);
    expect(read.body.data).to.deep.include({ awardedCredits: 3, effectiveFrom: "2024-08-15", minimumGrade: "C" });
    expect(read.body.data.sourceCourses.map((s: { creditUnit: string }) => s.creditUnit)).to.deep.equal([
      "quarter",
      "quarter",
    ]);
  });

  it("createEquivalency: elective credit by code, general education with its area, and no_credit without targets", async () => {
    const elective = await post({
      sourceCourseId: c["HIST 11"],
      targetInstitutionId: BERKELEY,
      kind: "elective",
      targets: [{ code: "HISTORY 1XX", credits: 3 }],
    });
    await expectContract(elective, 201);
    expect(elective.body.data).to.deep.include({ kind: "elective", targetCode: "HISTORY 1XX", awardedCredits: 3 });

    const ge = await post({
      sourceCourseId: c["HIST 11"],
      targetInstitutionId: UCLA,
      kind: "general_education",
      generalEducationArea: "IGETC 4F",
    });
    await expectContract(ge, 201);
    expect(ge.body.data).to.deep.include({ generalEducationArea: "IGETC 4F", targets: [], awardedCredits: 3 });

    const none = await post({ sourceCourseId: c["CHEM 1AL"], targetInstitutionId: UCLA, kind: "no_credit" });
    await expectContract(none, 201);
    expect(none.body.data).to.deep.include({ kind: "no_credit", awardedCredits: null, awardedCreditUnit: null });
  });

  it("createEquivalency: 400 for a rule that does not hold together, each with its pointer", async () => {
    const cases: [object, string, string][] = [
      [{ kind: "no_credit", targets: [{ code: "X 1" }] }, "/targets", "takes no targets"],
      [{ kind: "general_education" }, "/generalEducationArea", "names its area"],
      [{ effectiveFrom: "2025-01-01", effectiveUntil: "2024-12-31" }, "/effectiveUntil", "must not be before"],
      [{ targets: [{ credits: 3 }] }, "/targets/0", "must name a courseId or a code"],
      [{ targets: [{ courseId: c["CHEM 14A"] }] }, "/targets/0/courseId", "not to the target institution"],
      [{ sourceCourseIds: [c["HIST 11"], c["HIST 11"]] }, "/sourceCourseIds/1", "listed twice"],
      [{ targetCode: "X 1", targets: [{ code: "X 1" }] }, "/targets", "not both"],
    ];
    for (const [fields, pointer, message] of cases) {
      const response = await post({ sourceCourseId: c["HIST 11"], targetInstitutionId: BERKELEY, ...fields });
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
      const error = response.body.errors.find((e: { pointer: string }) => e.pointer === pointer);
      expect(error, JSON.stringify(response.body.errors)).to.not.equal(undefined);
      expect(error.message).to.contain(message);
    }
  });

  it("listEquivalencies: asOf keeps the rules in force that day, kind filters by outcome, sourceCourse matches any source", async () => {
    const list = async (query: string) => {
      const response = await t.http
        .get(`/api/v1/equivalencies?targetInstitution=${BERKELEY}&${query}`)
        .set(bearer(t.keys.live));
      await expectContract(response, 200);
      return response.body.data.map((e: { targetCode: string | null }) => e.targetCode);
    };
    expect(await list("asOf=2024-08-14")).to.deep.equal(["HISTORY 1XX"]);
    expect(await list("asOf=2024-08-15")).to.deep.equal(["CHEM 4A", "HISTORY 1XX"]);
    expect(await list("kind=elective")).to.deep.equal(["HISTORY 1XX"]);
    expect(await list(`sourceCourse=${c["CHEM 1AL"]}`)).to.deep.equal(["CHEM 4A"]);
    const expanded = await t.http
      .get(`/api/v1/equivalencies?sourceCourse=${c["CHEM 1AL"]}&targetInstitution=${BERKELEY}&expand=course`)
      .set(bearer(t.keys.live));
    await expectContract(expanded, 200);
    expect(expanded.body.data[0].sourceCourses).to.have.length(2);
  });

  it("createEquivalency: 409 ambiguous-rule beside an accepted rule with another outcome, 409 duplicate-rule beside the same one; conflict is accepted", async () => {
    const base = {
      sourceCourseIds: [c["CHEM 1AL"], c["CHEM 1A"]],
      targetInstitutionId: BERKELEY,
      status: "accepted",
      effectiveFrom: "2025-01-01",
    };
    const existing = await t.http
      .get(`/api/v1/equivalencies?sourceCourse=${c["CHEM 1A"]}&targetInstitution=${BERKELEY}`)
      .set(bearer(t.keys.live));
    const existingId = existing.body.data[0].id;

    const ambiguous = await post({ ...base, targets: [{ courseId: c["CHEM 4A"], credits: 4 }] });
    await expectContract(ambiguous, 409);
    expectProblem(ambiguous, "ambiguous-rule");
    expect(ambiguous.body.conflictingEquivalencyIds).to.deep.equal([existingId]);

    const duplicate = await post({ ...base, targets: [{ courseId: c["CHEM 4A"] }], minimumGrade: "C" });
    await expectContract(duplicate, 409);
    expectProblem(duplicate, "duplicate-rule");
    expect(duplicate.body.conflictingEquivalencyIds).to.deep.equal([existingId]);

    const preview = await post({ ...base, targets: [{ code: "CHEM 4" }] }, "?dryRun=true");
    await expectContract(preview, 409);
    expectProblem(preview, "ambiguous-rule");

    // Another priority, dates that do not overlap, or the conflict status: no ambiguity.
    const later = await post({
      ...base,
      targets: [{ code: "CHEM 4" }],
      effectiveFrom: null,
      effectiveUntil: "2024-08-14",
    });
    await expectContract(later, 201);
    const prioritised = await post({ ...base, targets: [{ code: "CHEM 5" }], priority: 1 });
    await expectContract(prioritised, 201);
    const waiting = await post({ ...base, targets: [{ code: "CHEM 6" }], status: "conflict" });
    await expectContract(waiting, 201);

    // Accepting the waiting one later is refused the same way.
    const accept = await t.http
      .patch(`/api/v1/equivalencies/${waiting.body.data.id}`)
      .set(bearer(t.keys.live))
      .send({ status: "accepted" });
    await expectContract(accept, 409);
    expectProblem(accept, "ambiguous-rule");
  });

  it("updateEquivalency: changes the rule's fields, records them as changed and checks them", async () => {
    const created = await post({
      sourceCourseId: c["HIST 11"],
      targetInstitutionId: UCLA,
      targets: [{ courseId: c["HIST 13A"] }],
    });
    await expectContract(created, 201);
    const id = created.body.data.id;
    const changed = await t.http
      .patch(`/api/v1/equivalencies/${id}`)
      .set(bearer(t.keys.live))
      .send({
        minimumGrade: "C-",
        effectiveUntil: "2030-06-30",
        // HIST 13A's own 4 units were awarded; 5 given for the target are awarded now.
        targets: [{ courseId: c["HIST 13A"], credits: 5 }],
        awardedCredits: null,
      });
    await expectContract(changed, 200);
    expect(changed.body.data).to.deep.include({
      minimumGrade: "C-",
      effectiveUntil: "2030-06-30",
      awardedCredits: 5,
      targets: [{ courseId: c["HIST 13A"], code: "HIST 13A", credits: 5 }],
    });
    const versions = await t.http.get(`/api/v1/equivalencies/${id}/versions`).set(bearer(t.keys.live));
    await expectContract(versions, 200);
    expect(versions.body.data.versions[0].changedFields).to.have.members([
      "targets",
      "minimumGrade",
      "effectiveUntil",
      "awardedCredits",
    ]);
    const bad = await t.http.patch(`/api/v1/equivalencies/${id}`).set(bearer(t.keys.live)).send({ kind: "no_credit" });
    await expectContract(bad, 400);
    expect(bad.body.errors[0].pointer).to.equal("/targets");
  });

  it("listEquivalencyOverlaps: groups accepted rules that arrived before the check, saying whether they are ambiguous", async () => {
    // Two accepted rules written around the check, as data loaded before 1.1.0 would be.
    const now = new Date();
    const row = (id: string, targetCode: string) => ({
      id,
      environment: "live" as const,
      sourceCourseId: c["CHEM 1AL"],
      targetInstitutionId: UCLA,
      targetCode,
      targetKey: `code:${targetCode}`,
      status: "accepted" as const,
      createdAt: now,
      updatedAt: now,
    });
    await t.database.prisma.equivalency.createMany({
      data: [row("eq_overlap_1", "CHEM 1X"), row("eq_overlap_2", "CHEM 2X")],
    });
    const response = await t.http
      .get(`/api/v1/equivalencies/overlaps?targetInstitution=${UCLA}`)
      .set(bearer(t.keys.live));
    await expectContract(response, 200);
    expect(response.body.pagination).to.include({ total: 1, returned: 1 });
    const [group] = response.body.data;
    expect(group).to.deep.include({
      targetInstitutionId: UCLA,
      sourceCourseIds: [c["CHEM 1AL"]],
      priority: 0,
      ambiguous: true,
    });
    expect(group.equivalencies.map((e: { id: string }) => e.id)).to.have.members(["eq_overlap_1", "eq_overlap_2"]);
    const none = await t.http.get(`/api/v1/equivalencies/overlaps?targetInstitution=${SMC}`).set(bearer(t.keys.live));
    await expectContract(none, 200);
    expect(none.body.data).to.deep.equal([]);
  });

  it("listEquivalencyOverlaps: a rule of alternatives is in the group of each of its sets", async () => {
    // "CHEM 1A or HIST 11 → HIST 1X" and "HIST 11 → HIST 2X", both accepted before the check: they share {HIST 11}.
    const OTHER = "inst_227881";
    const now = new Date();
    const row = (id: string, sets: string[][], targetCode: string) => ({
      id,
      environment: "live" as const,
      sourceCourseId: sets[0][0],
      sourceCourseIds: sets[0],
      sourceCourseSets: sets,
      targetInstitutionId: OTHER,
      targetCode,
      targetKey: `code:${targetCode}`,
      status: "accepted" as const,
      createdAt: now,
      updatedAt: now,
    });
    await t.database.prisma.equivalency.createMany({
      data: [
        row("eq_alternatives_1", [[c["CHEM 1A"]], [c["HIST 11"]]], "HIST 1X"),
        row("eq_alternatives_2", [[c["HIST 11"]]], "HIST 2X"),
      ],
    });
    const response = await t.http
      .get(`/api/v1/equivalencies/overlaps?targetInstitution=${OTHER}`)
      .set(bearer(t.keys.live));
    await expectContract(response, 200);
    expect(response.body.pagination).to.include({ total: 1, returned: 1 });
    const [group] = response.body.data;
    expect(group).to.deep.include({ targetInstitutionId: OTHER, sourceCourseIds: [c["HIST 11"]], ambiguous: true });
    expect(group.equivalencies.map((e: { id: string }) => e.id)).to.have.members([
      "eq_alternatives_1",
      "eq_alternatives_2",
    ]);
  });

  it("createEquivalency: two concurrent writers of contradicting accepted rules, only one wins", async () => {
    const [first, second] = await Promise.all(
      ["CHEM 7", "CHEM 8"].map((code) =>
        post({
          sourceCourseIds: [c["HIST 11"], c["CHEM 1A"]],
          targetInstitutionId: UCLA,
          targets: [{ code }],
          status: "accepted",
        }),
      ),
    );
    expect([first.status, second.status].sort()).to.deep.equal([201, 409]);
    const loser = first.status === 409 ? first : second;
    const winner = first.status === 201 ? first : second;
    await expectContract(loser, 409);
    expectProblem(loser, "ambiguous-rule");
    expect(loser.body.conflictingEquivalencyIds).to.deep.equal([winner.body.data.id]);
  });
});

describe("rules: importEquivalencies (POST /equivalencies/imports)", () => {
  let t: TestApp;
  const upload = (csv: string, query = "") =>
    t.http
      .post(`/api/v1/equivalencies/imports${query}`)
      .set(bearer(t.keys.live))
      .set("Content-Type", "text/csv")
      .send(csv);
  const HEADER =
    "source_institution,source_course_1,source_course_2,target_institution,target_course_1,target_credits_1,kind,minimum_grade,effective_from,status,decided_by";

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await postCourses(t, COURSES);
  });
  after(() => t.close());

  it("importEquivalencies: a dry run counts and checks every row and writes nothing; then the import writes them", async () => {
    const csv = [
      HEADER,
      "inst_122977,CHEM 1A,CHEM 1AL,inst_110635,CHEM 4A,,equivalent,C,2024-08-15,accepted,UC Berkeley",
      "122977,HIST 11,,110635,HISTORY 1XX,3,elective,,,accepted,",
      "inst_122977,CHEM 1A,CHEM 1AL,inst_110635,CHEM 4B,,equivalent,C,2024-09-01,accepted,",
      "inst_122977,CHEM 99,,inst_110635,CHEM 4A,,equivalent,B,2024-08-15,accepted,",
      "inst_122977,HIST 11,,inst_110662,HIST 13A,,sideways,Q,15/08/2024,accepted,",
    ].join("\r\n");
    const preview = await upload(csv, "?dryRun=true");
    await expectContract(preview, 200);
    expect(preview.body).to.deep.include({ dryRun: true });
    expect(preview.body.summary).to.deep.equal({
      received: 5,
      created: 2,
      updated: 0,
      unchanged: 0,
      conflict: 1,
      rejected: 2,
    });
    expect(await t.database.prisma.equivalency.count()).to.equal(0);

    const imported = await upload(csv);
    await expectContract(imported, 200);
    expect(imported.body.summary).to.deep.equal({
      received: 5,
      created: 2,
      updated: 0,
      unchanged: 0,
      conflict: 1,
      rejected: 2,
    });
    const issues = imported.body.issues as { row: number; column: string | null; message: string }[];
    expect(issues.find((i) => i.row === 3)).to.deep.include({ column: "status" });
    expect(issues.find((i) => i.row === 3)!.message).to.match(
      /^ambiguous with the accepted rule of row 1 \(eq_\w+\): stored as conflict$/,
    );
    expect(issues.filter((i) => i.row === 4)).to.deep.equal([
      { row: 4, column: "source_course_1", message: 'no course "CHEM 99" at Santa Monica College (inst_122977)' },
    ]);
    expect(issues.filter((i) => i.row === 5).map((i) => i.column)).to.have.members([
      "kind",
      "minimum_grade",
      "effective_from",
    ]);
    const statuses = await t.database.prisma.equivalency.findMany({
      orderBy: { createdAt: "asc" },
      select: { status: true, awardedCredits: true },
    });
    expect(statuses).to.deep.equal([
      { status: "accepted", awardedCredits: 3 },
      { status: "accepted", awardedCredits: 3 },
      // CHEM 4B is a code without a course record: the sources' 5 quarter units, converted.
      { status: "conflict", awardedCredits: 3.33 },
    ]);

    // The same file again changes nothing; a changed row updates its rule.
    const again = await upload(csv.replace("accepted,UC Berkeley", "accepted,UC Berkeley Admissions"));
    await expectContract(again, 200);
    expect(again.body.summary).to.deep.include({ created: 0, updated: 1, unchanged: 1, conflict: 1, rejected: 2 });
  });

  it("importEquivalencies: 400 for a file without the required columns or with more than 10,000 rows", async () => {
    const headerless = await upload("a,b\n1,2\n");
    await expectContract(headerless, 400);
    expect(headerless.body.detail).to.contain("source_institution");
    const rows = Array.from({ length: 10_001 }, () => "inst_122977,HIST 11,,inst_110635,X,,,,,,").join("\n");
    const tooMany = await upload(`${HEADER}\n${rows}`, "?dryRun=true");
    await expectContract(tooMany, 400);
    expect(tooMany.body.detail).to.contain("at most 10,000 data rows");
  });

  it("importEquivalencies: 403 not-steward when a row's target institution is not stewarded, nothing written", async () => {
    const other = await t.otherOrganization("berkeley-only", "live", "direct", { institutionIds: [BERKELEY] });
    const before = await t.database.prisma.equivalency.count();
    const response = await t.http
      .post("/api/v1/equivalencies/imports")
      .set(bearer(other.key))
      .set("Content-Type", "text/csv")
      .send(
        `${HEADER}\ninst_122977,HIST 11,,inst_110635,HISTORY 2XX,,,,,pending,\ninst_122977,HIST 11,,inst_110662,HIST 13A,,,,,pending,`,
      );
    await expectContract(response, 403);
    expectProblem(response, "not-steward");
    expect(response.body.institutionId).to.equal(UCLA);
    expect(await t.database.prisma.equivalency.count()).to.equal(before);
  });
});
