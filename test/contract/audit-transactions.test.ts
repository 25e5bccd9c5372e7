// A change and its audit entry (and its events and idempotent answer) commit together or not at all:
// with the audit log unable to take an entry, a change is refused whole and leaves nothing; with
// it back, an idempotent retry runs once and a further retry replays. Runs on both databases.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { createUserWithToken } from "../helpers/people.ts";
import { withRefusedWrite } from "../helpers/refused-writes.ts";

describe("audit entries in the change's own transaction (createKey, upsertCourses, updateMember)", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
  });
  after(() => t.close());

  /** Every audit insert fails, as a full disk or a broken log table would, while `work` runs. */
  const withAuditUnavailable = (work: () => Promise<void>) =>
    withRefusedWrite(t.database.prisma, { table: "audit_entries", on: "INSERT" }, work);

  const counts = async () => ({
    keys: await t.database.prisma.apiKey.count(),
    courses: await t.database.prisma.course.count(),
    events: await t.database.prisma.outboxEvent.count(),
    audit: await t.database.prisma.auditEntry.count(),
    idempotency: await t.database.prisma.idempotencyRecord.count(),
  });

  const course = { institutionId: "inst_122977", code: "AUD 1", title: "Audited", credits: 3, level: "lower" };
  const postCourses = (body: object, key: string) =>
    t.http.post("/api/v1/courses").set(bearer(t.keys.live)).set("Idempotency-Key", key).send(body);

  it("a key whose audit entry cannot be written is not created: 500, and nothing committed", async () => {
    const before = await counts();
    await withAuditUnavailable(async () => {
      const refused = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send({ name: "unaudited" });
      await expectContract(refused, 500);
    });
    expect(await counts()).to.deep.equal(before);
    const created = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).send({ name: "audited" });
    await expectContract(created, 201);
    const entries = await t.database.prisma.auditEntry.findMany({ where: { targetId: created.body.data.id } });
    expect(entries.map((e) => [e.operationId, e.targetType])).to.deep.equal([["createKey", "key"]]);
  });

  it("an idempotent batch whose audit entry fails leaves no course, event, entry or key claim; its retry runs once, the next replays", async () => {
    const existing = await postCourses({ ...course, code: "AUD 0" }, "setup-aud-0");
    await expectContract(existing, 201);
    const batch = [course, { ...course, code: "AUD 0", title: "Audited, renamed" }];
    const before = await counts();
    await withAuditUnavailable(async () => {
      await expectContract(await postCourses(batch, "batch-1"), 500);
    });
    expect(await counts()).to.deep.equal(before);

    const first = await postCourses(batch, "batch-1");
    await expectContract(first, 201);
    expect(first.headers["idempotent-replayed"]).to.equal(undefined);
    const replay = await postCourses(batch, "batch-1");
    await expectContract(replay, 201);
    expect(replay.headers["idempotent-replayed"]).to.equal("true");
    expect(replay.body).to.deep.equal(first.body);

    const ids: string[] = first.body.data.map((r: { id: string }) => r.id);
    const entries = await t.database.prisma.auditEntry.findMany({ where: { targetId: { in: ids } } });
    // One entry per committed version, however many times the batch was sent: AUD 1's creation,
    // and AUD 0's creation (set-up) and its update by the batch.
    const stored = await t.database.prisma.course.findMany({ where: { id: { in: ids } }, orderBy: { code: "asc" } });
    expect(stored.map((row) => [row.code, row.version])).to.deep.equal([
      ["AUD 0", 2],
      ["AUD 1", 1],
    ]);
    for (const row of stored) expect(entries.filter((e) => e.targetId === row.id)).to.have.length(row.version);
    expect(new Set(entries.map((e) => e.operationId))).to.deep.equal(new Set(["upsertCourses"]));
    const after = await counts();
    expect(after.courses - before.courses).to.equal(1);
    // The update of AUD 0 is one course.updated event; the creation has none.
    expect(after.events - before.events).to.equal(1);
  });

  it("a member's role change whose audit entry fails keeps the old role", async () => {
    const invited = await t.app.context.services.users.inviteUser({
      organizationSlug: "acme",
      email: "audited-role@acme.edu",
      role: "viewer",
    });
    const admin = await createUserWithToken(t, "admin");
    await withAuditUnavailable(async () => {
      const refused = await t.http
        .patch(`/api/v1/members/${invited.user.id}`)
        .set(bearer(admin.token))
        .send({ role: "contributor" });
      await expectContract(refused, 500);
    });
    const stored = await t.database.prisma.user.findUniqueOrThrow({ where: { id: invited.user.id } });
    expect(stored.role).to.equal("viewer");
  });
});
