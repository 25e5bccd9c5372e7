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
