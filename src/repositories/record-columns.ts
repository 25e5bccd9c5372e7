// Hot read paths read a record and its relations with one hand-written
// statement that answers one JSON text (row_to_json per table) instead of a
// Prisma query per relation: on the embedded database every statement, and every
// typed column it returns, costs (see scripts/bench/reads.ts). The JSON is
// turned back into the record Prisma would return using Prisma's own data model
// (the field behind each column, which fields are timestamps), so nothing here
// restates prisma/schema.prisma.
import type { Prisma } from "../../generated/prisma/client.ts";

interface RuntimeField {
  name: string;
  kind: string;
  type: string;
  dbName?: string | null;
}

/**
 * The generated client carries the schema's data model; its runtime declares
 * it on every client instance (transaction clients included).
 */
interface WithDataModel {
  _runtimeDataModel: { models: Record<string, { fields: readonly RuntimeField[] }> };
}

/** One column of a model's table: the field it fills, and whether it holds a timestamp. */
export interface ColumnOfField {
  field: string;
  column: string;
  /** timestamp(3) columns: row_to_json writes them without a zone, and they hold UTC. */
  timestamp: boolean;
}

const shapes = new Map<Prisma.ModelName, readonly ColumnOfField[]>();

/** The scalar columns of a model, read once from the client's data model. */
export function columnsOf(db: Prisma.TransactionClient, model: Prisma.ModelName): readonly ColumnOfField[] {
  let columns = shapes.get(model);
  if (!columns) {
    const fields = (db as unknown as WithDataModel)._runtimeDataModel.models[model].fields;
    columns = fields
      .filter((field) => field.kind !== "object")
      .map((field) => ({
        field: field.name,
        column: field.dbName ?? field.name,
        timestamp: field.type === "DateTime",
      }));
    shapes.set(model, columns);
  }
  return columns;
}

/** The record in a row_to_json object, or null (an outer join or subquery found nothing). */
export function recordFromJson<T>(json: Record<string, unknown> | null, columns: readonly ColumnOfField[]): T | null {
  if (!json) return null;
  const record: Record<string, unknown> = {};
  for (const { field, column, timestamp } of columns) {
    const value = json[column] ?? null;
    // A date column (effective dates) is written `YYYY-MM-DD`: midnight UTC, as Prisma reads it.
    record[field] =
      timestamp && typeof value === "string"
        ? new Date(value.length === 10 ? `${value}T00:00:00Z` : `${value}Z`)
        : value;
  }
  return record as T;
}

/** The record under its column names, as jsonb_populate_recordset reads it. */
export function byColumn(columns: readonly ColumnOfField[], record: object): Record<string, unknown> {
  const values = record as Record<string, unknown>;
  return Object.fromEntries(columns.map(({ field, column }) => [column, values[field] ?? null]));
}

/**
 * Inserts the records in one statement whatever their number (one JSON parameter, so no limit on
 * bind parameters), each column cast by the table's own row type: a batch's thousands of rows cost
 * one round trip and no per-row statement building.
 */
export async function insertRecords(
  db: Prisma.TransactionClient,
  model: Prisma.ModelName,
  table: string,
  records: readonly object[],
): Promise<void> {
  if (!records.length) return;
  const shape = columnsOf(db, model);
  const columns = shape.map(({ column }) => `"${column}"`).join(", ");
  await db.$executeRawUnsafe(
    `INSERT INTO ${table} (${columns})
     SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`,
    JSON.stringify(records.map((record) => byColumn(shape, record))),
  );
}

/**
 * The INSERT of the records of parameter `$param` (a JSON array under column names, `json`), naming
 * only the columns of the fields the first record sets: the others take their defaults, as with
 * Prisma's createMany, and BEFORE INSERT triggers see those defaults. The records set the same fields.
 */
export function insertFromJson(
  db: Prisma.TransactionClient,
  model: Prisma.ModelName,
  table: string,
  records: readonly object[],
  param: number,
): { sql: string; json: string } {
  const set = new Set(Object.keys(records[0] ?? {}));
  const shape = columnsOf(db, model).filter(({ field }) => set.has(field));
  const columns = shape.map(({ column }) => `"${column}"`).join(", ");
  return {
    sql: `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, $${param}::jsonb)`,
    json: JSON.stringify(records.map((record) => byColumn(shape, record))),
  };
}
