// Builds the real app on a fresh database for one test file, with an
// organization and keys to call it with.
import crypto from "node:crypto";
import supertest from "supertest";
import { loadConfig, type Config } from "../../src/kernel/config.ts";
import { createApp, type App } from "../../src/app/app.ts";
import { createLogger, type Logger } from "../../src/kernel/logger.ts";
import type { GrantTarget } from "../../src/services/stewardship.ts";
import type { Channel, Environment } from "../../src/services/types.ts";
import { freshDatabase, type TestDatabase } from "./database.ts";
import { SecretBox } from "../../src/kernel/secret-box.ts";

export interface TestApp {
  app: App;
  database: TestDatabase;
  config: Config;
  /** The app's sealing keys (a random key per test file). */
  secrets: SecretBox;
  http: ReturnType<typeof supertest>;
  /** Keys of the test organization "acme" (channel_a), with both scopes. */
  keys: { live: string; sandbox: string; liveReadOnly: string };
  organizationId: string;
  /** Creates another organization with a key, for isolation tests; it stewards only what `grant` names. */
  otherOrganization(
    slug: string,
    environment?: Environment,
    source?: Channel,
    grant?: GrantTarget,
  ): Promise<{ id: string; key: string }>;
  /** A new key of any organization. */
  keyFor(organizationId: string, environment: Environment, scopes?: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** "acme" stewards every institution of both environments (standing grants) unless this is false. */
  acmeStewardsAll?: boolean;
  /** The app's logger (a test that reads the log passes its own). */
  log?: Logger;
}

/**
 * Every test request comes from one address, so the per-address abuse limits (token requests,
 * failed authentications) are lifted unless a test sets them; test/contract/rate-limits.test.ts does.
 */
const PER_ADDRESS_LIMITS_LIFTED = {
  SVC_TOKEN_ENDPOINT_BURST: "100000",
  SVC_AUTH_FAILURE_BURST: "100000",
  SVC_SIGN_IN_BURST: "100000",
};

/**
 * Tests register webhooks on names that do not resolve here (hooks.example.edu) and on receivers
 * of this machine: target checks are lifted unless a test sets the variable
 * (test/contract/webhooks.test.ts tests the default by setting it to "").
 */
const ANY_WEBHOOK_TARGET = { SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" };

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    SVC_LOG_LEVEL: "silent",
    SVC_SEED_SANDBOX: "false",
    ...PER_ADDRESS_LIMITS_LIFTED,
    ...ANY_WEBHOOK_TARGET,
    ...env,
  });
  const database = await freshDatabase();
  const secrets = new SecretBox(crypto.randomBytes(32));
  const app = await createApp({
    config,
    database,
    log: options.log ?? createLogger(config.logLevel),
    secrets,
    validateResponses: true,
  });
  const { organizations, keys: apiKeys, stewardship, sandbox } = app.context.services;
  await sandbox.ensurePublicSandboxKey(config.publicSandboxKey);
  const org = await organizations.createOrganization({
    slug: "acme",
    name: "Acme Community College District",
    source: "channel_a",
  });
  const key = async (environment: Environment, scopes?: string[]) =>
    (await apiKeys.issueKey({ organizationId: org.id, environment, scopes, name: `${environment} test key` })).key;
  const keys = {
    live: await key("live"),
    sandbox: await key("sandbox"),
    liveReadOnly: await key("live", ["read:public"]),
  };
  if (options.acmeStewardsAll !== false) {
    for (const environment of ["live", "sandbox"] as const)
      await stewardship.grantStewardship(org.id, environment, { all: true });
  }
  return {
    app,
    database,
    config,
    secrets,
    http: supertest(app.koa.callback()),
    keys,
    organizationId: org.id,
    async otherOrganization(slug, environment = "live", source = "channel_b", grant) {
      const other = await organizations.createOrganization({ slug, name: slug, source });
      if (grant) await stewardship.grantStewardship(other.id, environment, grant);
      const created = await apiKeys.issueKey({ organizationId: other.id, environment });
      return { id: other.id, key: created.key };
    },
    async keyFor(organizationId, environment, scopes) {
      return (await apiKeys.issueKey({ organizationId, environment, scopes })).key;
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}
