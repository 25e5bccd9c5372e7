// What the contract accepts in more than one spelling (grades are written in capitals only, as
// the dashboard and the CLI require too) and
// institutions by bare IPEDS unit id (`110635` is `inst_110635`) in paths, query filters and bodies,
// as the CSV import reads them; and a date in another form is refused with the form it must take.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions, postCourses, ruleCourses } from "../helpers/fixtures.ts";

describe("canonical input: grades in either case, IPEDS unit ids for institution ids, dates in words", function () {
  this.timeout(300_000);
  let t: TestApp;
  let c: Record<string, string>;
  let ruleId: string;
  const get = (path: string) => t.http.get(`/api/v1${path}`).set(bearer(t.keys.live));
  const post = (path: string, body: object) => t.http.post(`/api/v1${path}`).set(bearer(t.keys.live)).send(body);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    c = await postCourses(t, ruleCourses("CHEM 1A", "CHEM 1AL", "HIST 11", "CHEM 4A"));
  });
  after(() => t.close());

  it("createEquivalency and updateEquivalency: grades are written in capitals (c+ is refused naming them); 110635 is inst_110635", async () => {
    const body = {
      sourceCourseIds: [c["CHEM 1A"], c["CHEM 1AL"]],
      targetInstitutionId: "110635",
      targets: [{ courseId: c["CHEM 4A"] }],
      minimumGrade: "c+",
      status: "accepted",
    };
    const refused = await post("/equivalencies", body);
    await expectContract(refused, 400);
    expect(refused.body.errors[0]).to.deep.include({ pointer: "/minimumGrade" });
    const created = await post("/equivalencies", { ...body, minimumGrade: "C+" });
    await expectContract(created, 201);
    expect(created.body.data).to.include({ targetInstitutionId: "inst_110635", minimumGrade: "C+" });
    ruleId = created.body.data.id;
    const changed = await t.http
      .patch(`/api/v1/equivalencies/${ruleId}`)
      .set(bearer(t.keys.live))
      .send({ minimumGrade: "P" });
    await expectContract(changed, 200);
    expect(changed.body.data.minimumGrade).to.equal("P");
  });

  it("createTransferEvaluation: institutions by IPEDS unit id, the answer in ids", async () => {
    const response = await post("/transfer-evaluations", {
      targetInstitutionId: "110635",
      courses: [
        { institutionId: "122977", code: "CHEM 1A", grade: "B", completedOn: "2025-06-12" },
        { institutionId: "inst_122977", code: "CHEM 1AL", grade: "NP", completedOn: "2025-06-12" },
        { institutionId: "122977", code: "HIST 11", grade: "B+" },
      ],
    });
    await expectContract(response, 200);
    const { data } = response.body;
    expect(data.targetInstitutionId).to.equal("inst_110635");
    expect(data.results.map((r: { grade: string }) => r.grade)).to.deep.equal(["B", "NP", "B+"]);
  });

  it("createTransferEvaluation: 400 naming the written form of a date, and every grade once for a grade that is none", async () => {
    const response = await post("/transfer-evaluations", {
      targetInstitutionId: "inst_110635",
      courses: [{ institutionId: "inst_122977", code: "CHEM 1A", grade: "b", completedOn: "08/15/2024" }],
    });
    await expectContract(response, 400);
    const messages = Object.fromEntries(
      response.body.errors.map((e: { pointer: string; message: string }) => [e.pointer, e.message]),
    );
    expect(messages["/courses/0/completedOn"]).to.equal(
      "must be a date written YYYY-MM-DD, e.g. 2024-08-15, in the years 1900-9999",
    );
    expect(messages["/courses/0/grade"]).to.equal(
      "must be one of A+, A, A-, B+, B, B-, C+, C, C-, D+, D, D-, F, P, NP, W, I",
    );
  });

  it("getInstitution, listCourses, listEquivalencies, listEquivalencyOverlaps, listEquivalencyRequests: IPEDS unit ids in paths and filters", async () => {
    const institution = await get("/institutions/110635");
    await expectContract(institution, 200);
    expect(institution.body.data.id).to.equal("inst_110635");
    const courses = await get("/courses?institution=122977");
    await expectContract(courses, 200);
    expect(courses.body.data.map((course: { code: string }) => course.code)).to.have.members([
      "CHEM 1A",
      "CHEM 1AL",
      "HIST 11",
    ]);
    const rules = await get("/equivalencies?targetInstitution=110635");
    await expectContract(rules, 200);
    expect(rules.body.data.map((rule: { id: string }) => rule.id)).to.deep.equal([ruleId]);
    const overlaps = await get("/equivalencies/overlaps?targetInstitution=110635");
    await expectContract(overlaps, 200);
    const requests = await get("/equivalency-requests?targetInstitution=110635");
    await expectContract(requests, 200);
    expect(requests.body.data.map((r: { sourceCourse: { code: string } }) => r.sourceCourse.code)).to.include(
      "HIST 11",
    );
  });

  it("upsertCourses: a course's institution by IPEDS unit id is stored by its id", async () => {
    const response = await post("/courses", {
      institutionId: "122977",
      code: "MATH 7",
      title: "Calculus 1",
      credits: 5,
      level: "lower",
    });
    await expectContract(response, 201);
    expect(response.body.data[0]).to.include({ institutionId: "inst_122977", code: "MATH 7" });
  });
});
