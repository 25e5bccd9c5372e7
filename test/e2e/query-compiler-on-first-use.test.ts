// Prisma loads its query compiler (WebAssembly, tens of MiB resident) with the client's first query, raw
// ones included. A fresh start (migrations, stored secrets, the sandbox key, seed and grants, the
// signing key), its readiness probes and the inline dispatcher's idle polls go through the driver
// (Database.statement), so an idle server never loads it; the first request that needs a Prisma
// query does (docs/benchmarks.md, idle memory). The compiled server runs as `npm start` runs it, with
// test/helpers/query-compiler-probe.mjs preloaded: it says on standard error when the compiler is imported.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { DEFAULT_PUBLIC_SANDBOX_KEY } from "../../src/kernel/config.ts";
import { buildServer, SERVER_OUTPUT } from "../../scripts/build-server.ts";
import { buildDatabaseTemplate } from "../../scripts/build-database-template.ts";
import { emptyDatabase, usingPostgres, type TestDatabase } from "../helpers/database.ts";
import { exited, ROOT } from "../helpers/processes.ts";

const PROBE = path.join(ROOT, "test/helpers/query-compiler-probe.mjs");
const LOADED = "query compiler loaded:";
/** Eight of the dispatcher's 250 ms polls: the compiler, loaded by any of them, would be reported within it. */
const IDLE_MS = 2_000;

interface Output {
  stdout: string;
  stderr: string;
}

function watch(child: ChildProcess): Output {
  const output = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk: Buffer) => (output.stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output.stderr += chunk.toString("utf8")));
  return output;
}

/** Resolves with the API's URL once the server logs that it listens. */
function listening(child: ChildProcess, output: Output): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const line = output.stdout.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stdout!.on("data", look);
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${output.stderr}`)));
  });
}

/** Resolves once the probe reported the compiler. */
function reported(child: ChildProcess, output: Output): Promise<void> {
  return new Promise((resolve, reject) => {
    const look = () => {
      if (output.stderr.includes(LOADED)) resolve();
    };
    look();
    child.stderr!.on("data", look);
    child.once("exit", () =>
      reject(new Error(`the server exited without loading the query compiler: ${output.stderr}`)),
    );
  });
}

describe("Prisma's query compiler, loaded with the first request that needs it", function () {
  this.timeout(180_000);
  let database: TestDatabase | null = null;
  let dataDir: string;

  before(async () => {
    await Promise.all([buildServer(), buildDatabaseTemplate()]);
    expect(fs.existsSync(path.join(SERVER_OUTPUT, "main.js"))).to.equal(true);
  });

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-compiler-"));
    // On PostgreSQL a database without any migration, as a first start finds it.
    database = usingPostgres ? await emptyDatabase() : null;
  });

  afterEach(async () => {
    await database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`is not loaded by a fresh start, readiness or the idle dispatcher (${usingPostgres ? "PostgreSQL" : "embedded"})`, async () => {
    const child = spawn(process.execPath, ["--import", PROBE, path.join(SERVER_OUTPUT, "main.js")], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: "0",
        SVC_DATA_DIR: dataDir,
        DATABASE_URL: database?.url ?? "",
        SVC_SECRETS_KEY: "c".repeat(64),
        SVC_LOG_LEVEL: "info",
        SVC_WEBHOOK_DISPATCHER: "inline",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = watch(child);
    try {
      const api = await listening(child, output);
      expect(output.stdout, "the first start seeded the sandbox").to.contain("seeded the sandbox environment");
      const origin = new URL(api).origin;
      for (const probe of ["/healthz", "/readyz"])
        expect((await fetch(`${origin}${probe}`)).status, probe).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      expect(output.stderr, "loaded before any request needed it").to.not.contain(LOADED);

      // The probe works, and the first request that runs a Prisma query loads the compiler.
      const answer = await fetch(`${api}/institutions?limit=1`, {
        headers: { Authorization: `Bearer ${DEFAULT_PUBLIC_SANDBOX_KEY}` },
      });
      expect(answer.status).to.equal(200);
      await reported(child, output);
      expect(output.stderr).to.contain("query_compiler");
    } finally {
      child.kill("SIGTERM");
      await exited(child);
    }
  });
});
