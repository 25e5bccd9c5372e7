// Applies the committed SQL migrations in-process, keeping the same bookkeeping
// table (and sha256 checksums) as `prisma migrate deploy`, so Prisma's CLI and
// this service agree on what has been applied.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SqlRunner } from "./database.ts";
import { projectPath } from "../kernel/project-root.ts";

export const MIGRATIONS_DIR = projectPath("prisma", "migrations");

// Any fixed number works; it only has to be the same in every process.
const MIGRATION_LOCK_ID = 72_201_100;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  /** Applied migrations whose file changed afterwards. */
  modified: string[];
  /** Migrations recorded in the database but absent from the folder. */
  unknown: string[];
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

const BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
}

async function appliedMigrations(sql: SqlRunner): Promise<AppliedRow[]> {
  await sql.exec(BOOKKEEPING_TABLE);
  return sql.query<AppliedRow>(
    `SELECT migration_name, checksum FROM "_prisma_migrations"
     WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
  );
}

export async function migrationStatus(sql: SqlRunner, migrations = readMigrations()): Promise<MigrationStatus> {
  const applied = await appliedMigrations(sql);
  const byName = new Map(applied.map((row) => [row.migration_name, row.checksum]));
  const names = new Set(migrations.map((m) => m.name));
  return {
    applied: migrations.filter((m) => byName.has(m.name)).map((m) => m.name),
    pending: migrations.filter((m) => !byName.has(m.name)).map((m) => m.name),
    modified: migrations.filter((m) => byName.has(m.name) && byName.get(m.name) !== m.checksum).map((m) => m.name),
    unknown: applied.map((row) => row.migration_name).filter((name) => !names.has(name)),
  };
}

/** Applies every pending migration, each in its own transaction; returns their names. */
export async function applyMigrations(sql: SqlRunner, migrations = readMigrations()): Promise<string[]> {
  await sql.exec(BOOKKEEPING_TABLE);
  // Several processes may start against one PostgreSQL server at once.
  await sql.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
  try {
    const status = await migrationStatus(sql, migrations);
    if (status.modified.length) {
      throw new Error(`Applied migrations were modified afterwards: ${status.modified.join(", ")}`);
    }
    const pending = migrations.filter((m) => status.pending.includes(m.name));
    for (const migration of pending) await applyOne(sql, migration);
    return pending.map((m) => m.name);
  } finally {
    await sql.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
  }
}

async function applyOne(sql: SqlRunner, migration: Migration): Promise<void> {
  const id = crypto.randomUUID();
  const escapedName = migration.name.replace(/'/g, "''");
  // One script so the migration and its bookkeeping row commit together.
  try {
    await sql.exec(`BEGIN;
${migration.sql}
;
INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
VALUES ('${id}', '${migration.checksum}', '${escapedName}', now(), now(), 1);
COMMIT;`);
  } catch (error) {
    await sql.exec("ROLLBACK").catch(() => undefined);
    throw new Error(`Migration ${migration.name} failed and was rolled back: ${(error as Error).message}`);
  }
}
