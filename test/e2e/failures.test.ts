// Failures a person causes, as that person sees them: one line on standard error
// saying what failed, why and what to do, a non-zero exit, and no stack trace
// unless SVC_LOG_LEVEL=debug. The server and the CLI run as processes; the
// permission cases run as an unprivileged user when the tests run as root
// (root reads and writes everything).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { runCli } from "../../src/cli/program.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
/** tsx's loader by its URL, so that a process started in another directory finds it. */
const TSX_LOADER = import.meta.resolve("tsx");
/** When the tests run as root, the permission cases run as nobody. */
const UNPRIVILEGED = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: "", SVC_LOG_LEVEL: "warn", PORT: "0", ...extra };
}

function runProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { cwd?: string; uid?: number; gid?: number } = {},
) {
  return new Promise<Outcome>((resolve) => {
    const child = spawn(process.execPath, ["--import", TSX_LOADER, ...args], {
      cwd: options.cwd ?? ROOT,
      env,
      uid: options.uid,
      gid: options.gid,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const server = (env: NodeJS.ProcessEnv, options?: { uid?: number; gid?: number }) =>
  runProcess([path.join(ROOT, "src/main.ts")], env, options);
const cli = (args: string[], env: NodeJS.ProcessEnv, options?: { cwd?: string; uid?: number; gid?: number }) =>
  runProcess([path.join(ROOT, "scripts/cli.ts"), ...args], env, options);

/** One line, non-zero, no stack. */
function expectOneLine(outcome: Outcome, pattern: RegExp) {
  expect(outcome.code, outcome.stderr).to.not.equal(0);
  expect(outcome.stderr).to.match(pattern);
  expect(outcome.stderr.trimEnd().split("\n"), outcome.stderr).to.have.length(1);
  expect(outcome.stderr).to.not.match(/\n\s+at /);
}

describe("Clean failures: one line, non-zero, no stack", function () {
  this.timeout(180_000);
  let tmp: string;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "failures-"));
    fs.chmodSync(tmp, 0o755);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("cip import of a missing file says which file and where it looked", async () => {
    const outcome = await cli(["cip", "import", "missing.csv"], baseEnv({ SVC_DATA_DIR: path.join(tmp, "data-a") }), {
      cwd: tmp,
    });
    expectOneLine(
      outcome,
      /^error: Cannot read missing\.csv: there is no such file \(looked in .*\)\. Check the path\.\n$/,
    );
    expect(fs.existsSync(path.join(tmp, "data-a")), "the data directory is not touched").to.equal(false);
  });

  it("an unreadable file says permission denied and what to do", async () => {
    const file = path.join(tmp, "locked.csv");
    fs.copyFileSync(path.join(FIXTURES, "cip2020-sample.csv"), file);
    fs.chmodSync(file, 0o000);
    const outcome = await cli(["cip", "import", "locked.csv"], baseEnv({ SVC_DATA_DIR: path.join(tmp, "data-b") }), {
      cwd: tmp,
      ...UNPRIVILEGED,
    });
    expectOneLine(outcome, /^error: Cannot read locked\.csv: permission denied\. Make it readable by this user/);
  });

  it("a busy port is reported before the data directory is created", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const dataDir = path.join(tmp, "never-created");
      const outcome = await server(baseEnv({ PORT: String(port), SVC_DATA_DIR: dataDir }));
      expectOneLine(outcome, new RegExp(`^Failed to start: Port ${port} on 127\\.0\\.0\\.1 is already in use .*PORT=`));
      expect(fs.existsSync(dataDir)).to.equal(false);
    } finally {
      holder.close();
    }
  });

  it("a data directory held by another process stops the server and the CLI with the reason", async () => {
    const dataDir = path.join(tmp, "held");
    fs.mkdirSync(dataDir);
    // This test process stands for the holder: alive, and not a server (no socket to forward to).
    fs.writeFileSync(path.join(dataDir, "svc.lock"), String(process.pid));
    const started = await server(baseEnv({ SVC_DATA_DIR: dataDir }));
    expectOneLine(
      started,
      new RegExp(`^Failed to start: The embedded database in .* is in use by process ${process.pid}\\.`),
    );
    const listed = await cli(["orgs", "list"], baseEnv({ SVC_DATA_DIR: dataDir }));
    expectOneLine(listed, new RegExp(`^error: The embedded database in .* is in use by process ${process.pid}\\.`));
  });

  it("a DATABASE_URL whose database does not exist says to create it, with the command", async () => {
    const url = "postgresql://postgres@127.0.0.1:5432/svc_no_such_database";
    const env = baseEnv({ DATABASE_URL: url, SVC_SECRETS_KEY: "ab".repeat(32) });
    const started = await server(env);
    expectOneLine(
      started,
      /^Failed to start: The PostgreSQL database svc_no_such_database does not exist .* Create it first \(createdb -h 127\.0\.0\.1 -p 5432 -U postgres svc_no_such_database\)/,
    );
    const status = await cli(["db", "status"], env);
    expectOneLine(status, /^error: The PostgreSQL database svc_no_such_database does not exist/);
    // With SVC_LOG_LEVEL=debug, the stack follows the line.
    const debug = await cli(["db", "status"], { ...env, SVC_LOG_LEVEL: "debug" });
    expect(debug.code).to.equal(1);
    expect(debug.stderr).to.match(/^error: The PostgreSQL database svc_no_such_database does not exist/);
    expect(debug.stderr).to.match(/\n\s+at /);
  });

  it("a data directory this user cannot write stops the server with the directory and what to do", async () => {
    const dataDir = path.join(tmp, "read-only");
    fs.mkdirSync(dataDir);
    fs.chmodSync(dataDir, 0o555);
    const outcome = await server(baseEnv({ SVC_DATA_DIR: dataDir }), UNPRIVILEGED);
    expectOneLine(
      outcome,
      new RegExp(
        `^Failed to start: Cannot write the data directory ${dataDir} \\(EACCES\\)\\. Make it writable by this user, or set SVC_DATA_DIR`,
      ),
    );
    expect(fs.readdirSync(dataDir)).to.deep.equal([]);
  });
});

describe("Clean failures of the imports (wrong file, nothing imported)", function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let tmp: string;

  async function cli(...argv: string[]): Promise<Outcome> {
    const outcome: Outcome = { code: null, stdout: "", stderr: "" };
    const shared = async () => ({ ...db, close: async () => {} });
    outcome.code = await runCli(
      argv,
      { stdout: (text) => void (outcome.stdout += text), stderr: (text) => void (outcome.stderr += text) },
      { openDb: shared, openRaw: shared, cwd: tmp },
    );
    return outcome;
  }

  before(async () => {
    db = await freshDatabase();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "import-failures-"));
  });
  after(async () => {
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("refuses a CSV whose header is not the expected one, naming the missing columns", async () => {
    const cip = await cli("institutions", "import", path.join(FIXTURES, "cip2020-sample.csv"), "--env", "live");
    expectOneLine(cip, /is not an IPEDS HD file: its header has no UNITID, INSTNM, CITY, STABBR, SECTOR column\./);
    expect(cip.stdout).to.equal("");
    const ipeds = await cli("cip", "import", path.join(FIXTURES, "ipeds-hd2023-sample.csv"));
    expectOneLine(ipeds, /is not a CIP 2020 file: its header has no CIP_Code \(or CIPCode\) column\./);
    expect(await db.prisma.institution.count({ where: { environment: "live" } })).to.equal(0);
  });

  it("exits non-zero when every row is skipped, and says plainly that a row has no sector", async () => {
    fs.writeFileSync(
      path.join(tmp, "no-sector.json"),
      JSON.stringify([{ UNITID: "122977", INSTNM: "Santa Monica College", CITY: "Santa Monica", STABBR: "CA" }]),
    );
    const outcome = await cli("institutions", "import", "no-sector.json", "--env", "live");
    expect(outcome.code).to.equal(1);
    expect(outcome.stdout).to.equal(
      "Read 1 rows: 0 created, 0 updated, 0 unchanged, 1 skipped.\n  skipped 1: no SECTOR value\n",
    );
    expectOneLine(outcome, /^error: No institution was imported: all 1 rows of no-sector\.json were skipped/);
    fs.writeFileSync(path.join(tmp, "empty.json"), "[]");
    const empty = await cli("institutions", "import", "empty.json", "--env", "live");
    expectOneLine(empty, /^error: No institution was imported: empty\.json holds no rows\.\n$/);
  });
});
