// OAuth 2.0 client credentials: tokens from /oauth/token work wherever an API
// key does, carry only the scopes asked for, and stop working when the client is revoked.
import { expect } from "chai";
import { decodeProtectedHeader, decodeJwt } from "jose";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { createOAuthClient } from "../../src/services/oauth-clients.ts";

describe("OAuth 2.0 client credentials", () => {
  let t: TestApp;
  let clientId: string;
  let clientSecret: string;
  const token = (form: Record<string, string>, basic?: string) => {
    const request = t.http.post("/oauth/token").type("form").send(form);
    return basic ? request.set("Authorization", `Basic ${Buffer.from(basic).toString("base64")}`) : request;
  };

  before(async () => {
    t = await createTestApp();
    const created = await createOAuthClient(t.database.prisma, { organizationId: t.organizationId, environment: "live", name: "etl" });
    clientId = created.client.clientId;
    clientSecret = created.clientSecret;
  });
  after(() => t.close());

  it("issues a signed JWT for HTTP Basic client authentication", async () => {
    const response = await token({ grant_type: "client_credentials" }, `${clientId}:${clientSecret}`);
    expect(response.status).to.equal(200);
    expect(response.headers["cache-control"]).to.equal("no-store");
    expect(response.body).to.include({ token_type: "Bearer", expires_in: 3600, scope: "read:public write:contribute" });
    expect(decodeProtectedHeader(response.body.access_token)).to.include({ alg: "ES256", typ: "at+jwt" });
    expect(decodeJwt(response.body.access_token)).to.include({ sub: clientId, env: "live", aud: "course-equivalency-api" });
    const used = await t.http.get("/api/v1/keys").set(bearer(response.body.access_token));
    await expectContract(used, 200);
  });

  it("accepts form-field authentication and narrows the scope on request", async () => {
    const response = await token({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, scope: "read:public" });
    expect(response.body.scope).to.equal("read:public");
    const write = await t.http.post("/api/v1/keys").set(bearer(response.body.access_token)).send({});
    await expectContract(write, 403);
  });

  it("refuses a wrong secret (401), an unknown grant or scope (400)", async () => {
    const wrong = await token({ grant_type: "client_credentials" }, `${clientId}:nope`);
    expect(wrong.status).to.equal(401);
    expectProblem(wrong, "unauthenticated");
    expect(wrong.body.error).to.equal("invalid_client");
    const grant = await token({ grant_type: "password", client_id: clientId, client_secret: clientSecret });
    expect(grant.status).to.equal(400);
    expect(grant.body.error).to.equal("unsupported_grant_type");
    const scope = await token({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, scope: "admin" });
    expect(scope.body.error).to.equal("invalid_scope");
  });

  it("publishes its keys and metadata", async () => {
    const jwks = await t.http.get("/.well-known/jwks.json");
    expect(jwks.body.keys[0]).to.include({ kty: "EC", alg: "ES256", use: "sig" });
    expect(jwks.body.keys[0]).to.not.have.property("d");
    const metadata = await t.http.get("/.well-known/oauth-authorization-server");
    expect(metadata.body.grant_types_supported).to.deep.equal(["client_credentials"]);
    expect(metadata.body.token_endpoint).to.match(/\/oauth\/token$/);
  });

  it("refuses a tampered token and a revoked client's token", async () => {
    const { body } = await token({ grant_type: "client_credentials" }, `${clientId}:${clientSecret}`);
    const [header, payload, signature] = body.access_token.split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(body.access_token), scope: "write:contribute" })).toString("base64url")}.${signature}`;
    expect(payload).to.be.a("string");
    const tampered = await t.http.get("/api/v1/keys").set(bearer(forged));
    await expectContract(tampered, 401);
    await t.database.prisma.oAuthClient.update({ where: { clientId }, data: { revokedAt: new Date() } });
    const revoked = await t.http.get("/api/v1/keys").set(bearer(body.access_token));
    await expectContract(revoked, 401);
  });
});
