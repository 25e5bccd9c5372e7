import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { COURSES, loadInstitutions } from "../helpers/fixtures.ts";
import { createUserWithToken } from "../helpers/people.ts";
import { withRefusedWrite } from "../helpers/refused-writes.ts";

const course = (overrides: Record<string, unknown> = {}) => ({ ...COURSES["MATH 7"], ...overrides });

describe("courses: upsertCourses (POST /courses)", () => {
  let t: TestApp;
  const post = (body: unknown, path = "/courses", headers: Record<string, string> = {}) =>
    t.http
      .post(`/api/v1${path}`)
      .set(bearer(t.keys.live))
      .set(headers)
      .send(body as object);
  const events = () => t.database.prisma.outboxEvent.findMany({ orderBy: { sequence: "asc" } });

  beforeEach(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
  });
  afterEach(() => t.close());

  it("creates version 1 from one object, with no event", async () => {
    const response = await post(course({ description: "Limits, derivatives and integrals." }));
    await expectContract(response, 201);
    expect(response.body.summary).to.deep.equal({ received: 1, created: 1, updated: 0 });
    expect(response.body.data[0]).to.include({
      institutionId: "inst_122977",
      code: "MATH 7",
      version: 1,
      result: "created",
    });
    expect(response.body.data[0].id).to.match(/^crs_/);
    expect(await events()).to.have.length(0);
  });

  it("re-upserts by (institution, code) ignoring case and spacing: version + 1 and course.updated", async () => {
    const first = await post(course());
    const again = await post(course({ code: "  math   7 ", title: "Calculus I" }));
    await expectContract(again, 201);
    expect(again.body.data[0]).to.include({ id: first.body.data[0].id, version: 2, result: "updated" });
    const same = await post(course({ code: "math 7", title: "Calculus I" }));
    expect(same.body.data[0].version).to.equal(3);
    const outbox = await events();
    expect(outbox.map((e) => e.type)).to.deep.equal(["course.updated", "course.updated"]);
    const payload = outbox[0].payload as { id: string; type: string; created: string; data: Record<string, unknown> };
    expect(payload.id).to.match(/^evt_/);
    expect(payload.data).to.deep.equal({
      courseId: first.body.data[0].id,
      version: 2,
      changedFields: ["code", "title"],
    });
    expect((outbox[1].payload as { data: { changedFields: string[] } }).data.changedFields).to.deep.equal([]);
  });

  it("applies one spelling rule to the code on create and on re-upsert: as sent, trimmed, spaces collapsed, case kept", async () => {
    const created = await post(course({ code: "  math   7 " }));
    await expectContract(created, 201);
    expect(created.body.data[0].code).to.equal("math 7");
    const stored = async () =>
      (await t.database.prisma.course.findUniqueOrThrow({ where: { id: created.body.data[0].id } })).code;
    expect(await stored()).to.equal("math 7");
    const respelled = await post(course({ code: "MATH\t7" }));
    await expectContract(respelled, 201);
    expect(respelled.body.data[0]).to.include({ id: created.body.data[0].id, code: "MATH 7", result: "updated" });
    expect(await stored()).to.equal("MATH 7");
    const outbox = await events();
    expect((outbox.at(-1)!.payload as { data: { changedFields: string[] } }).data.changedFields).to.deep.equal([
      "code",
    ]);
  });

  it("reports schema and reference errors of a batch together, in item order, with one wording", async () => {
    const response = await post([
      course({ code: "A 1", institutionId: "inst_000000" }),
      course({ code: "A 2", level: "graduate", cipCode: "99.9999" }),
      course({ code: "a  1", institutionId: "inst_000000", credits: "five" }),
    ]);
    await expectContract(response, 400);
    expectProblem(response, "validation-failed");
    expect(response.body.detail).to.equal(`${response.body.errors.length} values are not valid.`);
    expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
      "/0/institutionId",
      "/1/level",
      "/2/credits",
      "/2/institutionId",
      "/2/code",
    ]);
    const single = await post(course({ institutionId: "inst_000000", level: "graduate" }));
    await expectContract(single, 400);
    expect(single.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/level", "/institutionId"]);
    expect(single.body.detail).to.equal("2 values are not valid.");
    expect(await t.database.prisma.course.count()).to.equal(0);
  });

  it("answers {data, summary} for a batch, in request order", async () => {
    await post(course({ code: "MATH 8" }));
    const response = await post([
      course({ code: "MATH 7" }),
      course({ code: "MATH 8", title: "Calculus 2" }),
      course({ institutionId: "inst_110635", code: "MATH 1A" }),
    ]);
    await expectContract(response, 201);
    expect(response.body.summary).to.deep.equal({ received: 3, created: 2, updated: 1 });
    expect(response.body.data.map((r: { result: string }) => r.result)).to.deep.equal([
      "created",
      "updated",
      "created",
    ]);
  });

  it("validates the whole batch first: every bad item by pointer, nothing written", async () => {
    const response = await post([
      course({ code: "A 1" }),
      course({ code: "A 2", cipCode: "27.01" }),
      course({ code: "A 3", level: "graduate" }),
      course({ code: "A 4", institutionId: "inst_000000" }),
    ]);
    await expectContract(response, 400);
    expectProblem(response, "validation-failed");
    const pointers = response.body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).to.include.members(["/1/cipCode", "/2/level"]);
    expect(await t.database.prisma.course.count()).to.equal(0);

    const references = await post([
      course({ code: "A 1" }),
      course({ code: "A 4", institutionId: "inst_000000" }),
      course({ code: "a  1" }),
    ]);
    await expectContract(references, 400);
    expect(references.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
      "/1/institutionId",
      "/2/code",
    ]);
    expect(await t.database.prisma.course.count()).to.equal(0);
  });

  it("points at the field itself for a single object", async () => {
    const response = await post(course({ institutionId: "inst_000000" }));
    await expectContract(response, 400);
    expect(response.body.errors).to.deep.equal([
      { pointer: "/institutionId", message: 'no institution "inst_000000" in the live environment' },
    ]);
    const missing = await post({ code: "X 1" });
    await expectContract(missing, 400);
    expect(missing.body.errors.map((e: { pointer: string }) => e.pointer)).to.include.members([
      "/institutionId",
      "/title",
      "/credits",
      "/level",
    ]);
  });

  it("reports a field missing from one course, and only that field (not the array branch of the one-or-many body)", async () => {
    const { title: _title, ...untitled } = course({});
    const response = await post(untitled);
    await expectContract(response, 400);
    expect(response.body.errors).to.deep.equal([{ pointer: "/title", message: "is required" }]);
  });

  it("answers the fuzzer's {} and [] under one Idempotency-Key at once: the five required fields, then the empty batch", async () => {
    // Seed 22 of the fuzz suite sends these two in turn; its timeout came from shrinking, not from them.
    const key = { "Idempotency-Key": "]6P<hFm[" };
    const empty = await post({}, "/courses?dryRun=false", key);
    await expectContract(empty, 400);
    const pointers = (response: { body: { errors: { pointer: string }[] } }) =>
      response.body.errors.map((e) => e.pointer);
    expect(pointers(empty)).to.deep.equal(["/institutionId", "/code", "/title", "/credits", "/level"]);
    const batch = await post([], "/courses?dryRun=false", key);
    await expectContract(batch, 400);
    expect(pointers(batch)).to.include("");
    expect(await t.database.prisma.idempotencyRecord.count()).to.equal(0);
  });

  it("gives an example with a pattern failure: cipCode like 27.0101", async () => {
    const response = await post(course({ cipCode: "27-0101" }));
    await expectContract(response, 400);
    expect(response.body.errors).to.deep.equal([
      { pointer: "/cipCode", message: "must match the pattern ^\\d{2}\\.\\d{4}$, like 27.0101" },
    ]);
  });

  it("refuses more than 500 items and an empty batch", async () => {
    const tooMany = await post(Array.from({ length: 501 }, (_, i) => course({ code: `C ${i}` })));
    await expectContract(tooMany, 400);
    await expectContract(await post([]), 400);
    expect(await t.database.prisma.course.count()).to.equal(0);
  });

  it("checks cipCode against an imported CIP catalog, naming the code", async () => {
    await t.database.prisma.cipCode.createMany({
      data: [{ code: "27.0101", title: "Mathematics, General", digits: 6 }],
    });
    expect((await post(course())).status).to.equal(201);
    const response = await post(course({ code: "MATH 9", cipCode: "99.9999" }));
    await expectContract(response, 400);
    expect(response.body.errors[0]).to.deep.equal({ pointer: "/cipCode", message: '"99.9999" is not a CIP 2020 code' });
  });

  it("dryRun=true answers what would happen and writes nothing", async () => {
    await post(course());
    const response = await post([course(), course({ code: "NEW 1" })], "/courses?dryRun=true");
    await expectContract(response, 200);
    expect(response.body.dryRun).to.equal(true);
    expect(
      response.body.data.map((r: { result: string; id: string | null }) => [r.result, r.id === null]),
    ).to.deep.equal([
      ["updated", false],
      ["created", true],
    ]);
    expect(await t.database.prisma.course.count()).to.equal(1);
    expect(await events()).to.have.length(0);
  });

  it("replays the first response for a repeated Idempotency-Key; another body is a 409", async () => {
    const first = await post(course(), "/courses", { "Idempotency-Key": "batch-1" });
    const replay = await post(course(), "/courses", { "Idempotency-Key": "batch-1" });
    await expectContract(replay, 201);
    expect(replay.body).to.deep.equal(first.body);
    // The same bytes, not only the same object (a jsonb column does not keep the order of keys).
    expect(replay.text).to.equal(first.text);
    expect(replay.headers.location).to.equal(first.headers.location);
    expect(first.headers.location).to.equal(`/api/v1/courses/${first.body.data[0].id}`);
    expect(replay.headers["idempotent-replayed"]).to.equal("true");
    expect(await t.database.prisma.course.findFirst()).to.have.property("version", 1);
    const reused = await post(course({ title: "Other" }), "/courses", { "Idempotency-Key": "batch-1" });
    await expectContract(reused, 409);
    expectProblem(reused, "idempotency-key-reused");
  });

  it("stores the Idempotency-Key's answer in the batch's transaction: when it cannot be stored, nothing is written and the retry runs once", async () => {
    // The window between the change's commit and its answer: storing the answer fails.
    const prisma = t.database.prisma;
    const send = () => post(course(), "/courses", { "Idempotency-Key": "crash-window" });
    const failed = await withRefusedWrite(
      prisma,
      { table: "idempotency_records", on: "UPDATE", when: "NEW.response_status <> 0" },
      send,
    );
    expect(failed.status).to.equal(500);
    // Before, the course was committed without its answer, and the retry wrote version 2 and course.updated.
    expect(await prisma.course.count()).to.equal(0);
    const retried = await send();
    await expectContract(retried, 201);
    expect(retried.headers["idempotent-replayed"]).to.equal(undefined);
    const replayed = await send();
    expect(replayed.headers["idempotent-replayed"]).to.equal("true");
    expect(replayed.body).to.deep.equal(retried.body);
    expect((await prisma.course.findMany()).map((c) => c.version)).to.deep.equal([1]);
    expect(await events()).to.have.length(0);
  });

  it("scopes an Idempotency-Key by environment: a user's sandbox answer is not replayed to the same key in live", async () => {
    // A user's token has the same credential id in both environments (docs/security.md, data integrity).
    await loadInstitutions(t.database.prisma, "sandbox");
    const sandbox = await createUserWithToken(t, "contributor", { environment: "sandbox" });
    const live = await t.app.accessTokens.issueUserToken({
      userId: sandbox.id,
      organizationId: t.organizationId,
      role: "contributor",
      sessionId: sandbox.sessionId,
      environment: "live",
    });
    const send = (token: string) =>
      t.http.post("/api/v1/courses").set(bearer(token)).set("Idempotency-Key", "etl-1").send(course());
    const inSandbox = await send(sandbox.token);
    await expectContract(inSandbox, 201);
    const inLive = await send(live.access_token);
    await expectContract(inLive, 201);
    expect(inLive.headers["idempotent-replayed"]).to.equal(undefined);
    expect(inLive.body.data[0].id).to.not.equal(inSandbox.body.data[0].id);
    const environments = (await t.database.prisma.course.findMany()).map((c) => c.environment).sort();
    expect(environments).to.deep.equal(["live", "sandbox"]);
    const replay = await send(live.access_token);
    expect(replay.headers["idempotent-replayed"]).to.equal("true");
    expect(replay.body).to.deep.equal(inLive.body);
  });
});

describe("courses: listCourses (GET /courses), getCourse (GET /courses/{id})", () => {
  let t: TestApp;
  let ids: Record<string, string>;
  const get = (path: string) => t.http.get(`/api/v1${path}`).set(bearer(t.keys.live));
  const codes = (response: { body: { data: { code: string }[] } }) => response.body.data.map((c) => c.code);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const created = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send([
        course({
          code: "CS 61A",
          title: "Structure and Interpretation of Computer Programs",
          institutionId: "inst_110635",
          cipCode: "11.0701",
          credits: 4,
        }),
        course({ code: "MATH 1A", title: "Calculus", institutionId: "inst_110635", cipCode: "27.0101", credits: 4 }),
        course({ code: "CS 55", title: "Java Programming", cipCode: "11.0201", credits: 3 }),
        course({ code: "ENGL 1", title: "Reading and Composition", cipCode: null, credits: 3 }),
      ]);
    ids = Object.fromEntries(created.body.data.map((r: { code: string; id: string }) => [r.code, r.id]));
  });
  after(() => t.close());

  it("listCourses lists by institution, code and id with paging headers", async () => {
    const response = await get("/courses");
    await expectContract(response, 200);
    expect(codes(response)).to.deep.equal(["CS 61A", "MATH 1A", "CS 55", "ENGL 1"]);
    expect(response.headers["x-total-count"]).to.equal("4");
  });

  it("listCourses filters by institution, CIP code or prefix, and q on code or title", async () => {
    expect(codes(await get("/courses?institution=inst_122977"))).to.deep.equal(["CS 55", "ENGL 1"]);
    expect(codes(await get("/courses?cip=11"))).to.deep.equal(["CS 61A", "CS 55"]);
    expect(codes(await get("/courses?cip=11.07"))).to.deep.equal(["CS 61A"]);
    expect(codes(await get("/courses?cip=27.0101"))).to.deep.equal(["MATH 1A"]);
    expect(codes(await get("/courses?q=PROGRAM"))).to.deep.equal(["CS 61A", "CS 55"]);
    expect(codes(await get("/courses?q=engl"))).to.deep.equal(["ENGL 1"]);
    await expectContract(await get("/courses?cip=11.7"), 400);
  });

  it("getCourse reads one course with its institution embedded; 404 otherwise", async () => {
    const response = await get(`/courses/${ids["CS 61A"]}`);
    await expectContract(response, 200);
    expect(response.body.data).to.include({
      id: ids["CS 61A"],
      code: "CS 61A",
      credits: 4,
      level: "lower",
      cipCode: "11.0701",
      version: 1,
    });
    expect(response.body.data.institution).to.include({ id: "inst_110635", name: "University of California-Berkeley" });
    const missing = await get("/courses/crs_missing");
    await expectContract(missing, 404);
    expectProblem(missing, "not-found");
  });
});
