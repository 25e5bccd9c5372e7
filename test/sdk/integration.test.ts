// The SDK against the real app on a real port: API key and OAuth, writes,
// versions, paging across pages and typed errors.
import { expect } from "chai";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { COURSES, INSTITUTIONS, loadInstitutions } from "../helpers/fixtures.ts";
import { serve } from "./serve.ts";
import {
  ConflictError,
  createClient,
  NotFoundError,
  NotStewardError,
  PermissionError,
  PreconditionFailedError,
  ValidationError,
  type CourseEquivalencyClient,
} from "../../sdk/src/index.ts";

describe("SDK against the running app", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serve>>;
  let baseUrl: string;
  let client: CourseEquivalencyClient;

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    served = await serve(t);
    baseUrl = served.baseUrl;
    client = createClient({ baseUrl, apiKey: t.keys.live });
  });
  after(async () => {
    await served.close();
    await t.close();
  });

  it("lists and gets institutions", async () => {
    const page = await client.institutions.list({ state: "ca" });
    expect(page.pagination.total).to.equal(INSTITUTIONS.filter((i) => i.state === "CA").length);
    expect(page.data.map((i) => i.state)).to.satisfy((states: string[]) => states.every((s) => s === "CA"));
    const berkeley = await client.institutions.get("inst_110635");
    expect(berkeley).to.include({ ipedsId: "110635", name: "University of California-Berkeley" });
  });

  it("iterates a list across pages, in the list's order", async () => {
    const names: string[] = [];
    for await (const institution of client.institutions.list({ limit: 2 })) names.push(institution.name);
    expect(names).to.deep.equal(INSTITUTIONS.map((i) => i.name).sort());
    const pages: number[] = [];
    for await (const page of client.institutions.list({ limit: 4 }).pages()) pages.push(page.pagination.returned);
    expect(pages).to.deep.equal([4, 2]);
  });

  it("upserts courses, creates and updates an equivalency and reads its versions", async () => {
    const upserted = await client.courses.upsert([COURSES["CS 55"], COURSES["CS 61B"]], {
      idempotencyKey: "sdk-upsert-1",
    });
    expect(upserted.summary).to.include({ received: 2, created: 2 });
    const [source, target] = upserted.data.map((result) => result.id!);
    expect((await client.courses.get(source)).code).to.equal("CS 55");
    const courses = await client.courses.list({ institution: "inst_110635" }).all();
    expect(courses.map((c) => c.id)).to.deep.equal([target]);

    const created = await client.equivalencies.create({
      sourceCourseId: source,
      targetInstitutionId: "inst_110635",
      targetCourseId: target,
    });
    expect(created).to.include({ status: "pending", version: 1 });
    const updated = await client.equivalencies.update(
      created.id,
      { status: "accepted", note: "reviewed" },
      { ifMatch: `"${created.id}.v1"` },
    );
    expect(updated).to.include({ status: "accepted", version: 2 });

    const history = await client.equivalencies.versions(created.id);
    expect(history.data.current.version).to.equal(2);
    expect(history.data.versions.map((v) => v.version)).to.deep.equal([2, 1]);
    expect(history.data.versions[0].changeNote).to.equal("reviewed");
    const older = await client.equivalencies.versions(created.id, { limit: 1 });
    expect(older.pagination).to.include({ total: 2, returned: 1 });
    const rest = await client.equivalencies.versions(created.id, { limit: 1, after: older.pagination.nextCursor! });
    expect(rest.data.versions.map((v) => v.version)).to.deep.equal([1]);
    expect((await client.equivalencies.version(created.id, 1)).state.status).to.equal("pending");

    const accepted: string[] = [];
    for await (const e of client.equivalencies.list({ status: "accepted" })) accepted.push(e.id);
    expect(accepted).to.deep.equal([created.id]);

    const stale = await client.equivalencies
      .update(created.id, { status: "conflict" }, { ifMatch: `"${created.id}.v1"` })
      .catch((e) => e);
    expect(stale).to.be.instanceOf(PreconditionFailedError);
    const duplicate = await client.equivalencies
      .create({ sourceCourseId: source, targetInstitutionId: "inst_110635", targetCourseId: target })
      .catch((e) => e);
    expect(duplicate).to.be.instanceOf(ConflictError).and.to.include({ existingId: created.id, code: "conflict" });
    // A contradiction of the accepted rule: its problem's extension is a typed member of the error.
    const ambiguous = await client.equivalencies
      .create({
        sourceCourseIds: [source],
        targetInstitutionId: "inst_110635",
        targets: [{ code: "CS 9XX" }],
        kind: "elective",
        status: "accepted",
      })
      .catch((e: unknown) => e);
    expect(ambiguous).to.be.instanceOf(ConflictError);
    const conflict = ambiguous as ConflictError;
    expect(conflict.code).to.equal("ambiguous-rule");
    const named: string[] | undefined = conflict.conflictingEquivalencyIds;
    expect(named).to.deep.equal([created.id]);
  });

  it("throws a typed NotFoundError and ValidationError", async () => {
    const missing = await client.institutions.get("inst_000000").catch((e) => e);
    expect(missing).to.be.instanceOf(NotFoundError);
    expect(missing).to.include({ status: 404, code: "not-found" });
    expect(missing.requestId).to.be.a("string").and.not.equal("");

    const invalid = await client.courses
      .upsert({ institutionId: "inst_000000", code: "X 1", title: "X", credits: 3, level: "lower" })
      .catch((e) => e);
    expect(invalid).to.be.instanceOf(ValidationError);
    expect(invalid.errors.map((e: { pointer: string }) => e.pointer)).to.include("/institutionId");

    const badLimit = await client.institutions.list({ limit: 1000 }).then(
      () => null,
      (e) => e,
    );
    expect(badLimit).to.be.instanceOf(ValidationError);
    expect(badLimit.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/query/limit"]);
  });

  it("reads the caller's organization and stewardship, and types a write outside it as NotStewardError", async () => {
    const me = await client.organizations.me({ limit: 10 });
    expect(me.data.organization.slug).to.equal("acme");
    expect(me.data.stewardship.allInstitutions).to.equal(true);
    expect(me.pagination.limit).to.equal(10);

    const outsider = await t.otherOrganization("sdk-outsider");
    const other = createClient({ baseUrl, apiKey: outsider.key });
    const refused = await other.courses
      .upsert({ institutionId: "inst_110635", code: "X 1", title: "X", credits: 3, level: "lower" })
      .catch((e) => e);
    expect(refused).to.be.instanceOf(NotStewardError).and.instanceOf(PermissionError);
    expect(refused).to.include({ status: 403, code: "not-steward", institutionId: "inst_110635" });
    expect(refused.errors).to.deep.equal([
      { pointer: "/institutionId", message: "the organization does not steward inst_110635" },
    ]);
  });

  it("creates and revokes an API key", async () => {
    const key = await client.keys.create({ name: "sdk test", scopes: ["read:public"] });
    expect(key.key).to.match(/^svc_live_/);
    const withNewKey = createClient({ baseUrl, apiKey: key.key });
    expect((await withNewKey.institutions.get("inst_110635")).id).to.equal("inst_110635");
    await client.keys.revoke(key.id);
    expect(await withNewKey.institutions.get("inst_110635").catch((e) => e.name)).to.equal("AuthenticationError");
  });

  it("authenticates with OAuth client credentials from the origin's token endpoint", async () => {
    const created = await t.app.context.services.oauthClients.createOAuthClient({
      organizationId: t.organizationId,
      environment: "live",
      name: "sdk",
    });
    const machine = createClient({
      baseUrl,
      oauth: { clientId: created.client.clientId, clientSecret: created.clientSecret, scope: "read:public" },
    });
    expect((await machine.institutions.list({ limit: 1 })).pagination.total).to.equal(INSTITUTIONS.length);
    const write = await machine.keys.create({ name: "not allowed" }).catch((e) => e);
    expect(write.name).to.equal("PermissionError");
    const wrong = createClient({ baseUrl, oauth: { clientId: created.client.clientId, clientSecret: "wrong" } });
    expect(await wrong.institutions.get("inst_110635").catch((e) => e.name)).to.equal("AuthenticationError");
  });
});
