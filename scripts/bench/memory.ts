// Benchmark of the service's resident memory, as `npm start` runs it on a fresh
// data directory (embedded) or a fresh database (--database-url): the peak
// during the first start (migrations, sandbox seed) up to the first answered
// /healthz, the resident memory once idle after it, and after 10,000 mixed
// requests (lists, cursor pages, single reads, an export) with the public
// sandbox key. Memory is the whole process tree's (VmRSS, VmHWM of
// /proc/PID/status summed over the process and its children). Baselines in the
// same run: the same server from its TypeScript sources through tsx's --import
// loader, the same through the `tsx` wrapper (`tsx src/main.ts`: a tsx process
// that runs the server as its child), both making a new embedded directory by
// initdb (the template is hidden meanwhile), so that they show what the compiled
// server and the template save; and a bare `node` process.
//
//   npx tsx scripts/bench/memory.ts [--database-url postgresql://…] [--requests 10000]
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { buildServer } from "../build-server.ts";
import { buildDatabaseTemplate } from "../build-database-template.ts";
import { embeddedTemplatePath } from "../../src/db/embedded-template.ts";
import { DEFAULT_PUBLIC_SANDBOX_KEY } from "../../src/kernel/config.ts";
import { fixed, machine, printTable } from "./harness.ts";
import { memoryOf, treeMemory } from "./procfs.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const IDLE_SETTLE_MS = 5_000;
const GOALS = { embedded: { idle: 300, peak: 450 }, postgresql: { idle: 200, peak: Number.POSITIVE_INFINITY } };

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Run {
  name: string;
  startSeconds: number;
  startPeak: number;
  idle: number;
  processes: number;
  afterRequests?: number;
  peakAfterRequests?: number;
}

async function waitForHealth(origin: string, child: ChildProcess, sample: () => void): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    sample();
    try {
      const response = await fetch(`${origin}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function mixedRequests(origin: string, count: number): Promise<void> {
  const headers = { Authorization: `Bearer ${DEFAULT_PUBLIC_SANDBOX_KEY}` };
  const list = (await (await fetch(`${origin}/api/v1/equivalencies?limit=100`, { headers })).json()) as {
    data: { id: string }[];
    pagination: { nextCursor: string | null };
  };
  const ids = (list.data as { id: string }[]).map((e) => e.id);
  const cursor = list.pagination.nextCursor as string | null;
  const paths = [
    "/healthz",
    "/api/v1/institutions?limit=25",
    "/api/v1/courses?limit=50",
    "/api/v1/equivalencies?limit=100",
    "/api/v1/equivalencies?limit=25&expand=course",
    ...(cursor ? [`/api/v1/equivalencies?limit=25&after=${encodeURIComponent(cursor)}`] : []),
    "/api/v1/organizations/me",
    ...ids.slice(0, 10).map((id) => `/api/v1/equivalencies/${id}`),
    "/api/v1/exports?resource=courses&format=csv",
  ];
  let next = 0;
  const result = await autocannon({
    url: origin,
    connections: 8,
    amount: count,
    headers,
    requests: [
      { method: "GET", setupRequest: (request: object) => ({ ...request, path: paths[next++ % paths.length] }) },
    ],
  });
  if (result.non2xx || result.errors) console.error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
}

async function measureStart(
  name: string,
  command: string[],
  databaseUrl: string | null,
  requests: number,
): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-memory-"));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      SVC_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? "",
      SVC_LOG_LEVEL: "warn",
      SVC_SECRETS_KEY: "c".repeat(64),
      SVC_RATE_LIMIT_BURST: "1000000",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: "1000000",
      SVC_RATE_LIMIT_ORG_BURST: "1000000",
      SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "1000000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  let startPeak = 0;
  const sample = () => {
    startPeak = Math.max(startPeak, treeMemory(child.pid!).peak);
  };
  try {
    const origin = `http://127.0.0.1:${port}`;
    await waitForHealth(origin, child, sample);
    sample();
    const startSeconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idle = treeMemory(child.pid!);
    const run: Run = { name, startSeconds, startPeak, idle: idle.rss, processes: idle.processes };
    if (requests > 0) {
      await mixedRequests(origin, requests);
      const after = treeMemory(child.pid!);
      run.afterRequests = after.rss;
      run.peakAfterRequests = after.peak;
    }
    return run;
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function bareNode(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const { rss } = memoryOf(child.pid!);
  child.kill("SIGKILL");
  return rss;
}

async function freshPgDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `svc_memory_${crypto.randomBytes(4).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  return { url: target.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

async function main() {
  const { values } = parseArgs({
    options: { "database-url": { type: "string" }, requests: { type: "string", default: "10000" } },
    strict: true,
  });
  const requests = Number(values.requests);
  const serverUrl = values["database-url"] ?? null;
  const embedded = !serverUrl;
  const runs: Run[] = [];
  const node = process.execPath;
  const tsxCli = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
  const startScript = (
    JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts.start;
  // The baselines run from the TypeScript sources, and with no data-directory template (a new
  // embedded directory made by initdb), which is hidden while they run.
  const variants: [string, string[], number, "template" | "initdb"][] = [
    // package.json's start script itself, through sh as npm runs it (the script execs node: one process).
    [`npm start: ${startScript}`, ["/bin/sh", "-c", startScript], requests, "template"],
    [
      "baseline: TypeScript through tsx's loader (node --import tsx src/main.ts), initdb",
      ["/bin/sh", "-c", "MALLOC_ARENA_MAX=2 exec node --import tsx src/main.ts"],
      0,
      "initdb",
    ],
    ["baseline: the tsx wrapper, tsx src/main.ts (two processes), initdb", [node, tsxCli, "src/main.ts"], 0, "initdb"],
  ];
  await buildServer();
  const template = embeddedTemplatePath();
  await buildDatabaseTemplate(template);
  const hidden = `${template}.hidden-by-bench`;
  for (const [name, command, count, creation] of variants) {
    const database = serverUrl ? await freshPgDatabase(serverUrl) : null;
    if (creation === "initdb") fs.renameSync(template, hidden);
    try {
      process.stderr.write(`${name}… `);
      runs.push(await measureStart(name, command, database?.url ?? null, count));
      const run = runs[runs.length - 1];
      process.stderr.write(`peak ${fixed(run.startPeak, 0)} MiB, idle ${fixed(run.idle, 0)} MiB\n`);
    } finally {
      if (creation === "initdb") fs.renameSync(hidden, template);
      await database?.drop();
    }
  }
  const bare = await bareNode();
  console.log(`\nMemory benchmark — ${embedded ? "embedded (PGlite)" : "PostgreSQL"}; ${machine()}\n`);
  printTable(
    [
      "process",
      "processes",
      "start s",
      "first-start peak MiB",
      "idle RSS MiB",
      `RSS after ${requests.toLocaleString("en-US")} requests MiB`,
      "÷ TypeScript-through-tsx baseline (idle)",
    ],
    [
      ...runs.map((run) => [
        run.name,
        run.processes,
        fixed(run.startSeconds, 1),
        fixed(run.startPeak, 0),
        fixed(run.idle, 0),
        run.afterRequests === undefined ? "" : fixed(run.afterRequests, 0),
        fixed(run.idle / runs[1].idle, 2),
      ]),
      ["baseline: bare node (does nothing)", 1, "", "", fixed(bare, 0), "", ""],
    ],
  );
  const goal = GOALS[embedded ? "embedded" : "postgresql"];
  const ours = runs[0];
  console.log(
    `\nGoals: idle ≤ ${goal.idle} MB ${ours.idle * 1.048576 <= goal.idle ? "met" : "NOT met"} (${fixed(ours.idle * 1.048576, 0)} MB)` +
      (Number.isFinite(goal.peak)
        ? `; first-start peak ≤ ${goal.peak} MB ${ours.startPeak * 1.048576 <= goal.peak ? "met" : "NOT met"} (${fixed(ours.startPeak * 1.048576, 0)} MB).`
        : "."),
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
