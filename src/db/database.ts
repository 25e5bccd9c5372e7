// Opens the database the configuration names: PGlite in the data directory by
// default (no server to install), or a PostgreSQL server for DATABASE_URL.
// Both run the same Prisma schema and the same migrations. PGlite runs in a
// thread of its own (src/db/embedded-engine.ts), off the server's event loop.
import fs from "node:fs";
import path from "node:path";
import { pipeline, type Readable } from "node:stream";
import type pg from "pg";
import { PrismaClient } from "../../generated/prisma/client.ts";
import { binaryCopy, copyValuesOfBinary } from "./copy-values.ts";
import { lockDirectory } from "./directory-lock.ts";
import { EmbeddedEngine } from "./embedded-engine.ts";
import { embeddedAdapterFactory } from "./embedded-adapter.ts";
import { embeddedTemplatePath } from "./embedded-template.ts";
import { serialTransactions } from "./serial-transactions.ts";

export type Db = PrismaClient;

/** One row read by Database.readBytes: its text column's bytes (empty for NULL or no row), and the rest. */
export interface BytesRow {
  bytes: Buffer;
  /** The row's other columns; null when the statement answered no row. */
  row: Record<string, unknown> | null;
}

/** Executes plain SQL scripts (several statements at once) outside Prisma. */
export interface SqlRunner {
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Database {
  prisma: Db;
  /**
   * One statement outside any transaction, straight to the driver (the pool, or the embedded
   * database's thread), without Prisma's query pipeline; rows as the driver parses them. The hottest
   * reads use it (their SQL is hand-written anyway), and so do start-up (stored secrets, the sandbox's
   * key and seed, the signing key), the dispatcher's idle poll and readiness, which may write (a single
   * statement is atomic on its own): Prisma loads its query compiler (tens of MiB resident) with its
   * first query, raw ones included, so an idle process that never ran one never pays for it
   * (docs/benchmarks.md).
   */
  statement<T>(sql: string, params: unknown[]): Promise<T[]>;
  /**
   * PostgreSQL only: the text values of a one-column select, concatenated, as the bytes the server
   * sends (copy-values.ts), streamed with the server's pace and the reader's backpressure. Resolves
   * once a connection is held (a failing statement fails the stream); the connection is held until the stream
   * ends, and closed rather than reused when the stream fails or is abandoned.
   */
  copyValues?(select: string): Promise<Readable>;
  /**
   * The embedded database only: a read-only statement of one row, its text column `column` as
   * UTF-8 bytes and the other columns as the driver parses them. The bytes cross from the
   * database's thread in a transferred buffer, so the text never becomes a string on this thread
   * (what the exports' batches are read with: docs/benchmarks.md).
   */
  readBytes?(sql: string, params: unknown[], column: string): Promise<BytesRow>;
  /** Runs fn on one database session (advisory locks and scripts need one). */
  session<T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T>;
  kind: "embedded" | "postgresql";
  /** Resolves once the database answered a trivial query (readiness); rejects when it cannot. */
  ping(): Promise<void>;
  /**
   * Settles when the database became unusable by itself (the embedded database's
   * thread stopped); the process should then exit rather than answer errors.
   */
  lost: Promise<Error>;
  /**
   * Hears NOTIFY on `channel` from every process on this database (PostgreSQL;
   * the embedded database has one process, so nothing to hear). `onGap` runs
   * after the listening connection was lost and restored: notices sent in
   * between were missed. Answers a function that stops listening.
   */
  listen(channel: string, onNotice: (payload: string) => void, onGap: () => void): () => Promise<void>;
  /**
   * Gives back the memory first-start work (creating, migrating, seeding) left behind: the
   * embedded database restarts its thread (EmbeddedEngine.restart); nothing to do on PostgreSQL.
   * Only before the database serves requests.
   */
  shedStartupMemory(): Promise<void>;
  /** The connection pool's state (PostgreSQL), for metrics. */
  poolStats(): { total: number; idle: number; waiting: number; max: number } | null;
  close(): Promise<void>;
}

// Bursts of writes queue for PGlite's single connection; the defaults (2 s wait,
// 5 s run) fail under load on both databases (see offline notes).
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 15_000 };

export function embeddedDataPath(dataDir: string): string {
  return path.join(dataDir, "pglite");
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /**
   * An embedded database in memory instead of the data directory, loaded from a
   * dump (PGlite's dumpDataDir) when given: tests start each file from a copy of
   * a migrated template.
   */
  inMemory?: { dump?: Blob };
  /** The embedded database's shared_buffers (Config.embeddedSharedBuffersMb). */
  sharedBuffersMb?: number;
  /**
   * The dump a new data directory is loaded from (src/db/embedded-template.ts); the installed
   * PGlite's template by default, null to always run initdb.
   */
  embeddedTemplate?: string | null;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  if (options.inMemory)
    return openEmbedded(
      await EmbeddedEngine.open({
        kind: "memory",
        dump: options.inMemory.dump,
        sharedBuffersMb: options.sharedBuffersMb,
      }),
      () => undefined,
    );
  const dir = embeddedDataPath(options.dataDir);
  const unlock = lockWritableDirectory(options.dataDir, dir);
  try {
    return await openEmbedded(
      await EmbeddedEngine.open({
        kind: "directory",
        path: dir,
        template:
          options.embeddedTemplate === undefined ? embeddedTemplatePath() : (options.embeddedTemplate ?? undefined),
        sharedBuffersMb: options.sharedBuffersMb,
      }),
      unlock,
    );
  } catch (error) {
    unlock();
    throw error;
  }
}

/** A data directory that cannot be created or written. */
export class DataDirectoryError extends Error {}

/** Creates the data directory if needed; one this user cannot write is refused plainly (DataDirectoryError). */
export function ensureWritableDirectory(dir: string, dataDir: string = dir): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM" || code === "EROFS")
      throw new DataDirectoryError(
        `Cannot write the data directory ${dataDir} (${code}). Make it writable by this user, or set SVC_DATA_DIR to a directory that is.`,
      );
    throw error;
  }
}

/** Creates the data directory if needed and takes its lock. */
function lockWritableDirectory(dataDir: string, dir: string): () => void {
  ensureWritableDirectory(dir, dataDir);
  return lockDirectory(dataDir);
}

async function openEmbedded(engine: EmbeddedEngine, unlock: () => void): Promise<Database> {
  const prisma = new PrismaClient({
    adapter: serialTransactions(embeddedAdapterFactory(engine)),
    transactionOptions: TRANSACTION_OPTIONS,
  });
  const statement = <T>(sql: string, params: unknown[]) => engine.call<T[]>({ op: "read", sql, params });
  return {
    prisma,
    kind: "embedded",
    ping: async () => void (await statement("SELECT 1", [])),
    session: (fn) =>
      fn({
        async exec(sql) {
          await engine.call({ op: "exec", sql });
        },
        query: <T>(sql: string, params: unknown[] = []) => engine.call<T[]>({ op: "query", sql, params }),
      }),
    lost: engine.stopped,
    listen: () => async () => undefined,
    shedStartupMemory: () => engine.restart(),
    statement,
    async readBytes(sql, params, column) {
      const { bytes, row } = await engine.call<{ bytes: Uint8Array; row: BytesRow["row"] }>({
        op: "readBytes",
        sql,
        params,
        column,
      });
      return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), row };
    },
    poolStats: () => null,
    async close() {
      await prisma.$disconnect();
      try {
        await engine.close();
      } finally {
        unlock();
      }
    },
  };
}

/** How long to wait before reconnecting a lost LISTEN connection, at most. */
const LISTEN_RETRY_MAX_MS = 5_000;

/** A connection of its own that LISTENs, and reconnects (with a growing pause) when the server goes away. */
function listenOnServer(
  Client: typeof pg.Client,
  url: string,
  channel: string,
  onNotice: (payload: string) => void,
  onGap: () => void,
) {
  let stopped = false;
  let client: pg.Client | null = null;
  let retryMs = 100;
  let timer: NodeJS.Timeout | null = null;
  let everConnected = false;
  const connect = async () => {
    timer = null;
    if (stopped) return;
    const next = new Client({ connectionString: url });
    client = next;
    let failed = false;
    const retry = () => {
      if (failed) return;
      failed = true;
      next.end().catch(() => undefined);
      if (client === next) client = null;
      if (!stopped) timer = setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MAX_MS);
    };
    next.on("error", retry);
    next.on("end", retry);
    next.on("notification", (message) => {
      if (message.channel === channel) onNotice(message.payload ?? "");
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      retryMs = 100;
      if (everConnected) onGap();
      everConnected = true;
    } catch {
      retry();
    }
  };
  void connect();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const current = client;
    client = null;
    await current?.end().catch(() => undefined);
  };
}

async function openPostgres(url: string): Promise<Database> {
  // The driver loads here, not with the server: the embedded database never needs it (docs/benchmarks.md, memory).
  const [{ default: pg }, { PrismaPg }] = await Promise.all([import("pg"), import("@prisma/adapter-pg")]);
  const max = 10;
  // Every statement of the service is planned for a few rows at a time; PostgreSQL's JIT compiler
  // takes the estimates of the exports' per-row lookups for a costly query and compiles it for
  // 0.8 s before the first row (75 functions for the CSV export of 20,000 rules: half its time).
  // Off for the service's connections, by their start-up options (docs/operations.md); `options`
  // in DATABASE_URL replaces these.
  const pool = new pg.Pool({ connectionString: url, max, options: "-c jit=off" });
  // An idle connection that the server closes (restart, failover) is replaced on
  // the next checkout; without a listener the pool's error would end the process.
  pool.on("error", () => undefined);
  const prisma = new PrismaClient({
    adapter: serialTransactions(new PrismaPg(pool)),
    transactionOptions: TRANSACTION_OPTIONS,
  });
  const statement = async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[];
  return {
    prisma,
    kind: "postgresql",
    ping: async () => void (await statement("SELECT 1", [])),
    // The pool replaces broken connections itself; a lost server shows as failed queries.
    lost: new Promise<Error>(() => undefined),
    listen: (channel, onNotice, onGap) => listenOnServer(pg.Client, url, channel, onNotice, onGap),
    shedStartupMemory: async () => undefined,
    statement,
    async copyValues(select: string) {
      const { to } = await import("pg-copy-streams");
      const client = await pool.connect();
      const values = copyValuesOfBinary();
      // A connection left inside an unfinished COPY cannot serve another query: it is closed.
      pipeline(client.query(to(binaryCopy(select))), values, (error) => client.release(error ?? undefined));
      return values;
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
    async session(fn) {
      const client = await pool.connect();
      try {
        return await fn({
          async exec(sql) {
            await client.query(sql);
          },
          async query<T>(sql: string, params: unknown[] = []) {
            return (await client.query(sql, params)).rows as T[];
          },
        });
      } finally {
        client.release();
      }
    },
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
