// `npm start` on a fresh machine: embedded database created, migrations
// applied, sandbox seeded, API answering. The tests build what `prestart` builds,
// then run package.json's start script itself (through sh, as npm runs it).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { DEFAULT_PUBLIC_SANDBOX_KEY } from "../../src/kernel/config.ts";
import { buildServer, SERVER_OUTPUT } from "../../scripts/build-server.ts";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { buildDatabaseTemplate } from "../../scripts/build-database-template.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

function waitForListening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.stderr!.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("npm start", () => {
  const startScript = (
    JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      scripts: { start: string };
    }
  ).scripts.start;
  before(async function () {
    this.timeout(120_000);
    await Promise.all([buildServer(), buildDashboard(), buildDatabaseTemplate()]);
    expect(fs.existsSync(path.join(SERVER_OUTPUT, "main.js"))).to.equal(true);
  });

  it("serves the seeded sandbox from a fresh data directory", async function () {
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-start-"));
    const port = String(20_000 + (process.pid % 20_000));
    const child = spawn("/bin/sh", ["-c", startScript], {
      cwd: ROOT,
      env: { ...process.env, PORT: port, SVC_DATA_DIR: dataDir, DATABASE_URL: "", SVC_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await waitForListening(child);
      expect(url).to.equal(`http://127.0.0.1:${port}/api/v1`);
      const response = await fetch(`${url}/institutions?limit=3`, {
        headers: { Authorization: `Bearer ${DEFAULT_PUBLIC_SANDBOX_KEY}` },
      });
      expect(response.status).to.equal(200);
      const body = (await response.json()) as { pagination: { total: number } };
      expect(body.pagination.total).to.be.at.least(40);
      expect(fs.existsSync(path.join(dataDir, "pglite"))).to.equal(true);
      // What the compiled server reads from the project (found from package.json, not from dist/).
      const origin = new URL(url).origin;
      for (const file of [
        "/api/v1/openapi.yaml",
        "/api/v1/openapi.json",
        "/api/v1/openapi-3.0.yaml",
        "/api/v1/openapi-3.0.json",
        "/dashboard/",
      ])
        expect((await fetch(`${origin}${file}`)).status, file).to.equal(200);
      // The server main.ts builds answers the HTTP parser's refusals as problems too.
      const oversized = await fetch(`${url}/institutions`, {
        headers: { "X-Padding": "a".repeat(http.maxHeaderSize + 1) },
      });
      expect(oversized.status).to.equal(431);
      expect(oversized.headers.get("content-type")).to.equal("application/problem+json");
      expect(await oversized.json()).to.include({
        type: "https://course-equivalency.org/problems/request-header-too-large",
        status: 431,
      });

      // The key that seals stored secrets: a key file of its own, readable by the owner only.
      expect(fs.statSync(path.join(dataDir, "secrets.key")).mode & 0o777).to.equal(0o600);
      const keyFile = fs.readFileSync(path.join(dataDir, "secrets.key"), "utf8");

      child.kill("SIGTERM");
      await exited(child);
      // Restarted with a key that did not seal the stored secrets: a clear refusal, the key file untouched.
      const wrongKey = spawn("/bin/sh", ["-c", startScript], {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: port,
          SVC_DATA_DIR: dataDir,
          DATABASE_URL: "",
          SVC_LOG_LEVEL: "silent",
          SVC_SECRETS_KEY: "ab".repeat(32),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      wrongKey.stderr.on("data", (chunk) => (stderr += chunk));
      expect(await exited(wrongKey)).to.equal(78);
      expect(stderr).to.contain("Stored secrets are sealed under key id").and.contain("SVC_SECRETS_OLD_KEYS");
      expect(fs.readFileSync(path.join(dataDir, "secrets.key"), "utf8")).to.equal(keyFile);
    } finally {
      child.kill("SIGTERM");
      await exited(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("refuses PostgreSQL in production without SVC_SECRETS_KEY, naming it", async function () {
    this.timeout(60_000);
    const child = spawn("/bin/sh", ["-c", startScript], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/postgres",
        NODE_ENV: "production",
        SVC_SECRETS_KEY: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    expect(await exited(child)).to.equal(78);
    expect(stderr).to.contain("SVC_SECRETS_KEY: must be set on PostgreSQL in production");
  });

  it("refuses an invalid variable, naming it", async function () {
    this.timeout(60_000);
    const child = spawn("/bin/sh", ["-c", startScript], {
      cwd: ROOT,
      env: { ...process.env, PORT: "not-a-port" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).to.equal(78);
    expect(stderr).to.contain("PORT");
  });
});
