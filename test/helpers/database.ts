// Each test file gets its own freshly migrated database: an in-memory PGlite
// loaded from a migrated template (built once per run), or, when
// SVC_TEST_DATABASE_URL names a PostgreSQL server, a new database copied from a
// migrated template database.
import crypto from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { applyMigrations } from "../../src/db/migrations.ts";
import { pgliteRunner } from "../../src/db/pglite-runner.ts";
import { testEnv } from "./env.ts";

let embeddedTemplate: Promise<Blob> | null = null;
let serverTemplate: Promise<string> | null = null;

export const usingPostgres = Boolean(testEnv.SVC_TEST_DATABASE_URL);

/** A dump of a migrated embedded database, built once per run. */
export function buildEmbeddedTemplate(): Promise<Blob> {
  embeddedTemplate ??= (async () => {
    // Built once per run on this thread; each file's database is a copy in the engine's thread.
    const pglite = await PGlite.create();
    await applyMigrations(pgliteRunner(pglite));
    const blob = await pglite.dumpDataDir("none");
    await pglite.close();
    return blob;
  })();
  return embeddedTemplate;
}

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testEnv.SVC_TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function buildServerTemplate(): Promise<string> {
  serverTemplate ??= (async () => {
    const name = `svc_test_template_${process.pid}_${crypto.randomBytes(3).toString("hex")}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    const database = await openDatabase({
      databaseUrl: withDatabaseName(testEnv.SVC_TEST_DATABASE_URL!, name),
      dataDir: "",
    });
    await database.session((sql) => applyMigrations(sql));
    await database.close();
    return name;
  })();
  return serverTemplate;
}

export interface TestDatabase extends Database {
  /** The postgresql:// URL of this database, when it is on a server. */
  url: string | null;
}

/** A freshly migrated embedded database whichever database the suite runs on (tests of the embedded engine). */
export async function freshEmbeddedDatabase(): Promise<TestDatabase> {
  const database = await openDatabase({
    databaseUrl: null,
    dataDir: "",
    inMemory: { dump: await buildEmbeddedTemplate() },
  });
  return { ...database, url: null };
}

export async function freshDatabase(): Promise<TestDatabase> {
  if (!usingPostgres) return freshEmbeddedDatabase();
  const template = await buildServerTemplate();
  const name = `svc_test_${crypto.randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = withDatabaseName(testEnv.SVC_TEST_DATABASE_URL!, name);
  const database = await openDatabase({ databaseUrl: url, dataDir: "" });
  return {
    ...database,
    url,
    async close() {
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** A database without any migration applied (for migration tests). */
export async function emptyDatabase(): Promise<TestDatabase> {
  if (!usingPostgres) {
    const database = await openDatabase({ databaseUrl: null, dataDir: "", inMemory: {} });
    return { ...database, url: null };
  }
  const name = `svc_test_empty_${crypto.randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = withDatabaseName(testEnv.SVC_TEST_DATABASE_URL!, name);
  const database = await openDatabase({ databaseUrl: url, dataDir: "" });
  return {
    ...database,
    url,
    async close() {
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** Drops the server template at the end of the run (mocha root hook). */
export async function dropTemplates(): Promise<void> {
  if (serverTemplate) {
    const name = await serverTemplate;
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
