// `secrets rotate` with the key file on PostgreSQL, where the CLI opens the database itself rather
// than going through a server's socket: refused in one line with nothing changed while a server
// runs (it holds a shared advisory lock for its lifetime), done once the server has stopped.
// PostgreSQL only (SVC_TEST_DATABASE_URL); beside an embedded server the socket refuses it
// (test/e2e/cli-channel.test.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { runCli } from "../../src/cli/program.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import type { Database } from "../../src/db/database.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { type ServiceProcess, spawnService } from "../helpers/processes.ts";

describe("secrets rotate (key file) beside a server on PostgreSQL", function () {
  this.timeout(300_000);
  let database: TestDatabase;
  let dataDir: string;
  let server: ServiceProcess | null = null;
  let cliDatabase: Database | null = null;

  before(async function () {
    database = await freshDatabase();
    if (!database.url) {
      await database.close();
      this.skip();
    }
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-server-presence-"));
  });
  after(async () => {
    await server?.kill();
    await cliDatabase?.close();
    if (database?.url) await database.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("is refused while a server runs, nothing changed, and rotates once it has stopped", async () => {
    const env = {
      PORT: "0",
      DATABASE_URL: database.url!,
      SVC_DATA_DIR: dataDir,
      SVC_SECRETS_KEY: "",
      SVC_SEED_SANDBOX: "false",
      SVC_WEBHOOK_DISPATCHER: "off",
    };
    server = spawnService("src/main.ts", env);
    await server.waitForLog("listening");
    const config = loadConfig(env);
    cliDatabase = await openMigratedDatabase(config, createLogger("silent"));
    const shared = async () => ({ ...cliDatabase!, close: async () => {} });
    const rotate = async () => {
      const transcript = { stdout: "", stderr: "", code: -1 };
      transcript.code = await runCli(
        ["secrets", "rotate"],
        { stdout: (t) => void (transcript.stdout += t), stderr: (t) => void (transcript.stderr += t) },
        { openDb: shared, openRaw: shared, openKeys: () => openKeyring(config) },
      );
      return transcript;
    };
    const keyFile = openKeyring(config).keyFile!;
    const before = fs.readFileSync(keyFile, "utf8");

    const refused = await rotate();
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^error: secrets rotate cannot change the key file .* beside the running server/);
    expect(refused.stderr.trim().split("\n")).to.have.length(1);
    expect(fs.readFileSync(keyFile, "utf8")).to.equal(before);

    await server.stop();
    const rotated = await rotate();
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stdout).to.contain("now holds only the new key");
    expect(fs.readFileSync(keyFile, "utf8")).to.not.equal(before);
  });
});
