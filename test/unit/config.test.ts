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
