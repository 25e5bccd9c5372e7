// Agreements as published (1.2.0): alternatives (sourceCourseSets), choices (targetChoice) and
// cross-listed course codes, written and read through the API, and the refined ambiguity check:
// createEquivalency, updateEquivalency, getEquivalency, listEquivalencies, upsertCourses,
// listCourses, exportData (CSV, JSON, CTDL), on the database the suite runs on (PGlite, or PostgreSQL with SVC_TEST_DATABASE_URL).
import { parse } from "csv-parse/sync";
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions, postCourses } from "../helpers/fixtures.ts";

const SMC = "inst_122977";
const BERKELEY = "inst_110635";
const UCLA = "inst_110662";

const course = (institutionId: string, code: string, credits = 4, fields: object = {}) => ({
  institutionId,
  code,
  title: `Course ${code}`,
  credits,
  level: "lower",
  ...fields,
});

const COURSES = [
  course(SMC, "MATH 7"),
  course(SMC, "MATH 7H"),
  course(SMC, "BIOL 400"),
  course(SMC, "BIOL 410"),
  course(SMC, "BIOL 415"),
  course(SMC, "CIS 8"),
  course(UCLA, "MATH 31A"),
  course(BERKELEY, "MATH 1A"),
  course(BERKELEY, "MATH 16A", 3),
  course(BERKELEY, "BIOL 1A"),
  course(BERKELEY, "BIOL 1AL", 1),
  course(BERKELEY, "COMPSCI C8", 4, { crossListedCodes: ["DATA C8", "INFO C8", "STAT C8"] }),
];

describe("agreements as published: sourceCourseSets, targetChoice and crossListedCodes", () => {
  let t: TestApp;
  let c: Record<string, string>;
  const post = (body: object, query = "") =>
    t.http.post(`/api/v1/equivalencies${query}`).set(bearer(t.keys.live)).send(body);
  const patch = (id: string, body: object) =>
    t.http.patch(`/api/v1/equivalencies/${id}`).set(bearer(t.keys.live)).send(body);
  const upsert = (body: object) => t.http.post("/api/v1/courses").set(bearer(t.keys.live)).send(body);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const created = await upsert(COURSES);
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    c = await postCourses(t, COURSES);
  });
  after(() => t.close());

  it("upsertCourses: a course's crossListedCodes are stored and read back; getCourse and listCourses (code=, q=) find it by any of its codes", async () => {
    const read = await t.http.get(`/api/v1/courses/${c["COMPSCI C8"]}`).set(bearer(t.keys.live));
    await expectContract(read, 200);
    expect(read.body.data.crossListedCodes).to.deep.equal(["DATA C8", "INFO C8", "STAT C8"]);

    const byCode = await t.http.get("/api/v1/courses?code=data%20c8").set(bearer(t.keys.live));
    await expectContract(byCode, 200);
    expect(byCode.body.data.map((x: { id: string }) => x.id)).to.deep.equal([c["COMPSCI C8"]]);
    const own = await t.http.get(`/api/v1/courses?institution=${BERKELEY}&code=COMPSCI%20C8`).set(bearer(t.keys.live));
    expect(own.body.data.map((x: { id: string }) => x.id)).to.deep.equal([c["COMPSCI C8"]]);
    const byText = await t.http.get("/api/v1/courses?q=stat%20c").set(bearer(t.keys.live));
    expect(byText.body.data.map((x: { id: string }) => x.id)).to.deep.equal([c["COMPSCI C8"]]);

    const other = await t.http.get(`/api/v1/courses/${c["MATH 1A"]}`).set(bearer(t.keys.live));
    expect(other.body.data.crossListedCodes).to.deep.equal([]);
  });

  it("upsertCourses: a re-upsert without crossListedCodes keeps them, [] removes them, and course.updated names the field", async () => {
    const math = course(BERKELEY, "MATH 16A", 3);
    await expectContract(await upsert({ ...math, crossListedCodes: ["MATH N16A"] }), 201);
    await expectContract(await upsert(math), 201);
    let read = await t.http.get(`/api/v1/courses/${c["MATH 16A"]}`).set(bearer(t.keys.live));
    expect(read.body.data.crossListedCodes).to.deep.equal(["MATH N16A"]);
    await expectContract(await upsert({ ...math, crossListedCodes: [] }), 201);
    read = await t.http.get(`/api/v1/courses/${c["MATH 16A"]}`).set(bearer(t.keys.live));
    expect(read.body.data.crossListedCodes).to.deep.equal([]);
    const freed = await t.http.get("/api/v1/courses?code=MATH%20N16A").set(bearer(t.keys.live));
    expect(freed.body.data).to.deep.equal([]);
    const events = await t.database.prisma.outboxEvent.findMany({ where: { type: "course.updated" } });
    const changed = events.map((e) => (e.payload as { data: { changedFields: string[] } }).data.changedFields);
    expect(changed.filter((fields) => fields.includes("crossListedCodes"))).to.have.length(2);
  });

  it("upsertCourses: a code another course holds (own or cross-listed) is 409 course-code-taken naming it; a code claimed twice in a batch is 400", async () => {
    const taken = await upsert({ ...course(BERKELEY, "DATA 8"), crossListedCodes: ["STAT  c8"] });
    await expectContract(taken, 409);
    expect(taken.body.type).to.match(/course-code-taken$/);
    expect(taken.body.existingId).to.equal(c["COMPSCI C8"]);
    expect(taken.body.errors).to.deep.equal([
      { pointer: "/crossListedCodes/0", message: `STAT  c8 is a code of ${c["COMPSCI C8"]}` },
    ]);

    const ownTaken = await upsert([course(BERKELEY, "INFO C8")]);
    await expectContract(ownTaken, 409);
    expect(ownTaken.body.existingId).to.equal(c["COMPSCI C8"]);
    expect(ownTaken.body.errors[0].pointer).to.equal("/0/code");

    const twice = await upsert([
      { ...course(BERKELEY, "ECON 1"), crossListedCodes: ["POLECON 1", "econ 1"] },
      { ...course(BERKELEY, "ECON 2"), crossListedCodes: ["POLECON  1"] },
    ]);
    await expectContract(twice, 400);
    expect(twice.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
      "/0/crossListedCodes/1",
      "/1/crossListedCodes/0",
    ]);
    const none = await t.http.get("/api/v1/courses?code=ECON%201").set(bearer(t.keys.live));
    expect(none.body.data).to.deep.equal([]);
  });

  it("createEquivalency: MATH 1A <- MATH 7 or MATH 7H is one rule of two sets; sourceCourseIds is the first; read back, listed by a course of either set", async () => {
    const created = await post({
      sourceCourseSets: [[c["MATH 7"]], [c["MATH 7H"]]],
      targetInstitutionId: BERKELEY,
      targets: [{ code: "MATH 1A" }],
      status: "accepted",
    });
    await expectContract(created, 201);
    const rule = created.body.data;
    expect(rule).to.deep.include({
      sourceCourseId: c["MATH 7"],
      sourceCourseIds: [c["MATH 7"]],
      sourceCourseSets: [[c["MATH 7"]], [c["MATH 7H"]]],
      targetChoice: "all",
      targetCourseId: c["MATH 1A"],
      targetCode: "MATH 1A",
    });
    expect(rule.sourceCourseSetCourses.map((set: { code: string }[]) => set.map((s) => s.code))).to.deep.equal([
      ["MATH 7"],
      ["MATH 7H"],
    ]);
    const read = await t.http.get(`/api/v1/equivalencies/${rule.id}`).set(bearer(t.keys.live));
    await expectContract(read, 200);
    expect(read.body.data.sourceCourseSets).to.deep.equal([[c["MATH 7"]], [c["MATH 7H"]]]);
    const listed = await t.http.get(`/api/v1/equivalencies?sourceCourse=${c["MATH 7H"]}`).set(bearer(t.keys.live));
    await expectContract(listed, 200);
    expect(listed.body.data.map((e: { id: string }) => e.id)).to.deep.equal([rule.id]);
  });

  it("createEquivalency: sourceCourseIds that disagree with the first set, a course twice in a set, two sets of the same courses, a course of another institution, one_of with one target: 400 with pointers", async () => {
    const disagree = await post({
      sourceCourseSets: [[c["BIOL 400"]]],
      sourceCourseIds: [c["BIOL 410"]],
      targetInstitutionId: BERKELEY,
    });
    await expectContract(disagree, 400);
    expect(disagree.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/sourceCourseIds"]);

    const bad = await post({
      sourceCourseSets: [
        [c["BIOL 400"], c["BIOL 400"]],
        [c["BIOL 410"], c["BIOL 400"]],
        [c["BIOL 400"], c["BIOL 410"]],
        [c["MATH 31A"]],
      ],
      targetInstitutionId: BERKELEY,
      targets: [{ code: "BIOL 1A" }],
      targetChoice: "one_of",
    });
    await expectContract(bad, 400);
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer)).to.have.members([
      "/sourceCourseSets/0/1",
      "/sourceCourseSets/2",
      "/targetChoice",
      "/sourceCourseSets/3/0",
    ]);
  });

  it("createEquivalency: (BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415) -> BIOL 1A + BIOL 1AL; a rule sharing its second set with another outcome is ambiguous-rule, the real contradiction refused", async () => {
    const created = await post({
      sourceCourseSets: [
        [c["BIOL 400"], c["BIOL 410"]],
        [c["BIOL 400"], c["BIOL 415"]],
      ],
      targetInstitutionId: BERKELEY,
      targets: [{ code: "BIOL 1A" }, { code: "BIOL 1AL" }],
      status: "accepted",
    });
    await expectContract(created, 201);
    expect(created.body.data.awardedCredits).to.equal(8);
    const rival = await post({
      sourceCourseIds: [c["BIOL 415"], c["BIOL 400"]],
      targetInstitutionId: BERKELEY,
      targets: [{ code: "BIOL 1XX" }],
      kind: "elective",
      status: "accepted",
    });
    await expectContract(rival, 409);
    expect(rival.body.type).to.match(/ambiguous-rule$/);
    expect(rival.body.conflictingEquivalencyIds).to.deep.equal([created.body.data.id]);
    const waiting = await post({
      sourceCourseIds: [c["BIOL 415"], c["BIOL 400"]],
      targetInstitutionId: BERKELEY,
      targets: [{ code: "BIOL 1XX" }],
      kind: "elective",
      status: "conflict",
    });
    await expectContract(waiting, 201);
  });

  it("createEquivalency: MATH 7 gives MATH 1A or MATH 16A is one one_of rule (least option's credits); the same rule again accepted is duplicate-rule, not conflict", async () => {
    const body = {
      sourceCourseId: c["MATH 7"],
      targetInstitutionId: UCLA,
      targets: [
        { code: "MATH 31A", credits: 4 },
        { code: "MATH 3B", credits: 3 },
      ],
      targetChoice: "one_of",
      status: "accepted",
    };
    const created = await post(body);
    await expectContract(created, 201);
    expect(created.body.data).to.deep.include({ targetChoice: "one_of", awardedCredits: 3 });
    const again = await post(body);
    await expectContract(again, 409);
    expect(again.body.type).to.match(/duplicate-rule$/);
    expect(again.body.conflictingEquivalencyIds).to.deep.equal([created.body.data.id]);
    const all = await post({ ...body, targetChoice: "all", effectiveFrom: "2020-01-01" });
    await expectContract(all, 409);
    expect(all.body.type, "all is another outcome than one_of").to.match(/ambiguous-rule$/);
  });

  it("createEquivalency: a target named by a cross-listed code is that course, and a rule to DATA C8 beside one to COMPSCI C8 is duplicate-rule", async () => {
    const created = await post({
      sourceCourseId: c["CIS 8"],
      targetInstitutionId: BERKELEY,
      targets: [{ code: "DATA C8" }],
      status: "accepted",
    });
    await expectContract(created, 201);
    expect(created.body.data).to.deep.include({ targetCourseId: c["COMPSCI C8"], targetCode: "DATA C8" });
    const same = await post({
      sourceCourseId: c["CIS 8"],
      targetInstitutionId: BERKELEY,
      targetCourseId: c["COMPSCI C8"],
      effectiveFrom: "2021-01-01",
      status: "accepted",
    });
    await expectContract(same, 409);
    expect(same.body.type).to.match(/duplicate-rule$/);
  });

  it("updateEquivalency: sourceCourseSets adds an alternative and targetChoice changes, recorded in the version and the event; a new first set is 400", async () => {
    const created = await post({
      sourceCourseId: c["BIOL 410"],
      targetInstitutionId: UCLA,
      targets: [{ code: "X 1" }, { code: "X 2" }],
    });
    await expectContract(created, 201);
    const id = created.body.data.id;
    const changed = await patch(id, { sourceCourseSets: [[c["BIOL 410"]], [c["BIOL 415"]]], targetChoice: "one_of" });
    await expectContract(changed, 200);
    expect(changed.body.data).to.deep.include({
      version: 2,
      sourceCourseSets: [[c["BIOL 410"]], [c["BIOL 415"]]],
      targetChoice: "one_of",
    });
    const versions = await t.http.get(`/api/v1/equivalencies/${id}/versions`).set(bearer(t.keys.live));
    await expectContract(versions, 200);
    expect(versions.body.data.versions[0].changedFields).to.include.members(["sourceCourseSets", "targetChoice"]);
    expect(versions.body.data.versions[0].state.sourceCourseSets).to.deep.equal([[c["BIOL 410"]], [c["BIOL 415"]]]);
    const event = await t.database.prisma.outboxEvent.findFirst({
      where: { type: "equivalency.updated" },
      orderBy: { sequence: "desc" },
    });
    expect((event!.payload as { data: object }).data).to.deep.include({
      sourceCourseSets: [[c["BIOL 410"]], [c["BIOL 415"]]],
      targetChoice: "one_of",
    });
    const moved = await patch(id, { sourceCourseSets: [[c["BIOL 415"]]] });
    await expectContract(moved, 400);
    expect(moved.body.errors[0].pointer).to.equal("/sourceCourseSets/0");
  });

  it("exportData: each form reads back whole in CSV, JSON and CTDL (alternatives, a choice of targets, a cross-listed target)", async () => {
    const exported = async (format: string) => {
      const response = await t.http
        .get(`/api/v1/exports?resource=equivalencies&format=${format}`)
        .set(bearer(t.keys.live));
      await expectContract(response, 200);
      return response.text;
    };
    const rules = (await t.database.prisma.equivalency.findMany({ where: { environment: "live" } })).map((rule) => ({
      id: rule.id,
      sets: rule.sourceCourseSets as string[][],
      choice: rule.targetChoice,
      target: rule.targetCourseId,
    }));
    const alternatives = rules.find((r) => r.sets.length === 2 && r.sets[1][0] === c["MATH 7H"])!;
    const choice = rules.find((r) => r.choice === "one_of" && r.sets[0][0] === c["MATH 7"])!;
    const crossListed = rules.find((r) => r.target === c["COMPSCI C8"])!;
    for (const rule of [alternatives, choice, crossListed])
      expect(rule, "the forms written above").to.not.equal(undefined);

    const csv = new Map(
      (parse(await exported("csv"), { columns: true }) as Record<string, string>[]).map((row) => [row.id, row]),
    );
    expect(JSON.parse(csv.get(alternatives.id)!.sourceCourseSets)).to.deep.equal([[c["MATH 7"]], [c["MATH 7H"]]]);
    expect(csv.get(alternatives.id)!.sourceCourseSetCodes).to.equal("MATH 7 or MATH 7H");
    expect(csv.get(choice.id)).to.deep.include({ targetChoice: "one_of", targetCourseCodes: "MATH 31A or MATH 3B" });
    expect(csv.get(crossListed.id)).to.deep.include({ targetCourseCodes: "COMPSCI C8 = DATA C8 = INFO C8 = STAT C8" });

    const json = new Map(
      (JSON.parse(await exported("json")) as { id: string }[]).map((rule) => [
        rule.id,
        rule as Record<string, unknown>,
      ]),
    );
    expect(json.get(alternatives.id)).to.deep.include({ sourceCourseSets: [[c["MATH 7"]], [c["MATH 7H"]]] });
    expect(json.get(choice.id)).to.deep.include({ targetChoice: "one_of" });

    const ctdl = new Map(
      (JSON.parse(await exported("ctdl"))["@graph"] as Record<string, unknown>[]).map((node) => [
        String(node["@id"]).replace("urn:course-equivalency:", ""),
        node,
      ]),
    );
    const either = ctdl.get(alternatives.id)!;
    expect(either["ceterms:name"]).to.deep.equal({
      "en-US": "MATH 7 or MATH 7H (Santa Monica College) to MATH 1A (University of California-Berkeley)",
    });
    expect(either["ce:sourceCourseSets"]).to.deep.equal([
      { "@type": "ce:SourceCourseSet", "ce:course": [{ "@id": `urn:course-equivalency:${c["MATH 7"]}` }] },
      { "@type": "ce:SourceCourseSet", "ce:course": [{ "@id": `urn:course-equivalency:${c["MATH 7H"]}` }] },
    ]);
    expect(
      (either["ceterms:transferValueFrom"] as { "ceterms:codedNotation": string }[]).map(
        (n) => n["ceterms:codedNotation"],
      ),
    ).to.deep.equal(["MATH 7", "MATH 7H"]);
    const oneOf = ctdl.get(choice.id)!;
    expect(oneOf["ce:targetChoice"]).to.equal("one_of");
    expect((oneOf["ceterms:name"] as Record<string, string>)["en-US"]).to.match(/ to MATH 31A or MATH 3B \(/);
    const [c8] = ctdl.get(crossListed.id)!["ceterms:transferValueFor"] as Record<string, unknown>[];
    expect(c8).to.deep.include({
      "ceterms:codedNotation": "COMPSCI C8",
      "ce:crossListedCodes": ["DATA C8", "INFO C8", "STAT C8"],
    });
  });
});
