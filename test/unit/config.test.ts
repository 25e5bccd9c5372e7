import { expect } from "chai";
import { ConfigError, DEFAULT_PUBLIC_SANDBOX_KEY, loadConfig } from "../../src/config.ts";

describe("configuration", () => {
  it("has documented defaults", () => {
    const config = loadConfig({});
    expect(config.port).to.equal(3000);
    expect(config.host).to.equal("127.0.0.1");
    expect(config.databaseUrl).to.equal(null);
    expect(config.dataDir).to.match(/\/data$/);
    expect(config.publicSandboxKey).to.equal(DEFAULT_PUBLIC_SANDBOX_KEY);
    expect(config.logLevel).to.equal("info");
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
    expect(config).to.include({ port: 8080, host: "0.0.0.0", dataDir: "/var/lib/svc", databaseUrl: "postgresql://svc@db:5432/svc", logLevel: "debug" });
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
  it("defaults to the decisions' retry schedule and allows private targets outside production", () => {
    const config = loadConfig({});
    expect(config.webhooks.retrySchedule).to.deep.equal([5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(config.webhooks).to.include({ allowPrivateTargets: true, timeoutMs: 5000, dispatcher: "inline", disableAfterMs: 5 * 86_400_000 });
    expect(loadConfig({ NODE_ENV: "production" }).webhooks.allowPrivateTargets).to.equal(false);
    expect(config.datasets.stalePendingDays).to.equal(90);
  });

  it("reads SVC_WEBHOOK_RETRY_SCHEDULE as comma-separated durations", () => {
    expect(loadConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: "1s, 2s,500ms" }).webhooks.retrySchedule).to.deep.equal([1000, 2000, 500]);
    expect(() => loadConfig({ SVC_WEBHOOK_RETRY_SCHEDULE: "1s,soon" })).to.throw(ConfigError).with.property("variable", "SVC_WEBHOOK_RETRY_SCHEDULE");
    expect(() => loadConfig({ SVC_WEBHOOK_DISPATCHER: "cron" })).to.throw(ConfigError).with.property("variable", "SVC_WEBHOOK_DISPATCHER");
    expect(() => loadConfig({ SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "sometimes" })).to.throw(ConfigError);
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
      redis: { url: "redis://cache:6380/2", keyPrefix: "staging:", timeoutMs: 50 },
    });
    expect(config.trustProxy).to.equal(true);
  });

  it("refuses SVC_RATE_LIMIT_REDIS_TIMEOUT_MS out of range", () => {
    expect(() => loadConfig({ SVC_RATE_LIMIT_REDIS_URL: "redis://127.0.0.1:6379", SVC_RATE_LIMIT_REDIS_TIMEOUT_MS: "1" }))
      .to.throw(ConfigError)
      .with.property("variable", "SVC_RATE_LIMIT_REDIS_TIMEOUT_MS");
  });
});
