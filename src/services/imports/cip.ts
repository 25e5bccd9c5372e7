// Imports the CIP 2020 taxonomy: the two-column list (CIP_Code, CIP_Title) or
// NCES's own file (CIPFamily, CIPCode written as ="01.0101", Action, CIPTitle…).
import fs from "node:fs";
import type { Repositories } from "../../repositories/index.ts";
import type { CipEntry } from "../../repositories/catalog-imports.ts";
export type { CipEntry };

const CODE = /^(\d{2})(?:\.(\d{2})(\d{2})?)?$/;
/** NCES actions that mean a code is not part of CIP 2020. */
const RETIRED_ACTION = /^(deleted|moved to)/i;

export interface CipImportSummary {
  read: number;
  imported: number;
  skipped: number;
  byDigits: { 2: number; 4: number; 6: number };
}

/** Normalises `="01.0101"`, `1.0101` (spreadsheet-mangled) or `01.0101` to `01.0101`. */
export function normalizeCipCode(raw: string): string | null {
  let code = raw
    .trim()
    .replace(/^="?|"$/g, "")
    .replace(/"/g, "")
    .trim();
  if (/^\d\./.test(code) || /^\d$/.test(code)) code = `0${code}`;
  return CODE.test(code) ? code : null;
}

export function cipEntryFrom(record: Record<string, string>): CipEntry | null {
  const rawCode = record.CIP_Code ?? record.CIPCode ?? record.CIPCODE;
  const rawTitle = record.CIP_Title ?? record.CIPTitle ?? record.CIPTITLE;
  if (rawCode === undefined || rawTitle === undefined) return null;
  if (RETIRED_ACTION.test(record.Action ?? "")) return null;
  const code = normalizeCipCode(rawCode);
  const title = rawTitle.trim().replace(/\.$/, "");
  if (!code || !title) return null;
  const digits = code.replace(".", "").length as 2 | 4 | 6;
  return { code, title, digits };
}

export async function readCipFile(file: string): Promise<{ entries: CipEntry[]; read: number }> {
  const { parse } = await import("csv-parse"); // with the first import, not with the server
  const parser = fs.createReadStream(file).pipe(
    parse({
      columns: cipHeader(file),
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
    }),
  );
  const entries = new Map<string, CipEntry>();
  let read = 0;
  for await (const record of parser) {
    read += 1;
    const entry = cipEntryFrom(record as Record<string, string>);
    if (entry) entries.set(entry.code, entry);
  }
  if (read > 0 && entries.size === 0) {
    throw new Error("No CIP codes found: expected columns CIP_Code and CIP_Title (or NCES's CIPCode and CIPTitle).");
  }
  return { entries: [...entries.values()], read };
}

/** Checks the header row first: a file without the code and title columns is refused before any row is read. */
function cipHeader(file: string) {
  return (header: string[]) => {
    const code = ["CIP_Code", "CIPCode", "CIPCODE"].some((c) => header.includes(c));
    const title = ["CIP_Title", "CIPTitle", "CIPTITLE"].some((c) => header.includes(c));
    if (!code || !title)
      throw new Error(
        `${file} is not a CIP 2020 file: its header has no ${code ? "CIP_Title (or CIPTitle)" : "CIP_Code (or CIPCode)"} column. Give the CIP 2020 list (CIP_Code,CIP_Title) or NCES's CIPCode.csv.`,
      );
    return header;
  };
}

export function createCipImportsService({ catalogImports }: Pick<Repositories, "catalogImports">) {
  return {
    /** Reads the whole file first: a file with no recognisable code writes nothing. */
    async importCip(file: string): Promise<CipImportSummary> {
      const { entries, read } = await readCipFile(file);
      await catalogImports.upsertCipCodes(entries);
      const byDigits = { 2: 0, 4: 0, 6: 0 };
      for (const entry of entries) byDigits[entry.digits] += 1;
      return { read, imported: entries.length, skipped: read - entries.length, byDigits };
    },
  };
}
