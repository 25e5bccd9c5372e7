// The embedded database runs in a worker thread (src/db/embedded-engine.ts). These
// tests hold on both suites (they open embedded databases of their own): the
// server's event loop stays free while a query runs, values cross the thread
// boundary unchanged, transactions stay exclusive, the session runner works, a
// dead thread fails requests instead of hanging them, and data survives a close.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { expect } from "chai";
import { PrismaClient } from "../../generated/prisma/client.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import { createApp } from "../../src/app/app.ts";
import { SecretBox } from "../../src/kernel/secret-box.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { openDatabase } from "../../src/db/database.ts";
import { EmbeddedEngine, EmbeddedEngineStoppedError } from "../../src/db/embedded-engine.ts";
import { applyMigrations } from "../../src/db/migrations.ts";
import { buildEmbeddedTemplate, freshEmbeddedDatabase, type TestDatabase } from "../helpers/database.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** About a second of work for PGlite on this machine class; the assertions are relative to its measured duration. */
const HEAVY_QUERY = "SELECT sum(n)::text AS total FROM generate_series(1, 3000000) AS n";

const TICK_MS = 10;

/**
 * How long `work` took, and the longest stretch in which a 10 ms timer could not
 * run meanwhile (counting the stretch from the last tick to the end, which a
 * histogram of timer delays would miss when the work blocks to its very end).
 */
async function blockedDuring(work: () => Promise<unknown>): Promise<{ durationMs: number; maxLagMs: number }> {
  const started = performance.now();
  let lastTick = started;
  let longestGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - lastTick);
    lastTick = now;
  }, TICK_MS);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const ended = performance.now();
  longestGap = Math.max(longestGap, ended - lastTick);
  return { durationMs: ended - started, maxLagMs: Math.max(0, longestGap - TICK_MS) };
}

describe("the embedded database's own thread", () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshEmbeddedDatabase();
  });
  after(() => db.close());

  it("keeps the event loop free during a long query, where PGlite on the main thread blocks it", async function () {
    this.timeout(120_000);
    const worker = await blockedDuring(() => db.prisma.$queryRawUnsafe(HEAVY_QUERY));
    const mainThread = await PGlite.create({ loadDataDir: await buildEmbeddedTemplate() });
    try {
      await mainThread.query("SELECT 1");
      const blocking = await blockedDuring(() => mainThread.query(HEAVY_QUERY));
      // The naive design stalls the loop for about the whole query; the worker's leaves it a fraction.
      expect(blocking.maxLagMs, `main thread: ${JSON.stringify(blocking)}`).to.be.above(blocking.durationMs / 2);
    } finally {
      await mainThread.close();
    }
    expect(worker.durationMs, "the query is long enough to tell the designs apart").to.be.above(200);
    expect(worker.maxLagMs, `worker: ${JSON.stringify(worker)}`).to.be.below(worker.durationMs / 4);
  });

  it("answers /healthz while a long query runs", async function () {
    this.timeout(120_000);
    const config = loadConfig({ SVC_LOG_LEVEL: "silent", SVC_SEED_SANDBOX: "false" });
    const app = await createApp({
      config,
      database: db,
      log: createLogger("silent"),
      secrets: new SecretBox(crypto.randomBytes(32)),
    });
    const koa = app.koa;
    const server = koa.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      let queryDone = false;
      const query = db.prisma.$queryRawUnsafe(HEAVY_QUERY).then(() => (queryDone = true));
      // The query has reached the engine's thread once a statement queued behind it is pending too.
      const health = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
      expect(health.status).to.equal(200);
      expect(queryDone, "healthz answered before the query finished").to.equal(false);
      await query;
    } finally {
      server.close();
      await app.close();
    }
  });

  describe("values across the thread boundary", () => {
    let inProcess: PrismaClient;
    let inProcessPglite: PGlite;
    before(async () => {
      inProcessPglite = await PGlite.create({ loadDataDir: await buildEmbeddedTemplate() });
      inProcess = new PrismaClient({ adapter: new PrismaPGlite(inProcessPglite) });
    });
    after(async () => {
      await inProcess.$disconnect();
      await inProcessPglite.close();
    });

    const RESULTS = `SELECT 1::int2 AS i2, 2147483647::int4 AS i4, 9007199254740993::int8 AS i8, 1.5::float4 AS f4, 0.1::float8 AS f8,
      12345678901234567890.123456789::numeric AS num, true AS flag, 'tëxt'::text AS t, 'v'::varchar(3) AS vc, 'c'::char(2) AS ch,
      '2026-02-28'::date AS d, '13:14:15.123'::time AS tm, '2026-02-28 13:14:15.678'::timestamp AS ts,
      '2026-02-28 13:14:15.678+02'::timestamptz AS tstz, '{"a":[1,"x",null]}'::json AS js, '{"b":{"c":true}}'::jsonb AS jsb,
      '\\x00ff10'::bytea AS bytes, '6d2c5a0e-8a3b-4c8e-9f5a-2b1c3d4e5f60'::uuid AS id,
      ARRAY[1,2]::int4[] AS ints, ARRAY[9007199254740993]::int8[] AS bigs, ARRAY['a','b,c']::text[] AS texts,
      ARRAY['2026-01-01 00:00:00+00']::timestamptz[] AS times, ARRAY['{"k":1}']::jsonb[] AS jsons, ARRAY[1.25]::numeric[] AS nums,
      'live'::"Environment" AS env, NULL::text AS nothing`;

    it("gives raw queries the same values as the adapter in-process", async () => {
      const [viaWorker] = await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(RESULTS);
      const [direct] = await inProcess.$queryRawUnsafe<Record<string, unknown>[]>(RESULTS);
      expect(viaWorker).to.deep.equal(direct);
      expect(viaWorker.i8).to.equal(9007199254740993n);
      expect(viaWorker.bytes).to.deep.equal(new Uint8Array([0, 255, 16]));
      expect(viaWorker.tstz).to.deep.equal(new Date("2026-02-28T11:14:15.678Z"));
    });

    it("passes parameters of every kind the schema uses the same way", async () => {
      const sql = `SELECT $1::timestamptz AS at, $2::int8 AS big, $3::bytea AS bytes, $4::text[] AS texts, $5::jsonb AS doc, $6::float8 AS x, $7::int4 AS n`;
      const params = [
        new Date("2026-03-01T10:00:00.123Z"),
        9007199254740993n,
        new Uint8Array([1, 2, 3]),
        ["a", "b"],
        JSON.stringify({ k: [1, 2] }),
        2.5,
        7,
      ];
      const [viaWorker] = await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params);
      const [direct] = await inProcess.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params);
      expect(viaWorker).to.deep.equal(direct);
      expect(viaWorker.at).to.deep.equal(params[0]);
      expect(viaWorker.big).to.equal(9007199254740993n);
    });

    it("round-trips models with BigInt, DateTime, Json and String[] fields", async () => {
      const organization = await db.prisma.organization.create({
        data: { id: "org_types", slug: "types", name: "Types", source: "direct" },
      });
      const key = await db.prisma.apiKey.create({
        data: {
          id: "key_types",
          organizationId: organization.id,
          environment: "live",
          hash: "ab".repeat(32),
          prefix: "svc_live_types",
          scopes: ["read:public", "write:records"],
        },
      });
      const event = await db.prisma.outboxEvent.create({
        data: {
          id: "evt_types",
          environment: "live",
          type: "course.updated",
          payload: { nested: { list: [1, "two", null] }, big: "9007199254740993" },
        },
      });
      expect(typeof event.sequence).to.equal("bigint");
      expect(await db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } })).to.deep.equal(key);
      expect(await db.prisma.outboxEvent.findUniqueOrThrow({ where: { sequence: event.sequence } })).to.deep.equal(
        event,
      );
      expect(key.createdAt).to.be.instanceOf(Date);
    });

    it("maps database errors to Prisma's known errors", async () => {
      const data = { id: "org_dup", slug: "dup", name: "Dup", source: "direct" as const };
      await db.prisma.organization.create({ data });
      const error = await db.prisma.organization.create({ data }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).to.have.property("code", "P2002");
    });
  });

  describe("transactions", () => {
    it("hold the connection: a statement outside waits until the transaction ends", async () => {
      // Had the outside statement run at once, it would have seen the uncommitted row (PGlite has one session).
      let outside: Promise<unknown> = Promise.resolve();
      const failed = await db.prisma
        .$transaction(async (tx) => {
          await tx.organization.create({ data: { id: "org_tx1", slug: "tx1", name: "Tx", source: "direct" } });
          outside = db.prisma.organization.findUnique({ where: { id: "org_tx1" } });
          await tx.organization.count();
          throw new Error("roll back");
        })
        .catch((error: Error) => error.message);
      expect(failed).to.equal("roll back");
      expect(await outside).to.equal(null);
    });

    it("roll back on a throw", async () => {
      const failed = await db.prisma
        .$transaction(async (tx) => {
          await tx.organization.create({ data: { id: "org_tx2", slug: "tx2", name: "Tx", source: "direct" } });
          throw new Error("abandon");
        })
        .catch((error: Error) => error.message);
      expect(failed).to.equal("abandon");
      expect(await db.prisma.organization.findUnique({ where: { id: "org_tx2" } })).to.equal(null);
    });

    it("run one after another: concurrent read-then-write transactions lose no update", async () => {
      await db.prisma.organization.create({ data: { id: "org_tx3", slug: "tx3", name: "0", source: "direct" } });
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.prisma.$transaction(async (tx) => {
            const current = await tx.organization.findUniqueOrThrow({ where: { id: "org_tx3" } });
            await tx.organization.update({
              where: { id: "org_tx3" },
              data: { name: String(Number(current.name) + 1) },
            });
          }),
        ),
      );
      expect((await db.prisma.organization.findUniqueOrThrow({ where: { id: "org_tx3" } })).name).to.equal("20");
    });
  });

  it("runs session scripts, parameters and advisory locks, and reports their errors", async () => {
    const rows = await db.session(async (sql) => {
      await sql.exec(
        "CREATE TEMPORARY TABLE scratch (n int8, at timestamptz); INSERT INTO scratch VALUES (1, '2026-01-01T00:00:00Z')",
      );
      await sql.query("SELECT pg_advisory_lock($1)", [42]);
      try {
        return await sql.query<{ n: number; at: Date }>("SELECT n, at FROM scratch WHERE n = $1", [1]);
      } finally {
        await sql.query("SELECT pg_advisory_unlock($1)", [42]);
      }
    });
    expect(rows).to.deep.equal([{ n: 1, at: new Date("2026-01-01T00:00:00Z") }]);
    const error = await db
      .session((sql) => sql.exec("SELECT * FROM no_such_table"))
      .then(
        () => null,
        (caught: Error & { code?: string }) => caught,
      );
    expect(error?.message).to.contain("no_such_table");
    expect(error?.code).to.equal("42P01");
  });

  it("refuses a value that cannot cross to the thread, and keeps working", async () => {
    const refused = await db
      .session((sql) => sql.query("SELECT $1::text AS x", [() => "a function"]))
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(refused?.name).to.equal("DataCloneError");
    expect(await db.session((sql) => sql.query("SELECT $1::text AS x", ["text"]))).to.deep.equal([{ x: "text" }]);
  });

  it("fails pending and later requests when its thread dies, and says so", async function () {
    this.timeout(60_000);
    const engine = await EmbeddedEngine.open({ kind: "memory", dump: await buildEmbeddedTemplate() });
    const pending = engine.call({ op: "query", sql: HEAVY_QUERY, params: [] });
    await engine.kill();
    const [settled, stopped] = await Promise.all([
      pending.then(
        () => null,
        (error: unknown) => error,
      ),
      engine.stopped,
    ]);
    expect(settled).to.be.instanceOf(EmbeddedEngineStoppedError);
    expect(stopped).to.be.instanceOf(EmbeddedEngineStoppedError);
    const later = await engine.call({ op: "exec", sql: "SELECT 1" }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(later).to.be.instanceOf(EmbeddedEngineStoppedError);
  });

  it("restarts its thread on the same data (shedStartupMemory) without reporting a loss, and still reports a later one", async function () {
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-engine-"));
    try {
      const database = await openDatabase({ databaseUrl: null, dataDir, sharedBuffersMb: 8 });
      let lost: unknown = null;
      void database.lost.then((reason) => (lost = reason));
      try {
        await database.session((sql) => applyMigrations(sql));
        await database.prisma.organization.create({
          data: { id: "org_restarted", slug: "restarted", name: "Restarted", source: "direct" },
        });
        await database.shedStartupMemory();
        expect(await database.prisma.organization.findUnique({ where: { id: "org_restarted" } })).to.include({
          slug: "restarted",
        });
        // The thread after the restart runs with the same settings.
        const [setting] = await database.session((sql) => sql.query<{ shared_buffers: string }>("SHOW shared_buffers"));
        expect(setting.shared_buffers).to.equal("8MB");
        expect(lost, "a restart is not a loss").to.equal(null);
      } finally {
        await database.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    const engine = await EmbeddedEngine.open({ kind: "memory", dump: await buildEmbeddedTemplate() });
    await engine.restart();
    await engine.kill();
    expect(await engine.stopped).to.be.instanceOf(EmbeddedEngineStoppedError);
  });

  it("writes its data directory on close and reopens it, releasing the directory lock", async function () {
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-engine-"));
    try {
      const first = await openDatabase({ databaseUrl: null, dataDir });
      await first.session((sql) => applyMigrations(sql));
      await first.prisma.organization.create({
        data: { id: "org_kept", slug: "kept", name: "Kept", source: "direct" },
      });
      expect(fs.existsSync(path.join(dataDir, "svc.lock"))).to.equal(true);
      let lost = false;
      void first.lost.then(() => (lost = true));
      await first.close();
      expect(fs.existsSync(path.join(dataDir, "svc.lock"))).to.equal(false);

      const second = await openDatabase({ databaseUrl: null, dataDir });
      try {
        expect(await second.prisma.organization.findUnique({ where: { id: "org_kept" } })).to.include({ slug: "kept" });
      } finally {
        await second.close();
      }
      expect(lost, "a close is not a loss").to.equal(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("lets the server stop cleanly on SIGTERM: exit status 0, data directory closed and unlocked", async function () {
    this.timeout(120_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-engine-stop-"));
    const port = String(22_000 + (process.pid % 20_000));
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: port,
        SVC_DATA_DIR: dataDir,
        DATABASE_URL: "",
        SVC_LOG_LEVEL: "info",
        SVC_SEED_SANDBOX: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let output = "";
      child.stderr.on("data", (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk) => {
          output += chunk;
          if (output.includes('"msg":"listening"')) resolve();
        });
        void exited.then((code) => reject(new Error(`exited with ${code} before listening: ${output}`)));
      });
      expect(fs.existsSync(path.join(dataDir, "svc.lock"))).to.equal(true);
      child.kill("SIGTERM");
      expect(await exited, output).to.equal(0);
      expect(fs.existsSync(path.join(dataDir, "svc.lock")), "the lock is released").to.equal(false);
      const reopened = await openDatabase({ databaseUrl: null, dataDir });
      await reopened.close();
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
