// Access tokens of an external issuer: a second issuer started by the test
// (a local HTTP server publishing a JWKS, signing with its own key). Its tokens
// are accepted with the organization, environment and scopes their claims
// map to, and refused with a 401 that says why when any rule fails.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWTPayload } from "jose";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { logSink } from "../helpers/log-sink.ts";

const ISSUER = "https://idp.example.edu/realms/district";
const AUDIENCE = "course-equivalency-api";

class TestIssuer {
  jwksRequests = 0;
  /** What the JWKS endpoint answers with: the keys, or a failure. */
  mode: "serve" | "fail" = "serve";

  private constructor(
    private readonly server: http.Server,
    private readonly privateKey: CryptoKey,
    private readonly jwks: object,
  ) {}

  static async start(): Promise<TestIssuer> {
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "district-1", alg: "RS256", use: "sig" }] };
    let issuer: TestIssuer;
    const server = http.createServer((request, response) => {
      issuer.jwksRequests += 1;
      if (request.url !== "/jwks.json" || issuer.mode === "fail") {
        response.writeHead(503).end();
        return;
      }
      response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(issuer.jwks));
    });
    issuer = new TestIssuer(server, privateKey, jwks);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return issuer;
  }

  get jwksUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks.json`;
  }

  /** A token as the issuer mints it; `claims` overrides or (undefined) removes standard claims. */
  async token(
    claims: JWTPayload & Record<string, unknown> = {},
    options: { key?: CryptoKey; kid?: string } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: "svc-etl",
      iat: now,
      exp: now + 300,
      jti: crypto.randomUUID(),
      org: "acme",
      env: "live",
      scope: "read:public",
      ...claims,
    };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    return new SignJWT(payload)
      .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "district-1", typ: "at+jwt" })
      .sign(options.key ?? this.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("external issuer: access tokens of a configured identity provider", () => {
  let issuer: TestIssuer;
  let t: TestApp;
  const me = (token: string) => t.http.get("/api/v1/organizations/me").set(bearer(token));

  before(async () => {
    issuer = await TestIssuer.start();
    t = await createTestApp({
      SVC_OAUTH_EXTERNAL_ISSUER: ISSUER,
      SVC_OAUTH_EXTERNAL_JWKS_URL: issuer.jwksUrl,
      SVC_OAUTH_EXTERNAL_ORGS: "acme,ghost",
    });
    await loadInstitutions(t.database.prisma, "live");
  });
  after(async () => {
    await t.close();
    await issuer.close();
  });

  async function refused(token: string, reason: RegExp | string) {
    const response = await me(token);
    await expectContract(response, 401);
    expectProblem(response, "unauthenticated");
    expect(response.body.detail).to.match(typeof reason === "string" ? new RegExp(reason) : reason);
    expect(response.headers["www-authenticate"]).to.contain('error="invalid_token"');
    return response;
  }

  it("accepts a valid token as the organization, environment and scopes its claims name; the keys are fetched once", async () => {
    const response = await me(await issuer.token());
    await expectContract(response, 200);
    expect(response.body.data.organization.slug).to.equal("acme");
    expect(response.body.data).to.deep.include({
      environment: "live",
      credential: { id: "ext:svc-etl", kind: "external_token" },
      scopes: ["read:public"],
    });
    const write = await t.http
      .post("/api/v1/keys")
      .set(bearer(await issuer.token()))
      .send({});
    await expectContract(write, 403);
    const sandbox = await me(
      await issuer.token({ env: "sandbox", scp: ["read:public", "write:contribute", "profile"], scope: undefined }),
    );
    expect(sandbox.body.data).to.deep.include({ environment: "sandbox", scopes: ["read:public", "write:contribute"] });
    expect(issuer.jwksRequests).to.equal(1);
  });

  it("writes as the external credential: versions record kind external_token and the subject", async () => {
    const token = await issuer.token({ sub: "etl@district", scope: "read:public write:contribute" });
    const course = await t.http
      .post("/api/v1/courses")
      .set(bearer(token))
      .send({ institutionId: "inst_122977", code: "MATH 7", title: "Calculus 1", credits: 4, level: "lower" });
    await expectContract(course, 201);
    const created = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(token))
      .send({ sourceCourseId: course.body.data[0].id, targetInstitutionId: "inst_110635", targetCode: "MATH 1A" });
    await expectContract(created, 201);
    const changed = await t.http
      .patch(`/api/v1/equivalencies/${created.body.data.id}`)
      .set(bearer(token))
      .send({ status: "accepted" });
    await expectContract(changed, 200);
    const history = await t.http.get(`/api/v1/equivalencies/${created.body.data.id}/versions`).set(bearer(token));
    await expectContract(history, 200);
    for (const version of history.body.data.versions) {
      expect(version.actor).to.deep.equal({
        credentialId: "ext:etl@district",
        displayName: "etl@district",
        organizationId: t.organizationId,
        kind: "external_token",
      });
    }
  });

  it("refuses a token of another issuer, for another audience, expired, or without jti, exp, iat or sub", async () => {
    await refused(
      await issuer.token({ iss: "https://other.example.edu/" }),
      /issuer "https:\/\/other\.example\.edu\/" is not accepted/,
    );
    await refused(await issuer.token({ aud: "another-api" }), /"aud" claim/);
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    await refused(await issuer.token({ iat: hourAgo - 600, exp: hourAgo }), /"exp" claim timestamp check failed/);
    for (const claim of ["jti", "exp", "iat", "sub"])
      await refused(await issuer.token({ [claim]: undefined }), `missing required "${claim}" claim`);
  });

  it("refuses a token signed with a key the issuer does not publish (unknown kid) and a forged signature", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    await refused(await issuer.token({}, { key: privateKey, kid: "rogue" }), /no applicable key found/);
    await refused(await issuer.token({}, { key: privateKey }), /signature verification failed/);
  });

  it("refuses an organization the issuer may not speak for (SVC_OAUTH_EXTERNAL_ORGS), even an existing one", async () => {
    const rival = await t.otherOrganization("rival", "live");
    const token = await issuer.token({ org: "rival", scope: "read:public write:contribute" });
    const response = await refused(token, /this issuer may not speak for the organization "rival"/);
    expect(response.body.detail).to.contain("SVC_OAUTH_EXTERNAL_ORGS lists acme, ghost");
    const keys = await t.http.post("/api/v1/keys").set(bearer(token)).send({});
    await expectContract(keys, 401);
    expect(await t.database.prisma.apiKey.count({ where: { organizationId: rival.id } })).to.equal(1);
  });

  it("refuses an unknown organization, a token without one, and an environment other than live or sandbox", async () => {
    await refused(await issuer.token({ org: "ghost" }), /organization "ghost" \(claim "org"\) is not known/);
    await refused(await issuer.token({ org: undefined }), /no "org" claim naming an organization/);
    await refused(await issuer.token({ env: "staging" }), /"env" claim must be live or sandbox, got "staging"/);
  });

  it("maps a token without a known scope to no scope: authenticated, then 403", async () => {
    const response = await me(await issuer.token({ scope: "openid profile" }));
    await expectContract(response, 403);
  });
});

describe("external issuer: without SVC_OAUTH_EXTERNAL_ORGS", () => {
  it("refuses every external token, and the start-up log names the variable", async () => {
    const issuer = await TestIssuer.start();
    const sink = logSink("warn");
    const t = await createTestApp(
      { SVC_LOG_LEVEL: "warn", SVC_OAUTH_EXTERNAL_ISSUER: ISSUER, SVC_OAUTH_EXTERNAL_JWKS_URL: issuer.jwksUrl },
      { log: sink.log },
    );
    try {
      const warning = sink.lines.find((line) => String(line.msg).includes("SVC_OAUTH_EXTERNAL_ORGS"));
      expect(warning?.msg).to.match(/SVC_OAUTH_EXTERNAL_ISSUER is set but SVC_OAUTH_EXTERNAL_ORGS is not/);
      const response = await t.http.get("/api/v1/organizations/me").set(bearer(await issuer.token()));
      await expectContract(response, 401);
      expect(response.body.detail).to.contain("SVC_OAUTH_EXTERNAL_ORGS names no organization");
    } finally {
      await t.close();
      await issuer.close();
    }
  });
});

describe("external issuer: its keys cannot be fetched", () => {
  let issuer: TestIssuer;
  before(async () => {
    issuer = await TestIssuer.start();
  });
  after(() => issuer.close());

  it("answers 401 (not 500) while the JWKS endpoint fails or is unreachable", async () => {
    issuer.mode = "fail";
    const failing = await createTestApp({
      SVC_OAUTH_EXTERNAL_ISSUER: ISSUER,
      SVC_OAUTH_EXTERNAL_JWKS_URL: issuer.jwksUrl,
      SVC_OAUTH_EXTERNAL_ORGS: "acme",
    });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const unreachableUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await createTestApp({
      SVC_OAUTH_EXTERNAL_ISSUER: ISSUER,
      SVC_OAUTH_EXTERNAL_JWKS_URL: unreachableUrl,
      SVC_OAUTH_EXTERNAL_ORGS: "acme",
    });
    try {
      for (const app of [failing, unreachable]) {
        const response = await app.http.get("/api/v1/organizations/me").set(bearer(await issuer.token()));
        await expectContract(response, 401);
        expect(response.body.detail).to.contain(`the signing keys (JWKS) of ${ISSUER} could not be fetched`);
      }
      expect(issuer.jwksRequests).to.equal(1);
      // Its own tokens and API keys keep working meanwhile.
      await expectContract(await failing.http.get("/api/v1/organizations/me").set(bearer(failing.keys.live)), 200);
    } finally {
      await failing.close();
      await unreachable.close();
    }
  });
});
