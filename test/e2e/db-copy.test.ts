// `db copy --to <url>` as an operator runs it: a seeded embedded data directory copied by the CLI
// into a new PostgreSQL database, every table's rows equal on both sides afterwards, sequences
// past their columns' values, and a second copy into the same database refused with nothing
// changed. Needs the PostgreSQL server the suite's other PostgreSQL tests use (127.0.0.1:5432, or
// SVC_TEST_DATABASE_URL's).
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import pg from "pg";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { runCli } from "../../src/cli/program.ts";
import { withDatabaseName } from "../helpers/database.ts";
import { testEnv } from "../helpers/env.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const execute = promisify(execFile);
const SERVER = testEnv.SVC_TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Each table's rows as JSON text, sorted: equal on two databases when they hold the same rows. */
async function contents(database: Database): Promise<Record<string, string[]>> {
  return database.session(async (sql) => {
    const tables = await sql.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'`,
    );
    const held: Record<string, string[]> = {};
    for (const { name } of tables) {
      const rows = await sql.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${name}" AS t`);
      held[name] = rows.map((r) => r.row).sort();
    }
    return held;
  });
}

describe("db copy: the embedded database into a new PostgreSQL database", function () {
  this.timeout(180_000);
  let dataDir: string;
  let target: string;
  let targetUrl: string;
  /** The CLI as typed, on a data directory (the seeded one unless told), never on the suite's database. */
  const cliIn =
    (directory: () => string) =>
    (...args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...process.env, SVC_DATA_DIR: directory(), LOG_LEVEL: "warn" };
      delete env.DATABASE_URL;
      return execute("npm", ["run", "-s", "cli", "--", ...args], { cwd: ROOT, env }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    };
  const cli = Object.assign(
    cliIn(() => dataDir),
    { in: (directory: string) => cliIn(() => directory) },
  );

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "db-copy-"));
    target = `svc_test_copy_${crypto.randomBytes(4).toString("hex")}`;
    targetUrl = withDatabaseName(SERVER, target);
    await onServer(`CREATE DATABASE "${target}"`);
    const seeded = await cli("seed", "--env", "sandbox");
    expect(seeded.code, seeded.stderr).to.equal(0);
    // Events too, so that the outbox's sequence has values to continue after.
    const source = await openDatabase({ databaseUrl: null, dataDir });
    try {
      await repositoriesOf(source).transaction((writes) =>
        writes.outbox.recordEvents("sandbox", [
          { type: "course.updated", data: { courseId: "crs_copy_1", version: 2, changedFields: ["title"] } },
          { type: "course.updated", data: { courseId: "crs_copy_2", version: 2, changedFields: ["title"] } },
        ]),
      );
    } finally {
      await source.close();
    }
  });
  after(async () => {
    await onServer(`DROP DATABASE IF EXISTS "${target}" WITH (FORCE)`);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("copies every row: each table holds the same rows on both databases, and each sequence continues after its column's largest value", async () => {
    const copied = await cli("db", "copy", "--to", targetUrl);
    expect(copied.code, copied.stderr).to.equal(0);
    expect(copied.stdout).to.match(/^equivalencies: \d+ rows$/m);
    expect(copied.stdout).to.match(/Copied \d+ rows into postgresql:\/\//);

    const source = await openDatabase({ databaseUrl: null, dataDir });
    const copy = await openDatabase({ databaseUrl: targetUrl, dataDir: "" });
    try {
      const [from, to] = [await contents(source), await contents(copy)];
      expect(Object.keys(to).sort()).to.deep.equal(Object.keys(from).sort());
      for (const table of Object.keys(from)) expect(to[table], table).to.deep.equal(from[table]);
      expect(from.equivalencies.length).to.be.greaterThan(100);
      expect(from.outbox_events.length).to.equal(2);
      const [next] = await copy.statement<{ next: string; largest: string }>(
        `SELECT nextval('outbox_events_sequence_seq')::text AS next, (SELECT max(sequence) FROM outbox_events)::text AS largest`,
        [],
      );
      expect(BigInt(next.next)).to.equal(BigInt(next.largest) + 1n);
    } finally {
      await source.close();
      await copy.close();
    }
  });

  it("refuses a database that already holds data, naming it, and changes nothing there", async () => {
    const copy = await openDatabase({ databaseUrl: targetUrl, dataDir: "" });
    try {
      const before = await contents(copy);
      const again = await cli("db", "copy", "--to", targetUrl);
      expect(again.code).to.not.equal(0);
      expect(again.stderr).to.contain("already holds");
      expect(await contents(copy)).to.deep.equal(before);
    } finally {
      await copy.close();
    }
  });

  it("refuses a data directory that holds no data, naming the variable to check", async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "db-copy-empty-"));
    try {
      const refused = await cli.in(empty)("db", "copy", "--to", targetUrl);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.contain("holds no data");
      expect(refused.stderr).to.contain("SVC_DATA_DIR");
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("refuses a user that may not load rows with triggers off, saying which privilege, and copies nothing", async () => {
    const role = `svc_copier_${crypto.randomBytes(3).toString("hex")}`;
    const owned = `${target}_owned`;
    await onServer(`CREATE ROLE "${role}" LOGIN`);
    await onServer(`CREATE DATABASE "${owned}" OWNER "${role}"`);
    try {
      const url = new URL(withDatabaseName(SERVER, owned));
      url.username = role;
      url.password = "";
      const refused = await cli("db", "copy", "--to", url.toString());
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.contain("session_replication_role");
      const copy = await openDatabase({ databaseUrl: withDatabaseName(SERVER, owned), dataDir: "" });
      try {
        const [{ count }] = await copy.statement<{ count: number }>(
          "SELECT count(*)::int AS count FROM institutions",
          [],
        );
        expect(count).to.equal(0);
      } finally {
        await copy.close();
      }
    } finally {
      await onServer(`DROP DATABASE IF EXISTS "${owned}" WITH (FORCE)`);
      await onServer(`DROP ROLE IF EXISTS "${role}"`);
    }
  });

  it("refuses a --to that is not a postgresql:// URL", async () => {
    const refused = await cli("db", "copy", "--to", "/var/lib/somewhere");
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain("postgresql:// URL");
  });

  it("refuses to run inside a server (its channel), which holds the data directory, before opening anything", async () => {
    let printed = "";
    let opened = false;
    const open = async (): Promise<Database> => {
      opened = true;
      throw new Error("not to be opened");
    };
    const code = await runCli(
      ["db", "copy", "--to", targetUrl],
      { stdout: (text) => void (printed += text), stderr: (text) => void (printed += text) },
      { server: { forgetCredential: () => {} }, openDb: open, openRaw: open },
    );
    expect(code).to.not.equal(0);
    expect(printed).to.contain("stop the server, run db copy");
    expect(opened).to.equal(false);
  });
});
