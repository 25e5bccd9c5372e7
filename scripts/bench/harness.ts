// What both benchmarks share: a fresh database (embedded in a temporary
// directory, or a new database on the PostgreSQL server that --database-url
// names), the real app listening on an ephemeral loopback port, a credential,
// and the printing of figures. Everything created is removed at the end.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadConfig, type Config } from "../../src/kernel/config.ts";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { createApp, type App } from "../../src/app/app.ts";
import { createServer } from "../../src/app/server.ts";
import { blockBufferedDestination, createLogger } from "../../src/kernel/logger.ts";
import type { Database } from "../../src/db/database.ts";
import { createRepositories } from "../../src/repositories/index.ts";
import { createOrganizationsService } from "../../src/services/organizations.ts";
import { createKeysService } from "../../src/services/keys.ts";
import { createStewardshipService } from "../../src/services/stewardship.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";

/** Benchmarks run on throwaway databases; a fixed key lets the server process and its parent share one. */
const BENCH_SECRETS_KEY = "b".repeat(64);

export interface BenchOptions {
  databaseUrl: string | null;
  /** Embedded only: this data directory, kept afterwards (a loaded database is reused by the next run). */
  keepDataDir?: string;
}

export function readOptions(): BenchOptions {
  const { values } = parseArgs({ options: { "database-url": { type: "string" } }, strict: true });
  return { databaseUrl: values["database-url"] ?? null };
}

export interface BenchDatabase {
  database: Database;
  config: Config;
  label: string;
  /** Closes the database and deletes its files (or drops the server database). */
  dispose(): Promise<void>;
}

/**
 * The server runs as in production (info-level request logs, serialised by pino and
 * written in blocks by blockBufferedDestination), to /dev/null so the terminal shows
 * only the figures; the rate limits are lifted (still counted), or they would be what
 * the benchmark measures.
 */
export function benchConfig(dataDir: string, databaseUrl: string | null): Config {
  return loadConfig({
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? "",
    SVC_LOG_LEVEL: "info",
    SVC_SEED_SANDBOX: "false",
    SVC_WEBHOOK_DISPATCHER: "off",
    SVC_RATE_LIMIT_BURST: "1000000",
    SVC_RATE_LIMIT_REFILL_PER_SECOND: "1000000",
    SVC_RATE_LIMIT_ORG_BURST: "1000000",
    SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "1000000",
    NODE_ENV: "production",
    SVC_SECRETS_KEY: BENCH_SECRETS_KEY,
  });
}

const silentLog = createLogger("silent");

export async function freshDatabase(options: BenchOptions): Promise<BenchDatabase> {
  if (!options.databaseUrl && options.keepDataDir) {
    fs.mkdirSync(options.keepDataDir, { recursive: true });
    const config = benchConfig(options.keepDataDir, null);
    const database = await openMigratedDatabase(config, silentLog);
    return {
      database,
      config,
      label: `embedded (PGlite, kept in ${options.keepDataDir})`,
      dispose: () => database.close().catch(() => undefined),
    };
  }
  if (!options.databaseUrl) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-"));
    // Last resort when the run dies mid-query: exit handlers may only be synchronous.
    const removeFiles = () => fs.rmSync(dataDir, { recursive: true, force: true });
    process.once("exit", removeFiles);
    const config = benchConfig(dataDir, null);
    const database = await openMigratedDatabase(config, silentLog);
    return {
      database,
      config,
      label: "embedded (PGlite, temporary data directory)",
      async dispose() {
        await withTimeout(database.close(), 10_000).catch(() => undefined);
        removeFiles();
      },
    };
  }
  const name = `svc_bench_${crypto.randomBytes(5).toString("hex")}`;
  await adminQuery(options.databaseUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(options.databaseUrl);
  url.pathname = `/${name}`;
  const config = benchConfig(os.tmpdir(), url.toString());
  const database = await openMigratedDatabase(config, silentLog);
  return {
    database,
    config,
    label: `PostgreSQL (${url.host}, temporary database)`,
    async dispose() {
      await database.close().catch(() => undefined);
      await adminQuery(options.databaseUrl!, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface RunningServer {
  app: App;
  origin: string;
  close(): Promise<void>;
}

export async function startServer(bench: BenchDatabase): Promise<RunningServer> {
  const log = createLogger(bench.config.logLevel, blockBufferedDestination(os.devNull));
  const app = await createApp({
    config: bench.config,
    database: bench.database,
    log,
    secrets: openKeyring(bench.config).box,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = createServer(app.koa).listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    app,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }).then(() => app.close()),
  };
}

/** An organization with a live key holding both scopes (a new key for the one a kept database already has). */
export async function createCredential(database: Database): Promise<{ organizationId: string; key: string }> {
  const repositories = createRepositories(database.prisma);
  const existing = await repositories.organizations.findBySlug("bench");
  const organization =
    existing ??
    (await createOrganizationsService(repositories).createOrganization({
      slug: "bench",
      name: "Benchmark",
      source: "direct",
    }));
  const { key } = await createKeysService(repositories).issueKey({
    organizationId: organization.id,
    environment: "live",
  });
  if (!existing)
    await createStewardshipService(createRepositories(database.prisma)).grantStewardship(organization.id, "live", {
      all: true,
    });
  return { organizationId: organization.id, key };
}

/** Institutions "inst_9000NN" in the live environment. */
export async function createInstitutions(database: Database, count: number): Promise<string[]> {
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO institutions (environment, id, ipeds_id, name, city, state, type, source, created_at, updated_at)
     SELECT 'live', 'inst_' || (900000 + n), (900000 + n)::text, 'Benchmark College ' || n, 'Springfield', 'CA',
            (ARRAY['community_college', 'four_year_public', 'four_year_private'])[1 + n % 3]::"InstitutionType", 'direct', now(), now()
     FROM generate_series(1, $1::int) AS n`,
    count,
  );
  return Array.from({ length: count }, (_, i) => `inst_${900001 + i}`);
}

/**
 * Things to undo at the end, last first; also on Ctrl-C, so no temporary data
 * survives an interrupted run. Each runs once however many times cleanup is called.
 */
export function cleanupStack() {
  const disposers: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const dispose of disposers.splice(0).reverse()) await dispose().catch(() => undefined);
  };
  const stop = () => {
    cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return { push: (dispose: () => Promise<void>) => disposers.push(dispose), cleanup };
}

export function percentile(sortedMs: number[], p: number): number {
  if (!sortedMs.length) return NaN;
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)];
}

export function machine(): string {
  const cpus = os.cpus();
  const load = os.loadavg()[0].toFixed(1);
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${load}`;
}

export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of cells.slice(1)) console.log(line(row));
}

export function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

/** Runs a benchmark's main and exits: 0 when it finished, 1 (with the error printed) when it failed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/** Runs cleanup on Ctrl-C too (scripts that keep their own list of disposers). */
export function onInterrupt(cleanup: () => Promise<void>): void {
  const stop = () => {
    cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
