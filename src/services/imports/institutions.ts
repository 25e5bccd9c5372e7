// Imports institutions from the IPEDS directory (HD file) CSV or a JSON array,
// idempotently by IPEDS unit id. IPEDS sectors map to the service's three types;
// other sectors are skipped and counted.
import fs from "node:fs";
import { Channel, InstitutionType } from "../../../generated/prisma/enums.ts";
import type { Environment } from "../types.ts";
import type { Repositories } from "../../repositories/index.ts";
import type { InstitutionRow } from "../../repositories/catalog-imports.ts";
export type { InstitutionRow };

/** IPEDS SECTOR -> institution type. Sectors not listed are skipped. */
export const SECTOR_TYPES: Readonly<Record<string, InstitutionType>> = {
  "1": InstitutionType.four_year_public, // public, 4-year or above
  "2": InstitutionType.four_year_private, // private not-for-profit, 4-year or above
  "3": InstitutionType.four_year_private, // private for-profit, 4-year or above
  "4": InstitutionType.community_college, // public, 2-year
};

const STATE = /^[A-Z]{2}$/;
const IPEDS_ID = /^\d{6}$/;
const TYPES: readonly InstitutionType[] = Object.values(InstitutionType);
const CHANNELS: readonly Channel[] = Object.values(Channel);
const BATCH_SIZE = 500;

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
  if (record.CYACTIVE !== undefined && record.CYACTIVE.trim() !== "1")
    return { skip: "not currently active (CYACTIVE)" };
  const sector = record.SECTOR?.trim();
  if (!sector) return { skip: "no SECTOR value" };
  const type = SECTOR_TYPES[sector];
  if (!type) return { skip: `sector ${sector} is outside the mapping` };
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
  if ("UNITID" in record)
    return mapIpedsRecord(Object.fromEntries(Object.entries(record).map(([k, v]) => [k, String(v ?? "")])), source);
  const ipedsId = String(record.ipedsId ?? "").trim();
  if (!IPEDS_ID.test(ipedsId)) return { skip: "invalid ipedsId" };
  const type = record.type as InstitutionType;
  if (record.type === undefined || record.type === null || record.type === "") return { skip: "no type value" };
  if (!TYPES.includes(type)) return { skip: "type is outside the mapping" };
  const state = String(record.state ?? "")
    .trim()
    .toUpperCase();
  if (!STATE.test(state)) return { skip: "invalid state" };
  const name = String(record.name ?? "").trim();
  const city = String(record.city ?? "").trim();
  if (!name || !city) return { skip: "missing name or city" };
  const system = typeof record.system === "string" && record.system.trim() ? record.system.trim() : null;
  const rowSource = CHANNELS.find((c) => c === record.source) ?? source;
  return { row: { ipedsId, name, city, state, type, system, source: rowSource } };
}

export async function* readInstitutionFile(file: string, source: Channel): AsyncGenerator<Mapped> {
  if (startsWithJsonArray(file)) {
    const records = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(records)) throw new Error("A JSON import must be an array of institutions.");
    for (const record of records) yield mapJsonRecord((record ?? {}) as Record<string, unknown>, source);
    return;
  }
  const { parse } = await import("csv-parse"); // with the first import, not with the server
  const parser = fs
    .createReadStream(file)
    .pipe(parse({ columns: ipedsHeader(file), bom: true, skip_empty_lines: true, trim: true }));
  for await (const record of parser) yield mapIpedsRecord(record as Record<string, string>, source);
}

/** The columns the mapping reads; F1SYSNAM and CYACTIVE may be absent. */
export const IPEDS_COLUMNS = ["UNITID", "INSTNM", "CITY", "STABBR", "SECTOR"] as const;

/** Checks the header row before any row is read: a wrong file is refused, not read as rows that are all skipped. */
function ipedsHeader(file: string) {
  return (header: string[]) => {
    const missing = IPEDS_COLUMNS.filter((column) => !header.includes(column));
    if (missing.length)
      throw new Error(
        `${file} is not an IPEDS HD file: its header has no ${missing.join(", ")} column. Give the HD file (columns UNITID, INSTNM, CITY, STABBR, SECTOR, F1SYSNAM, CYACTIVE) or a JSON array of institutions (docs/cli.md).`,
      );
    return header;
  };
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
    return buffer
      .toString("utf8", 0, length)
      .replace(/^\uFEFF/, "")
      .trimStart()
      .startsWith("[");
  } finally {
    fs.closeSync(fd);
  }
}

export function createInstitutionImportsService({ catalogImports }: Pick<Repositories, "catalogImports">) {
  return {
    /** Upserts in batches of BATCH_SIZE, reporting the running summary after each. */
    async importInstitutions(
      rows: AsyncIterable<Mapped>,
      environment: Environment,
      onProgress: (summary: ImportSummary) => void = () => {},
    ): Promise<ImportSummary> {
      const summary: ImportSummary = { read: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, skippedReasons: {} };
      let batch: InstitutionRow[] = [];
      const flush = async () => {
        if (!batch.length) return;
        const { created, updated } = await catalogImports.upsertInstitutions(environment, batch);
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
    },
  };
}
