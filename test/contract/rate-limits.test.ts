// Abuse limits over HTTP: POST /oauth/token and failed authentications are
// throttled per client address, each organization has one bucket per
// environment whatever the number of its keys, and the public sandbox key's
// bucket is kept per client address. Client addresses come from
// X-Forwarded-For with SVC_TRUST_PROXY=true (the last entry: the one the
// nearest proxy added); every bucket here refills one token per 1000 s.
import { expect } from "chai";
import type { Response } from "supertest";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import { DEFAULT_PUBLIC_SANDBOX_KEY } from "../../src/kernel/config.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";

const SLOW = "0.001";

function expectRefused(response: Response, limit: string, retryAfter = "1000") {
  expectProblem(response, "rate-limited");
  expect(response.headers).to.include({
    "retry-after": retryAfter,
    "x-ratelimit-limit": limit,
    "x-ratelimit-remaining": "0",
  });
}

describe("rate limits: POST /oauth/token per client address", () => {
  let t: TestApp;
  let basic: string;
  before(async () => {
    t = await createTestApp({
      SVC_TOKEN_ENDPOINT_BURST: "2",
      SVC_TOKEN_ENDPOINT_REFILL_PER_SECOND: SLOW,
      SVC_TRUST_PROXY: "true",
    });
    const { client, clientSecret } = await t.app.context.services.oauthClients.createOAuthClient({
      organizationId: t.organizationId,
      environment: "live",
    });
    basic = `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString("base64")}`;
  });
  after(() => t.close());

  const token = (address: string) =>
    t.http
      .post("/oauth/token")
      .type("form")
      .set("Authorization", basic)
      .set("X-Forwarded-For", address)
      .send({ grant_type: "client_credentials" });

  it("answers 429 with Retry-After once an address has spent its bucket, whatever the outcome of its requests", async () => {
    const first = await token("198.51.100.1");
    expect(first.status).to.equal(200);
    expect(first.headers).to.include({ "x-ratelimit-limit": "2", "x-ratelimit-remaining": "1" });
    const wrongSecret = await t.http
      .post("/oauth/token")
      .type("form")
      .set("X-Forwarded-For", "198.51.100.1")
      .send({ grant_type: "client_credentials", client_id: "oac_unknown", client_secret: "guess" });
    expect(wrongSecret.status).to.equal(401);
    const flooded = await token("198.51.100.1");
    expect(flooded.status).to.equal(429);
    expectRefused(flooded, "2");
    expect(flooded.body.detail).to.equal("Too many requests for tokens from this address; retry in 1000 s.");
  });

  it("keeps a bucket per address: another client is not slowed", async () => {
    expect((await token("198.51.100.2")).status).to.equal(200);
    // Only the entry the nearest proxy added counts: a client cannot pick its address.
    const spoofed = await token("198.51.100.3, 198.51.100.1");
    expect(spoofed.status).to.equal(429);
  });
});

describe("rate limits: the dashboard's sign-in routes per client address", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_SIGN_IN_BURST: "3", SVC_SIGN_IN_REFILL_PER_SECOND: SLOW, SVC_TRUST_PROXY: "true" });
  });
  after(() => t.close());

  const start = (address: string) =>
    t.http.post("/dashboard/auth/start").set("X-Forwarded-For", address).send({ email: "ada@nowhere.example.edu" });

  it("answers 429 problems with Retry-After once an address has spent its bucket on start, links and callbacks alike", async () => {
    expect((await start("192.0.2.1")).status).to.equal(404);
    const link = await t.http
      .get("/dashboard/auth/link?token=guessguessguessguessguess")
      .set("X-Forwarded-For", "192.0.2.1");
    expect(link.status).to.equal(400);
    const acs = await t.http.post("/dashboard/auth/saml/acs").set("X-Forwarded-For", "192.0.2.1").type("form").send({});
    expect(acs.status).to.equal(400);
    for (const refused of [
      await start("192.0.2.1"),
      await t.http.get("/dashboard/auth/oidc/callback?state=x&code=y").set("X-Forwarded-For", "192.0.2.1"),
    ]) {
      expect(refused.status).to.equal(429);
      expectRefused(refused, "3");
      expect(refused.headers["content-type"]).to.match(/^application\/problem\+json/);
      expect(refused.body.detail).to.equal("Too many requests to sign in from this address; retry in 1000 s.");
    }
    // Nothing was stored for the refused start.
    expect(await t.database.prisma.ssoSignInState.count()).to.equal(0);
  });

  it("keeps a bucket per address, and leaves the API's buckets alone", async () => {
    expect((await start("192.0.2.2")).status).to.equal(404);
    await expectContract(
      await t.http.get("/api/v1/institutions").set(bearer(t.keys.live)).set("X-Forwarded-For", "192.0.2.1"),
      200,
    );
  });
});

describe("rate limits: failed authentications per client address", () => {
  let t: TestApp;
  let revoked: string;
  before(async () => {
    t = await createTestApp({
      SVC_AUTH_FAILURE_BURST: "3",
      SVC_AUTH_FAILURE_REFILL_PER_SECOND: SLOW,
      SVC_RATE_LIMIT_REFILL_PER_SECOND: SLOW,
      SVC_TRUST_PROXY: "true",
    });
    revoked = await t.keyFor(t.organizationId, "live");
    await t.database.prisma.apiKey.update({ where: { hash: hashApiKey(revoked) }, data: { revokedAt: new Date() } });
  });
  after(() => t.close());

  const get = (address: string, key?: string) => {
    const request = t.http.get("/api/v1/institutions").set("X-Forwarded-For", address);
    return key === undefined ? request : request.set("Authorization", `Bearer ${key}`);
  };

  it("counts only failures: successful requests and requests without a credential draw nothing", async () => {
    for (let i = 0; i < 5; i++) await expectContract(await get("203.0.113.1", t.keys.live), 200);
    for (let i = 0; i < 5; i++) await expectContract(await get("203.0.113.1"), 401);
  });

  it("answers 401 to unknown, malformed and revoked credentials, then 429 to every request from that address without a valid credential", async () => {
    await expectContract(await get("203.0.113.1", "svc_live_unknownunknownunknownunknownunknown00"), 401);
    await expectContract(await get("203.0.113.1", "not-a-key"), 401);
    const revokedAnswer = await get("203.0.113.1", revoked);
    await expectContract(revokedAnswer, 401);
    expect(revokedAnswer.body.detail).to.contain("revoked");

    const stuffing = await get("203.0.113.1", "svc_live_anotherguessanotherguessanotherguess0");
    await expectContract(stuffing, 429);
    expectRefused(stuffing, "3");
    expect(stuffing.body.detail).to.equal(
      "Too many requests with failed authentication from this address; retry in 1000 s.",
    );
    const anonymous = await get("203.0.113.1");
    await expectContract(anonymous, 429);
    expectRefused(anonymous, "3");
  });

  it("serves a valid credential from a blocked address, counted in its own buckets (a NAT's other clients are not locked out)", async () => {
    await expectContract(await get("203.0.113.1", "not-a-key"), 429);
    const before = Number((await get("203.0.113.1", t.keys.live)).headers["x-ratelimit-remaining"]);
    const valid = await get("203.0.113.1", t.keys.live);
    await expectContract(valid, 200);
    expect(valid.headers["x-ratelimit-limit"]).to.equal("600");
    expect(Number(valid.headers["x-ratelimit-remaining"])).to.equal(before - 1);
    expect(valid.headers["retry-after"]).to.equal(undefined);
    // The address stays blocked for everything else.
    await expectContract(await get("203.0.113.1", "svc_live_yetanotherguessyetanotherguessyetanot"), 429);
  });

  it("leaves other addresses alone", async () => {
    await expectContract(await get("203.0.113.2", t.keys.live), 200);
    await expectContract(await get("203.0.113.2", "not-a-key"), 401);
  });
});

describe("rate limits: one bucket per organization and environment", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_RATE_LIMIT_ORG_BURST: "3", SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: SLOW });
  });
  after(() => t.close());

  it("is shared by the organization's keys, so more keys do not mean more requests", async () => {
    const first = await t.http.get("/api/v1/institutions").set(bearer(t.keys.live));
    // The credential's bucket (600) has more left than the organization's (3): the headers report the tighter.
    expect(first.headers).to.include({ "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2" });
    await t.http.get("/api/v1/institutions").set(bearer(t.keys.liveReadOnly));
    const minted = await t.keyFor(t.organizationId, "live");
    await expectContract(await t.http.get("/api/v1/institutions").set(bearer(minted)), 200);
    const refused = await t.http.get("/api/v1/institutions").set(bearer(t.keys.live));
    await expectContract(refused, 429);
    expectRefused(refused, "3");
    expect(refused.body.detail).to.equal("Too many requests for this organization in live; retry in 1000 s.");
  });

  it("is kept per environment and per organization", async () => {
    await expectContract(await t.http.get("/api/v1/institutions").set(bearer(t.keys.sandbox)), 200);
    const other = await t.otherOrganization("other-org");
    await expectContract(await t.http.get("/api/v1/institutions").set(bearer(other.key)), 200);
  });
});

describe("rate limits: the public sandbox key per client address", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({
      SVC_RATE_LIMIT_BURST: "2",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: SLOW,
      SVC_TRUST_PROXY: "true",
    });
  });
  after(() => t.close());

  const read = (address: string) =>
    t.http.get("/api/v1/institutions").set(bearer(DEFAULT_PUBLIC_SANDBOX_KEY)).set("X-Forwarded-For", address);

  it("gives each address its own bucket, so one heavy user does not empty the demo key for everyone", async () => {
    expect((await read("192.0.2.10")).headers).to.include({ "x-ratelimit-limit": "2", "x-ratelimit-remaining": "1" });
    await expectContract(await read("192.0.2.10"), 200);
    const refused = await read("192.0.2.10");
    await expectContract(refused, 429);
    expectRefused(refused, "2");
    expect(refused.body.detail).to.equal("Too many requests for this key from this address; retry in 1000 s.");
    const other = await read("192.0.2.11");
    await expectContract(other, 200);
    expect(other.headers["x-ratelimit-remaining"]).to.equal("1");
  });

  it("counts an IPv6 client by its /64 network", async () => {
    await expectContract(await read("2001:db8:5:6::1"), 200);
    await expectContract(await read("2001:db8:5:6::2"), 200);
    await expectContract(await read("2001:db8:5:6:ffff::3"), 429);
    await expectContract(await read("2001:db8:5:7::1"), 200);
  });
});

describe("rate limits: X-Forwarded-For without SVC_TRUST_PROXY", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_RATE_LIMIT_BURST: "1", SVC_RATE_LIMIT_REFILL_PER_SECOND: SLOW });
  });
  after(() => t.close());

  it("is ignored: the socket's address counts", async () => {
    const read = (address: string) =>
      t.http.get("/api/v1/institutions").set(bearer(DEFAULT_PUBLIC_SANDBOX_KEY)).set("X-Forwarded-For", address);
    await expectContract(await read("192.0.2.20"), 200);
    await expectContract(await read("192.0.2.21"), 429);
  });
});
