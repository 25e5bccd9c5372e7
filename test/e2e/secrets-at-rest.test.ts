// Secrets at rest: the database alone reveals no webhook secret and no
// token-signing private key; a database from before sealing is sealed at start
// (idempotently) and keeps signing deliveries and tokens with the same secrets.
import { createOAuthClientsService } from "../../src/services/oauth-clients.ts";
import { createRepositories } from "../../src/repositories/index.ts";
import crypto from "node:crypto";
import { expect } from "chai";
import { exportJWK, generateKeyPair, jwtVerify, createLocalJWKSet, type JWK } from "jose";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { emptyDatabase, type TestDatabase } from "../helpers/database.ts";
import { applyMigrations, readMigrations } from "../../src/db/migrations.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { prepareStoredSecrets } from "../../src/process/startup.ts";
import { SecretBox } from "../../src/kernel/secret-box.ts";
import { signingKeyContext } from "../../src/repositories/secrets.ts";
import type { Keyring } from "../../src/process/secrets-keyring.ts";
import { createAccessTokens } from "../../src/auth/oauth.ts";
import { createStoredSecretsService, StoredSecretsError } from "../../src/services/stored-secrets.ts";
import { signingSecrets } from "../../src/webhooks/attempts.ts";
import type { Db } from "../../src/db/database.ts";

const SECRETS_AT_REST = "20261126000000_secrets_at_rest";

/** Every row of every table of the database, as JSON text: what a stolen dump or backup shows. */
async function dumpEverything(db: Db): Promise<string> {
  const tables = await db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  expect(tables.map((t) => t.name)).to.include.members([
    "webhook_endpoints",
    "signing_keys",
    "webhook_deliveries",
    "oauth_clients",
  ]);
  const parts = [];
  for (const { name } of tables) {
    const rows = await db.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(t)::text AS row FROM "${name}" AS t`);
    parts.push(...rows.map((r) => r.row));
  }
  return parts.join("\n");
}

describe("secrets at rest: the database alone reveals no secret", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it("after a webhook is created and rotated and the token issuer has signed, no secret or private key appears in any column", async () => {
    const created = await t.http
      .post("/api/v1/webhooks")
      .set(bearer(t.keys.live))
      .send({ url: "https://hooks.example.edu/in", events: ["course.updated"] });
    expect(created.status).to.equal(201);
    const rotated = await t.http
      .post(`/api/v1/webhooks/${created.body.data.id}/rotate-secret`)
      .set(bearer(t.keys.live));
    expect(rotated.status).to.equal(200);
    const secrets = [created.body.data.secret, rotated.body.data.secret];

    const { client, clientSecret } = await t.app.context.services.oauthClients.createOAuthClient({
      organizationId: t.organizationId,
      environment: "live",
    });
    const token = await t.http
      .post("/oauth/token")
      .type("form")
      .send({ grant_type: "client_credentials", client_id: client.clientId, client_secret: clientSecret });
    expect(token.status).to.equal(200);
    const jwks = await t.http.get("/.well-known/jwks.json");
    await jwtVerify(token.body.access_token, createLocalJWKSet(jwks.body));

    const stored = await t.database.prisma.signingKey.findFirstOrThrow();
    const privateJwk = JSON.parse(t.secrets.open(stored.privateJwk, signingKeyContext(stored.kid))) as JWK;
    expect(privateJwk.d).to.be.a("string").with.length.above(20);

    const dump = await dumpEverything(t.database.prisma);
    for (const secret of [...secrets, privateJwk.d!, clientSecret]) expect(dump).to.not.contain(secret);
    expect(dump).to.not.contain('"d":');
    const endpoint = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.body.data.id } });
    for (const value of [endpoint.secret, endpoint.previousSecret!, stored.privateJwk])
      expect(value.startsWith(`v1:${t.secrets.keyId}:`)).to.equal(true);
    expect(endpoint.secretPrefix).to.equal(rotated.body.data.secretPrefix);
    expect(await t.app.context.services.storedSecrets.countByKeyId()).to.deep.equal({ [t.secrets.keyId]: 3 });
  });
});

describe(`secrets at rest: upgrading a database with secrets in the clear (migration ${SECRETS_AT_REST} + start)`, () => {
  let db: TestDatabase;
  const box = new SecretBox(crypto.randomBytes(32));
  const keyring: Keyring = { box, keyFile: null, source: "SVC_SECRETS_KEY" };
  const log = createLogger("silent");
  const secret = "whsec_currentcurrentcurrentcurrent01";
  const previous = "whsec_previouspreviouspreviousprev02";
  let privateJwk: JWK;
  let publicJwk: JWK;

  before(async () => {
    db = await emptyDatabase();
    const all = readMigrations();
    await db.session((sql) =>
      applyMigrations(
        sql,
        all.filter((m) => m.name < SECRETS_AT_REST),
      ),
    );
    const pair = await generateKeyPair("ES256", { extractable: true });
    privateJwk = { ...(await exportJWK(pair.privateKey)), kid: "kid-before", alg: "ES256" };
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "kid-before", alg: "ES256", use: "sig" };
    await db.session(async (sql) => {
      await sql.exec(
        `INSERT INTO organizations (id, slug, name, source) VALUES ('org_a', 'alpha', 'Alpha', 'channel_a')`,
      );
      await sql.query(
        `INSERT INTO webhook_endpoints (id, environment, organization_id, url, events, secret, previous_secret, previous_secret_expires_at)
         VALUES ('wh_old', 'live', 'org_a', 'https://hooks.example.edu/in', '{course.updated}', $1, $2, now() + interval '1 hour'),
                ('wh_new', 'live', 'org_a', 'https://hooks.example.edu/two', '{course.updated}', $1, NULL, NULL)`,
        [secret, previous],
      );
      await sql.query(
        `INSERT INTO signing_keys (kid, private_jwk, public_jwk) VALUES ('kid-before', $1::jsonb, $2::jsonb)`,
        [JSON.stringify(privateJwk), JSON.stringify(publicJwk)],
      );
    });
    expect(await db.session((sql) => applyMigrations(sql))).to.include(SECRETS_AT_REST);
  });
  after(() => db.close());

  it("the migration keeps the values and fills each webhook's secret prefix", async () => {
    const endpoint = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: "wh_old" } });
    expect(endpoint).to.include({ secret, previousSecret: previous, secretPrefix: secret.slice(0, 10) });
    expect(
      JSON.parse((await db.prisma.signingKey.findUniqueOrThrow({ where: { kid: "kid-before" } })).privateJwk),
    ).to.deep.equal(privateJwk);
  });

  it("the start seals every value in the clear, once; deliveries and tokens keep their secrets", async () => {
    await prepareStoredSecrets(db, keyring, log);
    const sealed = await dumpEverything(db.prisma);
    for (const value of [secret, previous, privateJwk.d!]) expect(sealed).to.not.contain(value);
    expect(await createStoredSecretsService(createRepositories(db.prisma)).countByKeyId()).to.deep.equal({
      [box.keyId]: 4,
    });

    const before = await db.prisma.webhookEndpoint.findMany({ orderBy: { id: "asc" } });
    await prepareStoredSecrets(db, keyring, log);
    expect(await db.prisma.webhookEndpoint.findMany({ orderBy: { id: "asc" } })).to.deep.equal(before);

    const endpoint = before.find((e) => e.id === "wh_old")!;
    expect(signingSecrets(endpoint, new Date(), box)).to.deep.equal([secret, previous]);

    const config = loadConfig({ SVC_OAUTH_ISSUER: "https://api.example.edu" });
    const tokens = await createAccessTokens(createRepositories(db.prisma), config, box);
    expect(tokens.jwks.keys.map((k) => k.kid)).to.deep.equal(["kid-before"]);
    const { client, clientSecret } = await createOAuthClientsService(createRepositories(db.prisma)).createOAuthClient({
      organizationId: "org_a",
      environment: "live",
    });
    const issued = await tokens.issue(client.clientId, clientSecret, undefined);
    await jwtVerify(issued.access_token, createLocalJWKSet({ keys: [publicJwk] }));
  });

  it("refuses to start with a key that did not seal the stored values, naming the key id", async () => {
    const other: Keyring = { box: new SecretBox(crypto.randomBytes(32)), keyFile: null, source: "SVC_SECRETS_KEY" };
    const failure = await prepareStoredSecrets(db, other, log).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(StoredSecretsError);
    expect(String(failure)).to.contain(`sealed under key id ${box.keyId}`).and.contain("SVC_SECRETS_OLD_KEYS");
    expect(await createStoredSecretsService(createRepositories(db.prisma)).countByKeyId()).to.deep.equal({
      [box.keyId]: 4,
    });
  });
});
