// OAuth 2.0 client credentials: tokens from /oauth/token work wherever an API
// key does, carry only the scopes asked for, and stop working when the client is revoked.
import { expect } from "chai";
import crypto from "node:crypto";
import { SignJWT, decodeProtectedHeader, decodeJwt, importJWK, type JWK } from "jose";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { signingKeyContext } from "../../src/repositories/secrets.ts";

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
    const created = await t.app.context.services.oauthClients.createOAuthClient({
      organizationId: t.organizationId,
      environment: "live",
      name: "etl",
    });
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
    const claims = decodeJwt(response.body.access_token);
    expect(claims).to.include({ sub: clientId, env: "live", aud: "course-equivalency-api" });
    expect(claims.exp! - claims.iat!).to.equal(3600);
    expect(claims.jti).to.match(/^[0-9a-f-]{36}$/);
    const used = await t.http.get("/api/v1/keys").set(bearer(response.body.access_token));
    await expectContract(used, 200);
  });

  it("accepts form-field authentication and narrows the scope on request", async () => {
    const response = await token({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
      scope: "read:public",
    });
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
    const scope = await token({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
      scope: "admin",
    });
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

  /** A token signed with the service's own key, as the issuer would, with some claims left out. */
  async function signedByService(without: string[]): Promise<string> {
    const stored = await t.database.prisma.signingKey.findFirstOrThrow();
    const key = await importJWK(
      JSON.parse(t.secrets.open(stored.privateJwk, signingKeyContext(stored.kid))) as JWK,
      "ES256",
    );
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: t.app.accessTokens.issuer,
      aud: "course-equivalency-api",
      sub: clientId,
      scope: "read:public",
      env: "live",
      cid: clientId,
      iat: now,
      exp: now + 600,
      jti: crypto.randomUUID(),
    };
    for (const name of without) delete claims[name];
    return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: stored.kid, typ: "at+jwt" }).sign(key);
  }

  it("refuses a token signed with the service's key but without exp, iat or jti", async () => {
    await expectContract(await t.http.get("/api/v1/keys").set(bearer(await signedByService([]))), 200);
    for (const claim of ["exp", "iat", "jti"]) {
      const response = await t.http.get("/api/v1/keys").set(bearer(await signedByService([claim])));
      await expectContract(response, 401);
      expect(response.body.detail, claim).to.contain(`missing required "${claim}" claim`);
    }
    const noClient = await t.http.get("/api/v1/keys").set(bearer(await signedByService(["cid"])));
    await expectContract(noClient, 401);
    expect(noClient.body.detail).to.contain('names no client ("cid")');
  });

  it("revocation (oauth-clients revoke) refuses new tokens and the tokens already issued, at once", async () => {
    const { client, clientSecret: secret } = await t.app.context.services.oauthClients.createOAuthClient({
      organizationId: t.organizationId,
      environment: "live",
      name: "to revoke",
    });
    const credentials = `${client.clientId}:${secret}`;
    const issued = await token({ grant_type: "client_credentials" }, credentials);
    expect(issued.status).to.equal(200);
    await expectContract(await t.http.get("/api/v1/keys").set(bearer(issued.body.access_token)), 200);

    const revoked = await t.app.context.services.oauthClients.revokeOAuthClient(client.id);
    expect(revoked.revokedAt).to.be.a("string");
    const refusedToken = await t.http.get("/api/v1/keys").set(bearer(issued.body.access_token));
    await expectContract(refusedToken, 401);
    expect(refusedToken.body.detail).to.contain("has been revoked");
    const refusedGrant = await token({ grant_type: "client_credentials" }, credentials);
    expect(refusedGrant.status).to.equal(401);
    expect(refusedGrant.body.error).to.equal("invalid_client");

    const again = await t.app.context.services.oauthClients.revokeOAuthClient(client.clientId);
    expect(again.revokedAt).to.equal(revoked.revokedAt);
    const listed = (await t.app.context.services.oauthClients.listOAuthClients(t.organizationId)).find(
      (c) => c.id === client.id,
    )!;
    expect(listed).to.include({ name: "to revoke", revokedAt: revoked.revokedAt });
    expect(listed.lastUsedAt).to.be.a("string");
    expect(JSON.stringify(listed)).to.not.contain(secret);
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
