// An open event stream holds its credential to account: revocation ends it at once (in this process
// and, through the database's notices, in every other), a token's `exp`, a disabled user and the
// maximum lifetime end it with a last `stream-closed` message; the public sandbox key's streams
// count per client address. Time is driven through recheckStreams(at), never waited for.
import { expect } from "chai";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { createUserWithToken } from "../helpers/people.ts";
import { readStream, type SseMessage } from "../helpers/sse.ts";

const PUBLIC_KEY = "svc_sandbox_public_read_only_demo_key_2026_0000000000";

interface Closed {
  reason: string;
  reconnect: boolean;
  detail: string;
}

/** The stream's `stream-closed` message: the last one, without an id. */
function closedMessage(messages: SseMessage[]): Closed {
  const last = messages.at(-1);
  expect(last?.event, JSON.stringify(messages)).to.equal("stream-closed");
  expect(last?.id).to.equal(undefined);
  return JSON.parse(last!.data!) as Closed;
}

describe("event streams hold their credential to account (GET /events/stream)", () => {
  let t: TestApp;

  beforeEach(async () => {
    t = await createTestApp({ SVC_EVENTS_KEEPALIVE_SECONDS: "3600", SVC_TRUST_PROXY: "true" });
  });
  afterEach(() => t.close());

  /**
   * Opens a stream and, once it has begun (its `retry:` came), runs `then`; answers when the server
   * ended the stream, with every message received.
   */
  async function streamUntilEnded(
    headers: Record<string, string>,
    then: () => Promise<unknown>,
    http: Pick<TestApp, "http"> = t,
    app: { closeStreams(): Promise<void> } = t.app,
  ) {
    let begun = false;
    let action: Promise<unknown> = Promise.resolve();
    const stream = await readStream(
      http,
      app,
      "/api/v1/events/stream",
      { Accept: "text/event-stream", ...headers },
      () => false,
      () => {
        if (begun) return;
        begun = true;
        action = then();
      },
    );
    await action;
    await expectContract(stream.response, 200);
    return stream;
  }

  async function newKey(): Promise<{ id: string; key: string }> {
    const { view, key } = await t.app.context.services.keys.issueKey({
      organizationId: t.organizationId,
      environment: "live",
      scopes: ["read:public"],
    });
    return { id: view.id, key };
  }

  it("streamEvents: revoking the API key (revokeKey) ends its open stream at once, and reconnecting is 401", async () => {
    const { id, key } = await newKey();
    const admin = await createUserWithToken(t, "admin");
    const { messages } = await streamUntilEnded(bearer(key), async () => {
      const revoked = await t.http.delete(`/api/v1/keys/${id}`).set(bearer(admin.token));
      expect(revoked.status, JSON.stringify(revoked.body)).to.equal(204);
    });
    const closed = closedMessage(messages);
    expect(closed).to.include({ reason: "credential-revoked", reconnect: false });
    const again = await t.http.get("/api/v1/events/stream").set({ ...bearer(key), Accept: "text/event-stream" });
    await expectContract(again, 401);
  });

  it("streamEvents: a revocation committed by another process ends the stream in this one (revokeKey)", async () => {
    const other = await createApp({
      config: t.config,
      database: t.database,
      log: createLogger("silent"),
      secrets: t.secrets,
      validateResponses: true,
    });
    try {
      const http = (await import("supertest")).default(other.koa.callback());
      const { id, key } = await newKey();
      const admin = await createUserWithToken(t, "admin");
      const { messages } = await streamUntilEnded(
        bearer(key),
        async () => {
          // The revocation is made through the first app; the stream is held by the second.
          const revoked = await t.http.delete(`/api/v1/keys/${id}`).set(bearer(admin.token));
          expect(revoked.status).to.equal(204);
          // PostgreSQL's NOTIFY reaches the second process by itself; the embedded database runs in
          // one process and sends none, so there its next check (each keep-alive) finds the revocation.
          if (t.database.kind === "embedded") await other.context.services.events.recheckStreams();
        },
        { http },
        other,
      );
      expect(closedMessage(messages)).to.include({ reason: "credential-revoked", reconnect: false });
    } finally {
      await other.close();
    }
  });

  it("streamEvents: a revoked OAuth client's stream ends at once (revokeOAuthClient)", async () => {
    const created = await t.app.context.services.oauthClients.createOAuthClient({
      organizationId: t.organizationId,
      environment: "live",
      scopes: ["read:public"],
    });
    const token = await t.http
      .post("/oauth/token")
      .type("form")
      .auth(created.client.clientId, created.clientSecret)
      .send({ grant_type: "client_credentials" });
    expect(token.status, JSON.stringify(token.body)).to.equal(200);
    const admin = await createUserWithToken(t, "admin");
    const { messages } = await streamUntilEnded(bearer(token.body.access_token), async () => {
      const revoked = await t.http.delete(`/api/v1/oauth-clients/${created.client.id}`).set(bearer(admin.token));
      expect(revoked.status, JSON.stringify(revoked.body)).to.be.oneOf([200, 204]);
    });
    expect(closedMessage(messages)).to.include({ reason: "credential-revoked", reconnect: false });
  });

  it("streamEvents: a token past its exp ends the stream (credential-expired, reconnect with a fresh token)", async () => {
    const viewer = await createUserWithToken(t, "viewer");
    const { exp } = JSON.parse(Buffer.from(viewer.token.split(".")[1], "base64url").toString()) as { exp: number };
    const { messages } = await streamUntilEnded(bearer(viewer.token), async () => {
      // A moment before exp the stream stays; at exp it ends.
      await t.app.context.services.events.recheckStreams(new Date(exp * 1000 - 1));
      await t.app.context.services.events.recheckStreams(new Date(exp * 1000));
    });
    expect(messages.filter((m) => m.event === "stream-closed")).to.have.length(1);
    expect(closedMessage(messages)).to.include({ reason: "credential-expired", reconnect: true });
  });

  it("streamEvents: disabling the user (updateMember) ends their stream at once", async () => {
    const viewer = await createUserWithToken(t, "viewer");
    const admin = await createUserWithToken(t, "admin");
    const { messages } = await streamUntilEnded(bearer(viewer.token), async () => {
      const disabled = await t.http
        .patch(`/api/v1/members/${viewer.id}`)
        .set(bearer(admin.token))
        .send({ disabled: true });
      expect(disabled.status, JSON.stringify(disabled.body)).to.equal(200);
    });
    expect(closedMessage(messages)).to.include({ reason: "credential-revoked", reconnect: false });
  });

  it("streamEvents: a dashboard session that ended is found at the stream's next check", async () => {
    const viewer = await createUserWithToken(t, "viewer");
    const { messages } = await streamUntilEnded(bearer(viewer.token), async () => {
      await t.app.context.services.dashboardSessions.endSession(viewer.sessionId);
      await t.app.context.services.events.recheckStreams();
    });
    expect(closedMessage(messages)).to.include({ reason: "credential-revoked", reconnect: false });
  });

  it("streamEvents: a stream ends at its maximum lifetime and resumes with Last-Event-ID", async () => {
    const { key } = await newKey();
    const opened = Date.now();
    const { messages } = await streamUntilEnded(bearer(key), async () => {
      // Still a valid key, one millisecond short of the hour: nothing ends.
      await t.app.context.services.events.recheckStreams(new Date(opened + t.config.events.maxStreamMs - 1_000));
      await t.app.context.services.events.recheckStreams(new Date(opened + t.config.events.maxStreamMs + 1_000));
    });
    expect(t.config.events.maxStreamMs).to.equal(3_600_000);
    expect(closedMessage(messages)).to.include({ reason: "max-lifetime", reconnect: true });
    // The credential is still good: the same request is served again.
    const cursor = (await t.http.get("/api/v1/events").set(bearer(key))).body.pagination.nextCursor as string;
    const { messages: resumed } = await streamUntilEnded({ ...bearer(key), "Last-Event-ID": cursor }, () =>
      t.app.context.services.events.recheckStreams(new Date(Date.now() + t.config.events.maxStreamMs)),
    );
    expect(resumed[0].retry).to.be.a("number");
  });

  it("streamEvents: the public sandbox key's streams count per client address, not as one pool (429 per address)", async () => {
    const from = (address: string) => ({ ...bearer(PUBLIC_KEY), "X-Forwarded-For": address });
    // Two streams from one address (its limit), then a third is refused...
    const begun: Promise<void>[] = [];
    const held = ["203.0.113.7", "203.0.113.7"].map((address) => {
      let started!: () => void;
      begun.push(new Promise<void>((resolve) => (started = resolve)));
      return readStream(
        t,
        t.app,
        "/api/v1/events/stream",
        { ...from(address), Accept: "text/event-stream" },
        () => false,
        started,
      );
    });
    await Promise.all(begun);
    const refused = await t.http
      .get("/api/v1/events/stream")
      .set({ ...from("203.0.113.7"), Accept: "text/event-stream" });
    await expectContract(refused, 429);
    expect(refused.body.type).to.match(/too-many-streams$/);
    expect(refused.body.detail).to.match(/client address/);
    // ...while six other addresses, more than the organization's five, are each served.
    const others: Promise<void>[] = [];
    const served = [1, 2, 3, 4, 5, 6].map((n) => {
      let started!: () => void;
      others.push(new Promise<void>((resolve) => (started = resolve)));
      return readStream(
        t,
        t.app,
        "/api/v1/events/stream",
        { ...from(`198.51.100.${n}`), Accept: "text/event-stream" },
        () => false,
        started,
      );
    });
    await Promise.all(others);
    await t.app.closeStreams();
    for (const stream of await Promise.all([...held, ...served])) await expectContract(stream.response, 200);
  });
});
