// updatedSince on the course and equivalency lists: the records changed at or after a time.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { COURSES, loadInstitutions, postCourses } from "../helpers/fixtures.ts";

const EARLIER = new Date("2025-01-01T00:00:00.000Z");
const LATER = new Date("2025-03-01T00:00:00.000Z");
const BETWEEN = "2025-02-01T00:00:00Z";

describe("updatedSince on the course and equivalency lists", () => {
  let t: TestApp;
  let courses: Record<string, string>;
  let equivalencies: string[];

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    courses = await postCourses(t, [COURSES["CS 55"], COURSES["MATH 7"], COURSES["CS 61B"], COURSES["MATH 31A"]]);
    equivalencies = [];
    for (const [source, target] of [
      ["CS 55", "CS 61B"],
      ["MATH 7", "MATH 31A"],
    ]) {
      const response = await t.http
        .post("/api/v1/equivalencies")
        .set(bearer(t.keys.live))
        .send({
          sourceCourseId: courses[source],
          targetInstitutionId: target === "CS 61B" ? "inst_110635" : "inst_110662",
          targetCourseId: courses[target],
        });
      expect(response.status).to.equal(201);
      equivalencies.push(response.body.data.id);
    }
    // Known times instead of the clock: every record changed EARLIER, one of each changed LATER.
    const prisma = t.database.prisma;
    await prisma.course.updateMany({ data: { updatedAt: EARLIER } });
    await prisma.course.update({ where: { id: courses["MATH 7"] }, data: { updatedAt: LATER } });
    await prisma.equivalency.updateMany({ data: { updatedAt: EARLIER } });
    await prisma.equivalency.update({ where: { id: equivalencies[1] }, data: { updatedAt: LATER } });
  });
  after(() => t.close());

  it("listCourses with updatedSince lists only the courses changed at or after that time", async () => {
    const response = await t.http.get(`/api/v1/courses?updatedSince=${BETWEEN}`).set(bearer(t.keys.live));
    await expectContract(response, 200);
    expect(response.body.data.map((c: { id: string }) => c.id)).to.deep.equal([courses["MATH 7"]]);
    expect(response.body.pagination.total).to.equal(1);
    const atTheTime = await t.http
      .get(`/api/v1/courses?updatedSince=${encodeURIComponent(LATER.toISOString())}`)
      .set(bearer(t.keys.live));
    expect(atTheTime.body.data).to.have.length(1);
    const all = await t.http.get("/api/v1/courses?updatedSince=2024-12-31T23:59:59Z").set(bearer(t.keys.live));
    expect(all.body.data).to.have.length(4);
    const invalid = await t.http.get("/api/v1/courses?updatedSince=yesterday").set(bearer(t.keys.live));
    await expectContract(invalid, 400);
    expect(invalid.body.errors[0].pointer).to.equal("/query/updatedSince");
  });

  it("listEquivalencies with updatedSince lists only the equivalencies changed at or after that time", async () => {
    for (const expand of ["", "&expand=course"]) {
      const response = await t.http
        .get(`/api/v1/equivalencies?updatedSince=${BETWEEN}${expand}`)
        .set(bearer(t.keys.live));
      await expectContract(response, 200);
      expect(response.body.data.map((e: { id: string }) => e.id)).to.deep.equal([equivalencies[1]]);
      expect(response.body.pagination.total).to.equal(1);
    }
    const both = await t.http
      .get(`/api/v1/equivalencies?updatedSince=${encodeURIComponent(EARLIER.toISOString())}`)
      .set(bearer(t.keys.live));
    expect(both.body.data).to.have.length(2);
  });
});
