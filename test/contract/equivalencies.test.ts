import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { withRefusedWrite } from "../helpers/refused-writes.ts";
import { COURSES, loadInstitutions, postCourses } from "../helpers/fixtures.ts";

async function setup(t: TestApp) {
  await loadInstitutions(t.database.prisma, "live");
  return postCourses(t, Object.values(COURSES));
}

describe("equivalencies: createEquivalency (POST /equivalencies)", () => {
  let t: TestApp;
  let c: Record<string, string>;
  const post = (body: object, path = "/equivalencies", headers: Record<string, string> = {}) =>
    t.http.post(`/api/v1${path}`).set(bearer(t.keys.live)).set(headers).send(body);

  beforeEach(async () => {
    t = await createTestApp();
    c = await setup(t);
  });
  afterEach(() => t.close());

  it("creates version 1, pending by default, provenance from the organization, and emits equivalency.created", async () => {
    const response = await post({
      sourceCourseId: c["CS 55"],
      targetInstitutionId: "inst_110635",
      targetCourseId: c["CS 61B"],
      policyBasis: "ASSIST 2024-25",
    });
    await expectContract(response, 201);
    const eq = response.body.data;
    expect(eq).to.include({
      status: "pending",
      version: 1,
      provenance: "channel_a",
      decidedAt: null,
      targetCode: "CS 61B",
      datasetVersionId: null,
    });
    expect(eq.id).to.match(/^eq_/);
    expect(eq.sourceCourse).to.include({ id: c["CS 55"], code: "CS 55" });
    expect(eq.sourceCourse.institution).to.include({ id: "inst_122977" });
    expect(eq.targetInstitution).to.include({ id: "inst_110635" });
    expect(eq.targetCourse).to.include({ id: c["CS 61B"] });
    expect(response.headers.etag).to.equal(`"${eq.id}.v1"`);
    expect(response.headers.location).to.equal(`/api/v1/equivalencies/${eq.id}`);

    const [event] = await t.database.prisma.outboxEvent.findMany();
    expect(event.type).to.equal("equivalency.created");
    expect((event.payload as { data: unknown }).data).to.deep.equal({
      equivalencyId: eq.id,
      status: "pending",
      sourceCourse: { institution: "Santa Monica College", code: "CS 55" },
      target: { institution: "University of California-Berkeley", code: "CS 61B" },
      policyBasis: "ASSIST 2024-25",
      // The rule's fields (1.1.0): a 1.0 request is one source and one target.
      sourceCourseIds: [c["CS 55"]],
      targets: [{ courseId: c["CS 61B"], code: "CS 61B", credits: null }],
      kind: "equivalent",
      generalEducationArea: null,
      minimumGrade: null,
      effectiveFrom: null,
      effectiveUntil: null,
      priority: 0,
      awardedCredits: eq.awardedCredits,
      awardedCreditUnit: "semester",
      // 1.2.0: alternatives and choices; a 1.1 request is one set and every target.
      sourceCourseSets: [[c["CS 55"]]],
      targetChoice: "all",
    });
    const versions = await t.database.prisma.equivalencyVersion.findMany({ where: { equivalencyId: eq.id } });
    expect(versions.map((v) => v.version)).to.deep.equal([1]);
  });

  it("sets decidedAt when created accepted or conflict", async () => {
    const response = await post({
      sourceCourseId: c["MATH 7"],
      targetInstitutionId: "inst_110662",
      targetCourseId: c["MATH 31A"],
      status: "accepted",
      decidedBy: "UCLA Registrar",
    });
    await expectContract(response, 201);
    expect(response.body.data.decidedAt).to.be.a("string");
    const coded = await post({
      sourceCourseId: c["MATH 7"],
      targetInstitutionId: "inst_110635",
      targetCode: "MATH 1XX",
      status: "conflict",
    });
    expect(coded.body.data).to.include({ targetCourseId: null, targetCode: "MATH 1XX", status: "conflict" });
    expect(coded.body.data.targetCourse).to.equal(null);
  });

  it("409 with the existing id for a duplicate (source, target institution, target)", async () => {
    const first = await post({
      sourceCourseId: c["MATH 7"],
      targetInstitutionId: "inst_110635",
      targetCode: "math 1xx",
    });
    const duplicate = await post({
      sourceCourseId: c["MATH 7"],
      targetInstitutionId: "inst_110635",
      targetCode: "MATH  1XX",
    });
    await expectContract(duplicate, 409);
    expectProblem(duplicate, "conflict");
    expect(duplicate.body.existingId).to.equal(first.body.data.id);
    expect(await t.database.prisma.outboxEvent.count()).to.equal(1);
  });

  it("400 with pointers for unknown references and a target course of another institution; nothing written", async () => {
    const response = await post({ sourceCourseId: "crs_nope", targetInstitutionId: "inst_000000" });
    await expectContract(response, 400);
    expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
      "/sourceCourseId",
      "/targetInstitutionId",
    ]);
    const mismatch = await post({
      sourceCourseId: c["CS 55"],
      targetInstitutionId: "inst_110662",
      targetCourseId: c["CS 61B"],
    });
    await expectContract(mismatch, 400);
    expect(mismatch.body.errors[0].pointer).to.equal("/targetCourseId");
    const schema = await post({
      sourceCourseId: c["CS 55"],
      targetInstitutionId: "inst_110635",
      status: "rejected",
      extra: 1,
    });
    await expectContract(schema, 400);
    expect(schema.body.errors.map((e: { pointer: string }) => e.pointer)).to.include.members(["/status", "/extra"]);
    expect(await t.database.prisma.equivalency.count()).to.equal(0);
    expect(await t.database.prisma.outboxEvent.count()).to.equal(0);
  });

  it("dryRun=true previews without writing", async () => {
    const response = await post(
      { sourceCourseId: c["CS 55"], targetInstitutionId: "inst_110635", targetCourseId: c["CS 61B"] },
      "/equivalencies?dryRun=true",
    );
    await expectContract(response, 200);
    expect(response.body.dryRun).to.equal(true);
    expect(response.body.data).to.include({ id: null, status: "pending", version: 1, provenance: "channel_a" });
    expect(await t.database.prisma.equivalency.count()).to.equal(0);
  });

  it("honours Idempotency-Key", async () => {
    const body = { sourceCourseId: c["CS 55"], targetInstitutionId: "inst_110635", targetCode: "COMPSCI 1XX" };
    const first = await post(body, "/equivalencies", { "Idempotency-Key": "k1" });
    const again = await post(body, "/equivalencies", { "Idempotency-Key": "k1" });
    await expectContract(again, 201);
    expect(again.body.data.id).to.equal(first.body.data.id);
    expect(await t.database.prisma.equivalency.count()).to.equal(1);
    const reused = await post({ ...body, targetCode: "OTHER" }, "/equivalencies", { "Idempotency-Key": "k1" });
    await expectContract(reused, 409);
    expectProblem(reused, "idempotency-key-reused");
  });

  it("stores the Idempotency-Key's answer in the creation's transaction: when it cannot be stored, nothing is created and the retry creates once", async () => {
    const body = { sourceCourseId: c["CS 55"], targetInstitutionId: "inst_110635", targetCode: "COMPSCI 2XX" };
    const send = () => post(body, "/equivalencies", { "Idempotency-Key": "crash-window" });
    const refused = { table: "idempotency_records", on: "UPDATE" as const, when: "NEW.response_status <> 0" };
    expect((await withRefusedWrite(t.database.prisma, refused, send)).status).to.equal(500);
    // Before, the equivalency was committed without its answer, and the retry was a 409 naming it.
    expect(await t.database.prisma.equivalency.count()).to.equal(0);
    expect(await t.database.prisma.outboxEvent.count()).to.equal(0);
    const retried = await send();
    await expectContract(retried, 201);
    const replayed = await send();
    expect(replayed.headers["idempotent-replayed"]).to.equal("true");
    expect(replayed.body.data.id).to.equal(retried.body.data.id);
    expect(await t.database.prisma.outboxEvent.count({ where: { type: "equivalency.created" } })).to.equal(1);
  });
});

describe("equivalencies: updateEquivalency (PATCH), listEquivalencyVersions, getEquivalencyVersion, getEquivalency, listEquivalencies", () => {
  let t: TestApp;
  let c: Record<string, string>;
  let id: string;
  const patch = (body: object, headers: Record<string, string> = {}) =>
    t.http.patch(`/api/v1/equivalencies/${id}`).set(bearer(t.keys.live)).set(headers).send(body);
  const get = (path: string) => t.http.get(`/api/v1${path}`).set(bearer(t.keys.live));

  beforeEach(async () => {
    t = await createTestApp();
    c = await setup(t);
    const created = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({ sourceCourseId: c["CS 55"], targetInstitutionId: "inst_110635", targetCourseId: c["CS 61B"] });
    id = created.body.data.id;
  });
  afterEach(() => t.close());

  it("updateEquivalency changes status along allowed transitions, recording versions (listEquivalencyVersions, getEquivalencyVersion) with note, actor and changed fields", async () => {
    const accepted = await patch(
      { status: "accepted", decidedBy: "UC Berkeley Admissions", note: "Faculty review done" },
      { "If-Match": `"${id}.v1"` },
    );
    await expectContract(accepted, 200);
    expect(accepted.body.data).to.include({ status: "accepted", version: 2, decidedBy: "UC Berkeley Admissions" });
    expect(accepted.body.data.decidedAt).to.be.a("string");
    expect(accepted.headers.etag).to.equal(`"${id}.v2"`);

    const conflict = await patch({ status: "conflict", note: "Syllabus changed" });
    expect(conflict.body.data).to.include({ status: "conflict", version: 3 });
    const pending = await patch({ status: "pending" });
    expect(pending.body.data).to.include({ status: "pending", version: 4, decidedAt: null });

    const history = await get(`/equivalencies/${id}/versions`);
    await expectContract(history, 200);
    expect(history.body.pagination).to.include({ total: 4, returned: 4, nextCursor: null });
    const { current, versions } = history.body.data;
    expect(current.version).to.equal(4);
    expect(versions.map((v: { version: number }) => v.version)).to.deep.equal([4, 3, 2, 1]);
    expect(versions[0].current).to.equal(true);
    expect(versions[2]).to.deep.include({
      changeNote: "Faculty review done",
      changedFields: ["status", "decidedBy", "decidedAt"],
    });
    expect(versions[2].actor).to.deep.include({
      organizationId: t.organizationId,
      kind: "api_key",
      displayName: "live test key",
    });
    // Another organization reads the same history without the names of acme's keys and people.
    const outsider = await t.otherOrganization("history-reader");
    const seenOutside = await t.http.get(`/api/v1/equivalencies/${id}/versions`).set(bearer(outsider.key));
    await expectContract(seenOutside, 200);
    expect(seenOutside.body.data.versions[2].actor).to.deep.include({ kind: "api_key", displayName: null });
    expect(versions[3].state).to.include({ status: "pending", version: 1 });

    const one = await get(`/equivalencies/${id}/versions/2`);
    await expectContract(one, 200);
    expect(one.body.data.state).to.include({ status: "accepted", version: 2 });
    await expectContract(await get(`/equivalencies/${id}/versions/9`), 404);
    await expectContract(await get(`/equivalencies/${id}/versions/zero`), 400);

    const events = await t.database.prisma.outboxEvent.findMany({
      where: { type: "equivalency.updated" },
      orderBy: { sequence: "asc" },
    });
    expect((events[0].payload as { data: unknown }).data).to.deep.include({
      equivalencyId: id,
      version: 2,
      previousStatus: "pending",
      status: "accepted",
      changedFields: ["status", "decidedBy", "decidedAt"],
      kind: "equivalent",
      priority: 0,
    });
  });

  it("listEquivalencyVersions pages the history: 25 versions by default, then by limit and after; a bad cursor is a 400", async () => {
    for (let n = 2; n <= 30; n++) await patch({ policyBasis: `Catalog ${n}` });
    const first = await get(`/equivalencies/${id}/versions`);
    await expectContract(first, 200);
    const numbers = (r: { body: { data: { versions: { version: number }[] } } }) =>
      r.body.data.versions.map((v) => v.version);
    expect(numbers(first)).to.deep.equal(Array.from({ length: 25 }, (_, i) => 30 - i));
    expect(first.body.data.current.version).to.equal(30);
    expect(first.body.pagination).to.include({ total: 30, limit: 25, offset: 0, returned: 25 });
    expect(first.headers["x-total-count"]).to.equal("30");
    const rest = await get(`/equivalencies/${id}/versions?limit=25&after=${first.body.pagination.nextCursor}`);
    await expectContract(rest, 200);
    expect(numbers(rest)).to.deep.equal([5, 4, 3, 2, 1]);
    expect(rest.body.pagination.nextCursor).to.equal(null);
    const small = await get(`/equivalencies/${id}/versions?limit=2`);
    expect(numbers(small)).to.deep.equal([30, 29]);
    expect(small.headers.link).to.contain('rel="next"');
    await expectContract(await get(`/equivalencies/${id}/versions?limit=101`), 400);
    const foreign = await get(`/equivalencies/${id}/versions?after=${first.body.pagination.nextCursor}x`);
    await expectContract(foreign, 400);
    expectProblem(foreign, "invalid-cursor");
  });

  it("listEquivalencyVersions: the Link header's next pages follow by after to the end, every version once", async () => {
    for (let n = 2; n <= 16; n++) await patch({ policyBasis: `Catalog ${n}` });
    const seen: number[] = [];
    let path: string | null = `/equivalencies/${id}/versions?limit=7`;
    let pages = 0;
    while (path) {
      const page = await get(path);
      await expectContract(page, 200);
      pages++;
      seen.push(...page.body.data.versions.map((v: { version: number }) => v.version));
      const links = String(page.headers.link);
      expect(links).not.to.match(/offset=/);
      expect(links).to.match(/<[^>]*\/versions\?limit=7>; rel="first"/);
      const next = /<([^>]+)>; rel="next"/.exec(links)?.[1] ?? null;
      // The body's cursor is the link's.
      const cursor = page.body.pagination.nextCursor as string | null;
      expect(next === null).to.equal(cursor === null);
      if (next) expect(new URL(next, "http://x").searchParams.get("after")).to.equal(cursor);
      path = next ? next.replace(/^\/api\/v1/, "") : null;
    }
    expect(pages).to.equal(3);
    expect(seen).to.deep.equal(Array.from({ length: 16 }, (_, i) => 16 - i));
  });

  it("updateEquivalency: 409 naming a transition that is not allowed; nothing recorded", async () => {
    await patch({ status: "accepted" });
    const response = await patch({ status: "pending" });
    await expectContract(response, 409);
    expectProblem(response, "invalid-transition");
    expect(response.body.detail).to.contain("accepted -> pending");
    expect(await t.database.prisma.equivalencyVersion.count({ where: { equivalencyId: id } })).to.equal(2);
  });

  it("updateEquivalency: 412 when If-Match is stale; a PATCH that changes nothing records no version", async () => {
    const stale = await patch({ policyBasis: "New basis" }, { "If-Match": `"${id}.v7"` });
    await expectContract(stale, 412);
    expectProblem(stale, "precondition-failed");
    const unchanged = await patch({ targetCourseId: c["CS 61B"], note: "no-op" });
    await expectContract(unchanged, 200);
    expect(unchanged.body.data.version).to.equal(1);
    expect(await t.database.prisma.outboxEvent.count({ where: { type: "equivalency.updated" } })).to.equal(0);
  });

  it("updateEquivalency: 400 for an empty or unknown-field PATCH, 404 for an unknown id", async () => {
    await expectContract(await patch({}), 400);
    await expectContract(await patch({ version: 9 }), 400);
    const missing = await t.http
      .patch("/api/v1/equivalencies/eq_missing")
      .set(bearer(t.keys.live))
      .send({ status: "accepted" });
    await expectContract(missing, 404);
  });

  it("getEquivalency reads one with expansion and ETag; listEquivalencies lists with filters and expand=course", async () => {
    const one = await get(`/equivalencies/${id}`);
    await expectContract(one, 200);
    expect(one.headers.etag).to.equal(`"${id}.v1"`);
    expect(one.body.data.sourceCourse.institution.id).to.equal("inst_122977");
    await expectContract(await get("/equivalencies/eq_missing"), 404);

    await t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send({
      sourceCourseId: c["MATH 7"],
      targetInstitutionId: "inst_110662",
      targetCourseId: c["MATH 31A"],
      status: "accepted",
    });
    const all = await get("/equivalencies");
    await expectContract(all, 200);
    expect(all.body.data).to.have.length(2);
    expect(all.body.data[0]).to.not.have.property("sourceCourse");
    const accepted = await get("/equivalencies?status=accepted&expand=course");
    await expectContract(accepted, 200);
    expect(accepted.body.data).to.have.length(1);
    expect(accepted.body.data[0].sourceCourse.code).to.equal("MATH 7");
    expect(accepted.body.data[0].targetCourse.code).to.equal("MATH 31A");
    expect((await get(`/equivalencies?sourceCourse=${c["CS 55"]}`)).body.data).to.have.length(1);
    expect((await get("/equivalencies?targetInstitution=inst_110662")).body.data).to.have.length(1);
    expect((await get("/equivalencies?provenance=channel_b")).body.data).to.have.length(0);
    await expectContract(await get("/equivalencies?expand=everything"), 400);
  });

  it("updateEquivalency: 20 simultaneous PATCHes with the same If-Match: one 200, nineteen 412, no version skipped or repeated", async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => patch({ policyBasis: `basis ${i}` }, { "If-Match": `"${id}.v1"` })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 412)).to.have.length(19);
    const versions = await t.database.prisma.equivalencyVersion.findMany({
      where: { equivalencyId: id },
      orderBy: { version: "asc" },
    });
    expect(versions.map((v) => v.version)).to.deep.equal([1, 2]);
  });

  it("updateEquivalency: 20 simultaneous PATCHes without If-Match all apply, with contiguous versions", async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => patch({ policyBasis: `basis ${i}` })));
    expect(responses.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
    const versions = await t.database.prisma.equivalencyVersion.findMany({
      where: { equivalencyId: id },
      orderBy: { version: "asc" },
    });
    expect(versions.map((v) => v.version)).to.deep.equal(Array.from({ length: 21 }, (_, i) => i + 1));
  });
});
