// People through the API: listMembers, inviteMember, issueMemberSignInLink, updateMember, listAuditEvents (admins' user
// tokens only), the role rules for user tokens on every other operation, listOAuthClients,
// createOAuthClient, revokeOAuthClient, and redeliverFailedWebhookDeliveries.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { createUserWithToken, type TestUser } from "../helpers/people.ts";
import { insertEndpoint } from "../helpers/webhooks.ts";
import { newId } from "../../src/kernel/ids.ts";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import { withRefusedWrite } from "../helpers/refused-writes.ts";

describe("people: members, roles, audit log, OAuth clients", () => {
  let t: TestApp;
  let admin: TestUser;
  let contributor: TestUser;
  let viewer: TestUser;

  before(async () => {
    t = await createTestApp();
    admin = await createUserWithToken(t, "admin", { email: "admin@acme.edu" });
    contributor = await createUserWithToken(t, "contributor");
    viewer = await createUserWithToken(t, "viewer");
  });
  after(() => t.close());

  describe("members", () => {
    it("listMembers answers an admin's token with the organization's members, oldest first", async () => {
      const other = await t.otherOrganization("members-other");
      await createUserWithToken(t, "admin", { organizationId: other.id, email: "admin@other.edu" });
      const response = await t.http.get("/api/v1/members").set(bearer(admin.token));
      await expectContract(response, 200);
      const emails = response.body.data.map((m: { email: string }) => m.email);
      expect(emails[0]).to.equal("admin@acme.edu");
      expect(emails).to.include(viewer.email).and.not.include("admin@other.edu");
      expect(response.headers["x-total-count"]).to.equal(String(response.body.pagination.total));
    });

    it("listMembers answers 403 to API keys, and to contributor and viewer tokens", async () => {
      for (const credential of [t.keys.live, contributor.token, viewer.token]) {
        const response = await t.http.get("/api/v1/members").set(bearer(credential));
        await expectContract(response, 403);
        expectProblem(response, "forbidden");
      }
      const byKey = await t.http.get("/api/v1/members").set(bearer(t.keys.live));
      expect(byKey.body.detail).to.contain("not an API key or OAuth client");
    });

    it("listMembers and listAuditEvents answer 403 to an OAuth client's token", async () => {
      const { client, clientSecret } = await t.app.context.services.oauthClients.createOAuthClient({
        organizationId: t.organizationId,
        environment: "live",
      });
      const issued = await t.http
        .post("/oauth/token")
        .auth(client.clientId, clientSecret)
        .type("form")
        .send({ grant_type: "client_credentials" });
      expect(issued.status).to.equal(200);
      for (const path of ["/api/v1/members", "/api/v1/audit-events"]) {
        const response = await t.http.get(path).set(bearer(issued.body.access_token));
        await expectContract(response, 403);
        expect(response.body.detail).to.contain("for people");
      }
    });

    it("inviteMember adds a member and answers a one-time sign-in link that signs them in once", async () => {
      const response = await t.http
        .post("/api/v1/members")
        .set(bearer(admin.token))
        .send({ email: "new.person@acme.edu", role: "contributor" });
      await expectContract(response, 201);
      const { signInUrl, id, role } = response.body.data;
      expect(role).to.equal("contributor");
      const link = new URL(signInUrl);
      expect(link.pathname).to.equal("/dashboard/auth/link");
      // Following the link shows its Sign in button; the button's POST signs in, once.
      const token = link.searchParams.get("token");
      expect((await t.http.get(`${link.pathname}${link.search}`)).status).to.equal(200);
      const signIn = () => t.http.post(link.pathname).set("Sec-Fetch-Site", "same-origin").type("form").send({ token });
      expect((await signIn()).status).to.equal(303);
      expect((await signIn()).status).to.equal(400);
      const stored = await t.database.prisma.user.findUniqueOrThrow({ where: { id } });
      expect(stored.lastSignInAt).to.be.instanceOf(Date);
    });

    it("inviteMember answers 409 with existingId for an email the organization has (any case), 400 for a bad email", async () => {
      const duplicate = await t.http
        .post("/api/v1/members")
        .set(bearer(admin.token))
        .send({ email: "ADMIN@acme.edu", role: "viewer" });
      await expectContract(duplicate, 409);
      expectProblem(duplicate, "conflict");
      expect(duplicate.body.existingId).to.equal(admin.id);
      const bad = await t.http
        .post("/api/v1/members")
        .set(bearer(admin.token))
        .send({ email: "nobody", role: "viewer" });
      await expectContract(bad, 400);
      expect(bad.body.errors[0].pointer).to.equal("/email");
    });

    it("inviteMember writes the member and their link together: a link that cannot be stored leaves no member", async () => {
      // The link's insert fails: before, the member stayed without a link.
      const response = await withRefusedWrite(t.database.prisma, { table: "sign_in_links", on: "INSERT" }, () =>
        t.http
          .post("/api/v1/members")
          .set(bearer(admin.token))
          .send({ email: "half.invited@acme.edu", role: "viewer" }),
      );
      expect(response.status).to.equal(500);
      const stranded = await t.database.prisma.user.findFirst({ where: { email: "half.invited@acme.edu" } });
      expect(stranded).to.equal(null);
      const retried = await t.http
        .post("/api/v1/members")
        .set(bearer(admin.token))
        .send({ email: "half.invited@acme.edu", role: "viewer" });
      await expectContract(retried, 201);
    });

    it("issueMemberSignInLink answers a new one-time link for a member; earlier links stay valid", async () => {
      const invited = await t.http
        .post("/api/v1/members")
        .set(bearer(admin.token))
        .send({ email: "lost.link@acme.edu", role: "contributor" });
      const id = invited.body.data.id as string;
      const response = await t.http.post(`/api/v1/members/${id}/sign-in-link`).set(bearer(admin.token));
      await expectContract(response, 201);
      expect(response.body.data).to.include({ id, email: "lost.link@acme.edu", role: "contributor" });
      const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
      const fresh = tokenOf(response.body.data.signInUrl);
      expect(fresh).to.not.equal(tokenOf(invited.body.data.signInUrl));
      const links = await t.database.prisma.signInLink.findMany({ where: { userId: id } });
      expect(links.map((link) => link.tokenHash).sort()).to.deep.equal(
        [hashApiKey(fresh), hashApiKey(tokenOf(invited.body.data.signInUrl))].sort(),
      );
      expect(links.every((link) => link.usedAt === null && link.expiresAt > new Date())).to.equal(true);
      expect(new Date(response.body.data.signInUrlExpiresAt).getTime()).to.equal(
        links.find((link) => link.tokenHash === hashApiKey(fresh))!.expiresAt.getTime(),
      );
    });

    it("issueMemberSignInLink: 409 for a disabled member, 404 for another organization's, 403 to API keys and contributors", async () => {
      const member = await createUserWithToken(t, "viewer");
      await t.http.patch(`/api/v1/members/${member.id}`).set(bearer(admin.token)).send({ disabled: true });
      const disabled = await t.http.post(`/api/v1/members/${member.id}/sign-in-link`).set(bearer(admin.token));
      await expectContract(disabled, 409);
      expectProblem(disabled, "conflict");
      const other = await t.otherOrganization("links-other");
      const stranger = await createUserWithToken(t, "admin", { organizationId: other.id, email: "admin@links.edu" });
      const foreign = await t.http.post(`/api/v1/members/${stranger.id}/sign-in-link`).set(bearer(admin.token));
      await expectContract(foreign, 404);
      for (const credential of [t.keys.live, contributor.token]) {
        const refused = await t.http.post(`/api/v1/members/${viewer.id}/sign-in-link`).set(bearer(credential));
        await expectContract(refused, 403);
      }
    });

    it("updateMember changes a role at once: the member's token already issued gets the new role's scopes", async () => {
      const member = await createUserWithToken(t, "viewer");
      const write = () =>
        t.http
          .post("/api/v1/keys")
          .set(bearer(member.token))
          .send({ name: "nope", scopes: ["read:public"] });
      await expectContract(await write(), 403);
      const response = await t.http
        .patch(`/api/v1/members/${member.id}`)
        .set(bearer(admin.token))
        .send({ role: "admin" });
      await expectContract(response, 200);
      expect(response.body.data).to.include({ id: member.id, role: "admin", disabled: false });
      // The token carried read:public only: still no write scope, but admin reads now pass.
      await expectContract(await t.http.get("/api/v1/members").set(bearer(member.token)), 200);
    });

    it("updateMember disables a member: their session and tokens end at once; enabling again works", async () => {
      const member = await createUserWithToken(t, "contributor");
      await expectContract(await t.http.get("/api/v1/institutions").set(bearer(member.token)), 200);
      const disabled = await t.http
        .patch(`/api/v1/members/${member.id}`)
        .set(bearer(admin.token))
        .send({ disabled: true });
      await expectContract(disabled, 200);
      expect(disabled.body.data.disabled).to.equal(true);
      const refused = await t.http.get("/api/v1/institutions").set(bearer(member.token));
      await expectContract(refused, 401);
      expect(refused.body.detail).to.contain("session");
      const enabled = await t.http
        .patch(`/api/v1/members/${member.id}`)
        .set(bearer(admin.token))
        .send({ disabled: false });
      await expectContract(enabled, 200);
      expect(enabled.body.data).to.include({ disabled: false, disabledAt: null });
    });

    it("updateMember answers 409 for the last admin, 404 for another organization's member, 400 for an empty change", async () => {
      const lonely = await t.otherOrganization("lonely");
      const soleAdmin = await createUserWithToken(t, "admin", { organizationId: lonely.id, email: "sole@lonely.edu" });
      const demote = await t.http
        .patch(`/api/v1/members/${soleAdmin.id}`)
        .set(bearer(soleAdmin.token))
        .send({ role: "viewer" });
      await expectContract(demote, 409);
      expect(demote.body.detail).to.contain("last admin");
      const foreign = await t.http
        .patch(`/api/v1/members/${soleAdmin.id}`)
        .set(bearer(admin.token))
        .send({ role: "viewer" });
      await expectContract(foreign, 404);
      const empty = await t.http.patch(`/api/v1/members/${viewer.id}`).set(bearer(admin.token)).send({});
      await expectContract(empty, 400);
    });
  });

  describe("roles on the rest of the API", () => {
    it("a viewer's token reads but cannot write (403 for the missing scope)", async () => {
      await expectContract(await t.http.get("/api/v1/institutions").set(bearer(viewer.token)), 200);
      const write = await t.http
        .post("/api/v1/courses")
        .set(bearer(viewer.token))
        .send({ institutionId: "inst_1", code: "X 1", title: "X", credits: 3, level: "lower" });
      await expectContract(write, 403);
      expect(write.body.detail).to.contain("write:contribute");
    });

    it("a contributor's token writes records but gets 403 on key, OAuth client and webhook management", async () => {
      const me = await t.http.get("/api/v1/organizations/me").set(bearer(contributor.token));
      await expectContract(me, 200);
      expect(me.body.data.credential).to.deep.equal({ id: contributor.id, kind: "user" });
      expect(me.body.data.scopes).to.have.members(["read:public", "write:contribute"]);
      for (const [method, path] of [
        ["get", "/api/v1/keys"],
        ["post", "/api/v1/keys"],
        ["get", "/api/v1/oauth-clients"],
        ["post", "/api/v1/oauth-clients"],
        ["get", "/api/v1/webhooks"],
      ] as const) {
        const response = await t.http[method](path).set(bearer(contributor.token));
        await expectContract(response, 403);
        expect(response.body.detail).to.contain("admin role");
      }
    });

    it("an admin's token manages keys and webhooks", async () => {
      const key = await t.http.post("/api/v1/keys").set(bearer(admin.token)).send({ name: "from the dashboard" });
      await expectContract(key, 201);
      await expectContract(await t.http.get("/api/v1/webhooks").set(bearer(admin.token)), 200);
    });

    it("a user's token reads only its environment: a sandbox token sees the sandbox", async () => {
      const sandbox = await createUserWithToken(t, "viewer", { environment: "sandbox" });
      const me = await t.http.get("/api/v1/organizations/me").set(bearer(sandbox.token));
      await expectContract(me, 200);
      expect(me.body.data.environment).to.equal("sandbox");
    });
  });

  describe("OAuth clients", () => {
    it("createOAuthClient shows the secret once; the client gets tokens; listOAuthClients never shows it", async () => {
      const created = await t.http.post("/api/v1/oauth-clients").set(bearer(t.keys.live)).send({ name: "nightly" });
      await expectContract(created, 201);
      const { clientId, clientSecret, scopes, environment } = created.body.data;
      expect(clientSecret).to.match(/^svcsec_/);
      expect(environment).to.equal("live");
      expect(scopes).to.have.members(["read:public", "write:contribute"]);
      const token = await t.http
        .post("/oauth/token")
        .auth(clientId, clientSecret)
        .type("form")
        .send({ grant_type: "client_credentials" });
      expect(token.status).to.equal(200);
      const listing = await t.http.get("/api/v1/oauth-clients").set(bearer(admin.token));
      await expectContract(listing, 200);
      expect(listing.body.data.map((c: { id: string }) => c.id)).to.include(clientId);
      expect(JSON.stringify(listing.body)).to.not.contain(clientSecret);
    });

    it("createOAuthClient refuses a scope the caller does not hold (403)", async () => {
      const response = await t.http
        .post("/api/v1/oauth-clients")
        .set(bearer(t.keys.liveReadOnly))
        .send({ scopes: ["write:contribute"] });
      await expectContract(response, 403);
    });

    it("revokeOAuthClient revokes at once (twice is 204 too); another organization's client is 404", async () => {
      const created = await t.http.post("/api/v1/oauth-clients").set(bearer(admin.token)).send({});
      await expectContract(created, 201);
      const { id, clientSecret } = created.body.data;
      await expectContract(await t.http.delete(`/api/v1/oauth-clients/${id}`).set(bearer(admin.token)), 204);
      await expectContract(await t.http.delete(`/api/v1/oauth-clients/${id}`).set(bearer(t.keys.live)), 204);
      const token = await t.http
        .post("/oauth/token")
        .auth(id, clientSecret)
        .type("form")
        .send({ grant_type: "client_credentials" });
      expect(token.status).to.equal(401);
      const other = await t.otherOrganization("clients-other");
      await expectContract(await t.http.delete(`/api/v1/oauth-clients/${id}`).set(bearer(other.key)), 404);
    });
  });

  describe("redeliverFailedWebhookDeliveries", () => {
    it("queues one new attempt per event whose latest attempt failed since the time, and answers the count", async () => {
      const endpoint = await insertEndpoint(t.database.prisma, t.secrets, {
        organizationId: t.organizationId,
        url: "http://127.0.0.1:9/hook",
        events: ["course.updated"],
      });
      const at = (iso: string) => new Date(iso);
      const delivery = (eventId: string, attempt: number, status: "failed" | "succeeded", createdAt: string) => ({
        id: newId("dlv"),
        webhookId: endpoint.id,
        eventId,
        eventType: "course.updated",
        attempt,
        status,
        requestBody: `{"id":"${eventId}"}`,
        createdAt: at(createdAt),
      });
      await t.database.prisma.webhookDelivery.createMany({
        data: [
          delivery("evt_old", 1, "failed", "2025-01-01T00:00:00Z"),
          delivery("evt_a", 1, "failed", "2025-02-01T00:00:00Z"),
          delivery("evt_a", 2, "failed", "2025-02-01T01:00:00Z"),
          delivery("evt_b", 1, "failed", "2025-02-02T00:00:00Z"),
          delivery("evt_ok", 1, "failed", "2025-02-03T00:00:00Z"),
          delivery("evt_ok", 2, "succeeded", "2025-02-03T01:00:00Z"),
        ],
      });
      const response = await t.http
        .post(`/api/v1/webhooks/${endpoint.id}/deliveries/redeliver-failed`)
        .set(bearer(admin.token))
        .send({ since: "2025-01-15T00:00:00Z" });
      await expectContract(response, 202);
      expect(response.body).to.deep.equal({ count: 2 });
      const pending = await t.database.prisma.webhookDelivery.findMany({
        where: { webhookId: endpoint.id, status: "pending" },
        orderBy: { eventId: "asc" },
      });
      expect(pending.map((d) => [d.eventId, d.attempt])).to.deep.equal([
        ["evt_a", 3],
        ["evt_b", 2],
      ]);
      const again = await t.http
        .post(`/api/v1/webhooks/${endpoint.id}/deliveries/redeliver-failed`)
        .set(bearer(t.keys.live))
        .send({ since: "2025-01-15T00:00:00Z" });
      await expectContract(again, 202);
      expect(again.body.count).to.equal(0);
    });
  });

  describe("audit log", () => {
    it("listAuditEvents shows every change by any credential, newest first, with actor, target and request id", async () => {
      const byKey = await t.http.post("/api/v1/keys").set(bearer(t.keys.live)).set("X-Request-Id", "req-audit-1").send({
        name: "audited",
      });
      await expectContract(byKey, 201);
      const byUser = await t.http
        .patch(`/api/v1/members/${viewer.id}`)
        .set(bearer(admin.token))
        .set("X-Request-Id", "req-audit-2")
        .send({ role: "viewer" });
      await expectContract(byUser, 200);
      const response = await t.http.get("/api/v1/audit-events?limit=2").set(bearer(admin.token));
      await expectContract(response, 200);
      const [latest, previous] = response.body.data;
      expect(latest).to.deep.include({
        operationId: "updateMember",
        target: { type: "member", id: viewer.id },
        environment: "live",
        clientRequestId: "req-audit-2",
      });
      // The service's own id of the request (its logs' serviceRequestId), which no client chooses.
      expect(latest.requestId).to.match(/^req_/);
      const adminName = (await t.database.prisma.user.findUniqueOrThrow({ where: { id: admin.id } })).name;
      expect(latest.actor).to.deep.equal({ kind: "user", id: admin.id, displayName: adminName });
      expect(previous).to.deep.include({
        operationId: "createKey",
        target: { type: "key", id: byKey.body.data.id },
        clientRequestId: "req-audit-1",
      });
      // A key is named by its current name, read with the log.
      expect(previous.actor).to.include({ kind: "api_key", displayName: "live test key" });
    });

    it("listAuditEvents filters by operationId, actorId and since; reads nothing of another organization", async () => {
      const onlyKeys = await t.http.get("/api/v1/audit-events?operationId=createKey").set(bearer(admin.token));
      await expectContract(onlyKeys, 200);
      expect(onlyKeys.body.data.length).to.be.greaterThan(0);
      expect(new Set(onlyKeys.body.data.map((e: { operationId: string }) => e.operationId))).to.deep.equal(
        new Set(["createKey"]),
      );
      const byAdmin = await t.http.get(`/api/v1/audit-events?actorId=${admin.id}`).set(bearer(admin.token));
      expect(byAdmin.body.data.every((e: { actor: { id: string } }) => e.actor.id === admin.id)).to.equal(true);
      const future = await t.http.get("/api/v1/audit-events?since=2999-01-01T00:00:00Z").set(bearer(admin.token));
      await expectContract(future, 200);
      expect(future.body.data).to.deep.equal([]);
      const other = await t.otherOrganization("audit-other");
      const otherAdmin = await createUserWithToken(t, "admin", {
        organizationId: other.id,
        email: "a@audit-other.edu",
      });
      const theirs = await t.http.get("/api/v1/audit-events").set(bearer(otherAdmin.token));
      await expectContract(theirs, 200);
      // Only their own organization's entry: their admin, created at a (federated) sign-in.
      expect(
        theirs.body.data.map((e: { operationId: string; target: { id: string } }) => [e.operationId, e.target.id]),
      ).to.deep.equal([["signIn", otherAdmin.id]]);
    });

    it("records no entry for reads, refused writes or dry runs; refuses API keys (403)", async () => {
      const count = () => t.database.prisma.auditEntry.count({ where: { organizationId: t.organizationId } });
      const before = await count();
      await t.http.get("/api/v1/keys").set(bearer(t.keys.live));
      await t.http
        .post("/api/v1/keys")
        .set(bearer(t.keys.liveReadOnly))
        .send({ scopes: ["write:contribute"] });
      await t.http
        .post("/api/v1/courses?dryRun=true")
        .set(bearer(t.keys.live))
        .send({ institutionId: "inst_unknown", code: "X 1", title: "X", credits: 3, level: "lower" });
      expect(await count()).to.equal(before);
      const byKey = await t.http.get("/api/v1/audit-events").set(bearer(t.keys.live));
      await expectContract(byKey, 403);
    });

    it("the database refuses to change or delete an audit entry", async () => {
      const entry = await t.database.prisma.auditEntry.findFirstOrThrow();
      let error: unknown;
      try {
        await t.database.prisma.auditEntry.delete({ where: { id: entry.id } });
      } catch (caught) {
        error = caught;
      }
      expect(String(error)).to.contain("append-only");
    });
  });
});
