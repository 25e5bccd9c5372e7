// Imports institutions from the IPEDS directory (HD file) CSV or a JSON array,
// idempotently by IPEDS unit id. IPEDS sectors map to the service's three types;
// other sectors are skipped and counted.
import fs from "node:fs";
import { parse } from "csv-parse";
import type { Channel, Db, Environment, InstitutionType } from "../types.ts";
import { institutionId } from "../../ids.ts";

/** IPEDS SECTOR -> institution type. Sectors not listed are skipped. */
export const SECTOR_TYPES: Readonly<Record<string, InstitutionType>> = {
  "1": "four_year_public", // public, 4-year or above
  "2": "four_year_private", // private not-for-profit, 4-year or above
  "3": "four_year_private", // private for-profit, 4-year or above
  "4": "community_college", // public, 2-year
};

const STATE = /^[A-Z]{2}$/;
const IPEDS_ID = /^\d{6}$/;
const TYPES: readonly InstitutionType[] = ["community_college", "four_year_public", "four_year_private"];
const BATCH_SIZE = 500;

export interface InstitutionRow {
  ipedsId: string;
  name: string;
  city: string;
  state: string;
  type: InstitutionType;
  system: string | null;
  source: Channel;
}

export interface ImportSummary {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Why rows were skipped, with a count each. */
  skippedReasons: Record<string, number>;
}

type Mapped = { row: InstitutionRow } | { skip: string };

/** One IPEDS HD record (UNITID, INSTNM, CITY, STABBR, SECTOR, F1SYSNAM, CYACTIVE). */
export function mapIpedsRecord(record: Record<string, string>, source: Channel): Mapped {
  const ipedsId = record.UNITID?.trim();
  if (!IPEDS_ID.test(ipedsId ?? "")) return { skip: "invalid UNITID" };
  if (record.CYACTIVE !== undefined && record.CYACTIVE.trim() !== "1") return { skip: "not currently active (CYACTIVE)" };
  const type = SECTOR_TYPES[record.SECTOR?.trim()];
  if (!type) return { skip: `sector ${record.SECTOR?.trim() || "missing"} is outside the mapping` };
  const state = record.STABBR?.trim().toUpperCase();
  if (!STATE.test(state ?? "")) return { skip: "invalid STABBR" };
  const name = record.INSTNM?.trim();
  const city = record.CITY?.trim();
  if (!name || !city) return { skip: "missing INSTNM or CITY" };
  const system = record.F1SYSNAM?.trim();
  return { row: { ipedsId, name, city, state, type, system: system && system !== "-2" ? system : null, source } };
}

/** One object of a JSON import: the service's own field names, or IPEDS column names. */
export function mapJsonRecord(record: Record<string, unknown>, source: Channel): Mapped {
  if ("UNITID" in record) return mapIpedsRecord(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, String(v ?? "")])), source);
  const ipedsId = String(record.ipedsId ?? "").trim();
  if (!IPEDS_ID.test(ipedsId)) return { skip: "invalid ipedsId" };
  const type = record.type as InstitutionType;
  if (!TYPES.includes(type)) return { skip: "type is outside the mapping" };
  const state = String(record.state ?? "").trim().toUpperCase();
  if (!STATE.test(state)) return { skip: "invalid state" };
  const name = String(record.name ?? "").trim();
  const city = String(record.city ?? "").trim();
  if (!name || !city) return { skip: "missing name or city" };
  const system = typeof record.system === "string" && record.system.trim() ? record.system.trim() : null;
  const rowSource = (["channel_a", "channel_b", "direct"] as const).find((c) => c === record.source) ?? source;
  return { row: { ipedsId, name, city, state, type, system, source: rowSource } };
}

export async function* readInstitutionFile(file: string, source: Channel): AsyncGenerator<Mapped> {
  if (startsWithJsonArray(file)) {
    const records = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(records)) throw new Error("A JSON import must be an array of institutions.");
    for (const record of records) yield mapJsonRecord((record ?? {}) as Record<string, unknown>, source);
    return;
  }
  const parser = fs.createReadStream(file).pipe(parse({ columns: true, bom: true, skip_empty_lines: true, trim: true }));
  for await (const record of parser) yield mapIpedsRecord(record as Record<string, string>, source);
}

/** How many records a file holds, for a progress bar's total. */
export function countRecords(file: string): number {
  const text = fs.readFileSync(file, "utf8");
  if (startsWithJsonArray(file)) return (JSON.parse(text) as unknown[]).length;
  return Math.max(0, text.split("\n").filter((line) => line.trim() !== "").length - 1);
}

export function startsWithJsonArray(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(256);
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString("utf8", 0, length).replace(/^\uFEFF/, "").trimStart().startsWith("[");
  } finally {
    fs.closeSync(fd);
  }
}

export async function importInstitutions(
  db: Db,
  rows: AsyncIterable<Mapped>,
  environment: Environment,
  onProgress: (summary: ImportSummary) => void = () => {},
): Promise<ImportSummary> {
  const summary: ImportSummary = { read: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, skippedReasons: {} };
  let batch: InstitutionRow[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const { created, updated } = await upsertBatch(db, batch, environment);
    summary.created += created;
    summary.updated += updated;
    summary.unchanged += batch.length - created - updated;
    batch = [];
    onProgress(summary);
  };
  const seen = new Set<string>();
  for await (const mapped of rows) {
    summary.read += 1;
    if ("skip" in mapped) {
      summary.skipped += 1;
      summary.skippedReasons[mapped.skip] = (summary.skippedReasons[mapped.skip] ?? 0) + 1;
      continue;
    }
    // A file may list an institution twice; the last one wins, as a re-import would.
    if (seen.has(mapped.row.ipedsId)) await flush();
    seen.add(mapped.row.ipedsId);
    batch.push(mapped.row);
    if (batch.length >= BATCH_SIZE) await flush();
  }
  await flush();
  return summary;
}

async function upsertBatch(db: Db, rows: InstitutionRow[], environment: Environment) {
  const params: unknown[] = [];
  const values = rows.map((row) => {
    const start = params.length;
    params.push(environment, institutionId(row.ipedsId), row.ipedsId, row.name, row.city, row.state, row.type, row.system, row.source);
    const p = (i: number) => `$${start + i}`;
    return `(${p(1)}::"Environment", ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}::"InstitutionType", ${p(8)}, ${p(9)}::"Channel", now(), now())`;
  });
  // Only rows that changed come back, telling created (xmax = 0) from updated.
  const changed = await db.$queryRawUnsafe<{ inserted: boolean }[]>(
    `INSERT INTO institutions (environment, id, ipeds_id, name, city, state, type, system, source, created_at, updated_at)
     VALUES ${values.join(", ")}
     ON CONFLICT (environment, id) DO UPDATE SET
       name = EXCLUDED.name, city = EXCLUDED.city, state = EXCLUDED.state, type = EXCLUDED.type,
       system = EXCLUDED.system, source = EXCLUDED.source, updated_at = now()
     WHERE (institutions.name, institutions.city, institutions.state, institutions.type, institutions.system, institutions.source)
       IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.city, EXCLUDED.state, EXCLUDED.type, EXCLUDED.system, EXCLUDED.source)
     RETURNING (xmax = 0) AS inserted`,
    ...params,
  );
  const created = changed.filter((row) => row.inserted).length;
  return { created, updated: changed.length - created };
}
