import { expect } from "chai";
import { ConfigError, DEFAULT_PUBLIC_SANDBOX_KEY, loadConfig } from "../../src/kernel/config.ts";

describe("configuration", () => {
  it("has documented defaults", () => {
    const config = loadConfig({});
    expect(config.port).to.equal(3000);
    expect(config.host).to.equal("127.0.0.1");
    expect(config.databaseUrl).to.equal(null);
    expect(config.dataDir).to.match(/\/data$/);
    expect(config.publicSandboxKey).to.equal(DEFAULT_PUBLIC_SANDBOX_KEY);
    expect(config.logLevel).to.equal("info");
    expect(config.embeddedSharedBuffersMb).to.equal(16);
  });

  it("reads the embedded database's shared buffers in MB and refuses a value that is not a size", () => {
    expect(loadConfig({ SVC_EMBEDDED_SHARED_BUFFERS_MB: "128" }).embeddedSharedBuffersMb).to.equal(128);
    expect(() => loadConfig({ SVC_EMBEDDED_SHARED_BUFFERS_MB: "16MB" })).to.throw(
      ConfigError,
      /SVC_EMBEDDED_SHARED_BUFFERS_MB.*whole number/,
    );
    expect(() => loadConfig({ SVC_EMBEDDED_SHARED_BUFFERS_MB: "0" })).to.throw(ConfigError, /between 1 and 16384/);
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      SVC_DATA_DIR: "/var/lib/svc",
      DATABASE_URL: "postgresql://svc@db:5432/svc",
      SVC_PUBLIC_SANDBOX_KEY: "svc_sandbox_abcdefghijklmnopqrstuvwxyz0123456789",
      SVC_LOG_LEVEL: "debug",
    });
    expect(config).to.include({
      port: 8080,
      host: "0.0.0.0",
      dataDir: "/var/lib/svc",
      databaseUrl: "postgresql://svc@db:5432/svc",
      logLevel: "debug",
    });
    expect(config.publicSandboxKey).to.equal("svc_sandbox_abcdefghijklmnopqrstuvwxyz0123456789");
  });

  const invalid: [string, string][] = [
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["DATABASE_URL", "not a url"],
    ["SVC_LOG_LEVEL", "loud"],
    ["SVC_PUBLIC_SANDBOX_KEY", "svc_live_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["SVC_RATE_LIMIT_BURST", "0"],
    ["SVC_RATE_LIMIT_ORG_BURST", "0"],
    ["SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND", "0"],
    ["SVC_AUTH_FAILURE_BURST", "many"],
    ["SVC_AUTH_FAILURE_REFILL_PER_SECOND", "-1"],
    ["SVC_TOKEN_ENDPOINT_BURST", "2000000"],
    ["SVC_TOKEN_ENDPOINT_REFILL_PER_SECOND", "fast"],
    ["SVC_TRUST_PROXY", "sometimes"],
    ["SVC_RATE_LIMIT_REDIS_URL", "http://cache:6379"],
    ["SVC_SEED_SANDBOX", "maybe"],
  ];
  for (const [variable, value] of invalid) {
    it(`refuses ${variable}=${value} naming the variable`, () => {
      expect(() => loadConfig({ [variable]: value }))
        .to.throw(ConfigError)
        .with.property("variable", variable);
    });
  }
});

describe("configuration: webhooks and datasets", () => {
  it("defaults to the decisions' retry schedule and refuses private targets, allowing loopback only to a server on loopback", () => {
    const config = loadConfig({});
    expect(config.webhooks.retrySchedule).to.deep.equal([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(config.webhooks).to.include({
      allowPrivateTargets: "loopback",
      timeoutMs: 5000,
      dispatcher: "inline",
      disableAfterMs: 5 * 86_400_000,
    });
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"])
      expect(loadConfig({ HOST: host }).webhooks.allowPrivateTargets, host).to.equal("loopback");
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "api.example.edu"])
      expect(loadConfig({ HOST: host }).webhooks.allowPrivateTargets, host).to.equal(false);
    expect(loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" }).webhooks.allowPrivateTargets).to.equal(false);
    expect(
      loadConfig({ HOST: "0.0.0.0", SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }).webhooks.allowPrivateTargets,
    ).to.equal(true);
    expect(config.datasets.stalePendingDays).to.equal(90);
  });

  it("reads SVC_WEBHOOK_RETRY_SCHEDULE as comma-separated durations", () => {
    expect(loadConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: "1s, 2s,500ms" }).webhooks.retrySchedule).to.deep.equal([
      1000, 2000, 500,
    ]);
    expect(() => loadConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: "1s,soon" }))
      .to.throw(ConfigError)
      .with.property("variable", "SVC_WEBHOOK_RETRY_SCHEDULE");
    expect(() => loadConfig({ SVC_WEBHOOK_DISPATCHER: "cron" }))
      .to.throw(ConfigError)
      .with.property("variable", "SVC_WEBHOOK_DISPATCHER");
    expect(() => loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "sometimes" })).to.throw(ConfigError);
  });
});

describe("configuration: secrets at rest", () => {
  const hexKey = "ab".repeat(32);

  it("reads SVC_SECRETS_KEY and SVC_SECRETS_OLD_KEYS; unset means the key file", () => {
    expect(loadConfig({}).secrets).to.deep.equal({ key: null, oldKeys: [] });
    const old = Buffer.alloc(32, 7).toString("base64url");
    const config = loadConfig({ SVC_SECRETS_KEY: hexKey, SVC_SECRETS_OLD_KEYS: ` ${old} ,` });
    expect(config.secrets.key!.toString("hex")).to.equal(hexKey);
    expect(config.secrets.oldKeys.map((k) => k.toString("base64url"))).to.deep.equal([old]);
  });

  const invalid: [Record<string, string>, string, RegExp][] = [
    [{ SVC_SECRETS_KEY: "too-short" }, "SVC_SECRETS_KEY", /32-byte key/],
    [{ SVC_SECRETS_KEY: "ab".repeat(32), SVC_SECRETS_OLD_KEYS: "nope" }, "SVC_SECRETS_OLD_KEYS", /32-byte key/],
    [{ SVC_SECRETS_OLD_KEYS: "ab".repeat(32) }, "SVC_SECRETS_OLD_KEYS", /only read together with SVC_SECRETS_KEY/],
    [
      { DATABASE_URL: "postgresql://db/svc", NODE_ENV: "production" },
      "SVC_SECRETS_KEY",
      /must be set on PostgreSQL in production/,
    ],
  ];
  for (const [env, variable, message] of invalid) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      expect(() => loadConfig(env))
        .to.throw(ConfigError, message)
        .with.property("variable", variable);
    });
  }

  it("allows the key file on PostgreSQL outside production and on the embedded database in production", () => {
    expect(loadConfig({ DATABASE_URL: "postgresql://db/svc" }).secrets.key).to.equal(null);
    expect(loadConfig({ NODE_ENV: "production" }).secrets.key).to.equal(null);
    expect(
      loadConfig({ DATABASE_URL: "postgresql://db/svc", NODE_ENV: "production", SVC_SECRETS_KEY: hexKey }).secrets.key,
    ).to.have.length(32);
  });
});

describe("configuration: external token issuer", () => {
  it("is off by default; on with both variables, with the documented defaults", () => {
    expect(loadConfig({}).oauth.external).to.equal(null);
    const config = loadConfig({
      SVC_OAUTH_EXTERNAL_ISSUER: "https://idp.example.edu/",
      SVC_OAUTH_EXTERNAL_JWKS_URL: "https://idp.example.edu/jwks",
    });
    expect(config.oauth.external).to.deep.equal({
      issuer: "https://idp.example.edu/",
      jwksUrl: "https://idp.example.edu/jwks",
      audience: "course-equivalency-api",
      orgClaim: "org",
      envClaim: "env",
      orgs: [],
    });
    const custom = loadConfig({
      SVC_OAUTH_EXTERNAL_ISSUER: "https://idp.example.edu/",
      SVC_OAUTH_EXTERNAL_JWKS_URL: "https://idp.example.edu/jwks",
      SVC_OAUTH_EXTERNAL_AUDIENCE: "api://equivalency",
      SVC_OAUTH_EXTERNAL_ORG_CLAIM: "https://example.edu/org",
      SVC_OAUTH_EXTERNAL_ENV_CLAIM: "svc_env",
      SVC_OAUTH_EXTERNAL_ORGS: " acme, district-9 ,acme",
    });
    expect(custom.oauth.external).to.deep.include({
      audience: "api://equivalency",
      orgClaim: "https://example.edu/org",
      envClaim: "svc_env",
      orgs: ["acme", "district-9"],
    });
  });

  it("refuses one variable without the other, a bad URL, a claim name with spaces, a bad slug and SVC_OAUTH_EXTERNAL_ORGS alone", () => {
    const cases: [Record<string, string>, string][] = [
      [{ SVC_OAUTH_EXTERNAL_ISSUER: "https://idp.example.edu/" }, "SVC_OAUTH_EXTERNAL_JWKS_URL"],
      [{ SVC_OAUTH_EXTERNAL_JWKS_URL: "https://idp.example.edu/jwks" }, "SVC_OAUTH_EXTERNAL_ISSUER"],
      [
        { SVC_OAUTH_EXTERNAL_ISSUER: "https://idp.example.edu/", SVC_OAUTH_EXTERNAL_JWKS_URL: "ftp://idp/jwks" },
        "SVC_OAUTH_EXTERNAL_JWKS_URL",
      ],
      [
        {
          SVC_OAUTH_EXTERNAL_ISSUER: "https://idp.example.edu/",
          SVC_OAUTH_EXTERNAL_JWKS_URL: "https://idp.example.edu/jwks",
          SVC_OAUTH_EXTERNAL_ORG_CLAIM: "my org",
        },
        "SVC_OAUTH_EXTERNAL_ORG_CLAIM",
      ],
      [
        {
          SVC_OAUTH_EXTERNAL_ISSUER: "https://idp.example.edu/",
          SVC_OAUTH_EXTERNAL_JWKS_URL: "https://idp.example.edu/jwks",
          SVC_OAUTH_EXTERNAL_ORGS: "acme,Other Org",
        },
        "SVC_OAUTH_EXTERNAL_ORGS",
      ],
      [{ SVC_OAUTH_EXTERNAL_ORGS: "acme" }, "SVC_OAUTH_EXTERNAL_ORGS"],
    ];
    for (const [env, variable] of cases)
      expect(() => loadConfig(env), variable)
        .to.throw(ConfigError)
        .with.property("variable", variable);
  });
});

describe("configuration: rate limits", () => {
  it("has the documented buckets, in-process counting and no trusted proxy by default", () => {
    const { rateLimit, trustProxy } = loadConfig({});
    expect(rateLimit).to.deep.equal({
      credential: { burst: 600, refillPerSecond: 10 },
      organization: { burst: 1200, refillPerSecond: 20 },
      authFailures: { burst: 20, refillPerSecond: 0.1 },
      tokenEndpoint: { burst: 20, refillPerSecond: 0.2 },
      signIn: { burst: 20, refillPerSecond: 0.2 },
      redis: null,
    });
    expect(trustProxy).to.equal(false);
  });

  it("reads every rate-limit variable", () => {
    const config = loadConfig({
      SVC_RATE_LIMIT_BURST: "5",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.5",
      SVC_RATE_LIMIT_ORG_BURST: "50",
      SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "2",
      SVC_AUTH_FAILURE_BURST: "3",
      SVC_AUTH_FAILURE_REFILL_PER_SECOND: "0.01",
      SVC_TOKEN_ENDPOINT_BURST: "4",
      SVC_TOKEN_ENDPOINT_REFILL_PER_SECOND: "0.02",
      SVC_SIGN_IN_BURST: "6",
      SVC_SIGN_IN_REFILL_PER_SECOND: "0.03",
      SVC_TRUST_PROXY: "true",
      SVC_RATE_LIMIT_REDIS_URL: "redis://cache:6380/2",
      SVC_RATE_LIMIT_REDIS_PREFIX: "staging:",
      SVC_RATE_LIMIT_REDIS_TIMEOUT_MS: "50",
    });
    expect(config.rateLimit).to.deep.equal({
      credential: { burst: 5, refillPerSecond: 0.5 },
      organization: { burst: 50, refillPerSecond: 2 },
      authFailures: { burst: 3, refillPerSecond: 0.01 },
      tokenEndpoint: { burst: 4, refillPerSecond: 0.02 },
      signIn: { burst: 6, refillPerSecond: 0.03 },
      redis: { url: "redis://cache:6380/2", keyPrefix: "staging:", timeoutMs: 50 },
    });
    expect(config.trustProxy).to.equal(true);
  });

  it("refuses SVC_RATE_LIMIT_REDIS_TIMEOUT_MS out of range", () => {
    expect(() =>
      loadConfig({ SVC_RATE_LIMIT_REDIS_URL: "redis://127.0.0.1:6379", SVC_RATE_LIMIT_REDIS_TIMEOUT_MS: "1" }),
    )
      .to.throw(ConfigError)
      .with.property("variable", "SVC_RATE_LIMIT_REDIS_TIMEOUT_MS");
  });
});
