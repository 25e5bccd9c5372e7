// `db copy --to <url>`: every row of the embedded database into a new PostgreSQL database, the way
// a deployment that outgrew one machine moves (docs/operations.md). Both are migrated to the same
// schema first, so each table is copied as it is: read from one snapshot of the source in batches
// of rows as JSON, written by `json_populate_recordset` in one transaction on the target, with
// triggers and foreign keys off for that transaction (the rows are already consistent: they are
// a snapshot of a database that held them), and each sequence set past its column's largest value.
import type { Database, SqlRunner } from "./database.ts";
import { applyMigrations } from "./migrations.ts";

/** Rows a batch reads and writes: a few MB of JSON at the widest rows. */
const BATCH_ROWS = 2_000;
/** A target holding any of these is somebody's data: the copy refuses it rather than mixing. */
const DATA_TABLES = ["organizations", "institutions", "courses", "equivalencies"];

export class CopyRefusedError extends Error {}

export interface CopyProgress {
  table: string;
  rows: number;
}

export interface CopyResult {
  tables: CopyProgress[];
  rows: number;
}

/** The schema's tables, the migrations' bookkeeping excepted, by name. */
async function tablesOf(sql: SqlRunner): Promise<string[]> {
  const rows = await sql.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations'
     ORDER BY table_name COLLATE "C"`,
  );
  return rows.map((row) => row.name);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Copies every table of `source` (the embedded database) into `target` (a PostgreSQL database,
 * migrated here), which must hold no data yet; all of it or, on failure, nothing.
 */
export async function copyDatabase(source: Database, target: Database): Promise<CopyResult> {
  if (source.kind !== "embedded")
    throw new CopyRefusedError("db copy copies the embedded database: unset DATABASE_URL");
  if (target.kind !== "postgresql") throw new CopyRefusedError("--to must be a postgresql:// URL");
  await source.session((sql) => applyMigrations(sql));
  await target.session((sql) => applyMigrations(sql));
  return source.session((from) =>
    target.session(async (to) => {
      const tables = await tablesOf(from);
      const targetTables = new Set(await tablesOf(to));
      const absent = tables.filter((table) => !targetTables.has(table));
      if (absent.length)
        throw new CopyRefusedError(`the target lacks the tables ${absent.join(", ")}: its migrations differ`);
      const holds = async (sql: SqlRunner, table: string) =>
        (await sql.query<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${quoted(table)}) AS held`))[0].held;
      let sourceHolds = false;
      for (const table of DATA_TABLES) sourceHolds ||= await holds(from, table);
      if (!sourceHolds)
        throw new CopyRefusedError(
          "the data directory holds no data (no organization, institution, course or equivalency): nothing to copy; is SVC_DATA_DIR the directory the server used?",
        );
      for (const table of DATA_TABLES) {
        if (await holds(to, table))
          throw new CopyRefusedError(
            `the target already holds ${table}: db copy needs a new, empty database (it migrates it itself)`,
          );
      }
      // One snapshot of the source, however long the copy takes.
      await from.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      await to.exec("BEGIN");
      try {
        // Rows a snapshot already holds together: no trigger recomputes them, no key is checked row by row.
        await to.exec("SET LOCAL session_replication_role = replica").catch((error: { code?: string }) => {
          if (error.code !== "42501") throw error;
          throw new CopyRefusedError(
            "db copy writes as a PostgreSQL superuser (or a role granted SET on session_replication_role), to load rows with triggers and key checks off; nothing was copied",
          );
        });
        const copied: CopyProgress[] = [];
        for (const table of tables) {
          // What the target's migrations seeded (the feed's single row, …) is replaced by the source's.
          await to.exec(`DELETE FROM ${quoted(table)}`);
          await from.exec(
            `DECLARE copy_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS row FROM ${quoted(table)} AS t`,
          );
          let rows = 0;
          for (;;) {
            const batch = await from.query<{ row: string }>(`FETCH ${BATCH_ROWS} FROM copy_rows`);
            if (!batch.length) break;
            await to.query(
              `INSERT INTO ${quoted(table)} SELECT * FROM json_populate_recordset(NULL::${quoted(table)}, $1::json)`,
              [`[${batch.map((row) => row.row).join(",")}]`],
            );
            rows += batch.length;
          }
          await from.exec("CLOSE copy_rows");
          copied.push({ table, rows });
        }
        await advanceSequences(to);
        await to.exec("COMMIT");
        return { tables: copied, rows: copied.reduce((sum, table) => sum + table.rows, 0) };
      } catch (error) {
        await to.exec("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        await from.exec("ROLLBACK").catch(() => {});
      }
    }),
  );
}

/** Each sequence owned by a column, set so that its next value is past the column's largest. */
async function advanceSequences(sql: SqlRunner): Promise<void> {
  const owned = await sql.query<{ sequence: string; table: string; column: string }>(
    `SELECT s.relname AS sequence, t.relname AS table, a.attname AS column
     FROM pg_class AS s
     JOIN pg_depend AS d ON d.objid = s.oid AND d.deptype IN ('a', 'i')
     JOIN pg_class AS t ON t.oid = d.refobjid
     JOIN pg_attribute AS a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
     JOIN pg_namespace AS n ON n.oid = s.relnamespace
     WHERE s.relkind = 'S' AND n.nspname = 'public'`,
  );
  for (const { sequence, table, column } of owned) {
    await sql.query(
      `SELECT setval($1::regclass, coalesce((SELECT max(${quoted(column)}) FROM ${quoted(table)}), 0) + 1, false)`,
      [quoted(sequence)],
    );
  }
}
