// Reference-data imports: institutions (IPEDS) and CIP 2020 codes, written in
// multi-row upserts.
import type { Executor } from "./executor.ts";
import type { Channel, Environment, InstitutionType } from "../../generated/prisma/client.ts";
import { institutionId } from "../kernel/ids.ts";

// Keeps every statement well under PostgreSQL's limit of bind parameters.
const CIP_CHUNK = 1000;

/** One institution as an import writes it. */
export interface InstitutionRow {
  ipedsId: string;
  name: string;
  city: string;
  state: string;
  type: InstitutionType;
  system: string | null;
  source: Channel;
}

/** One CIP 2020 code as an import writes it. */
export interface CipEntry {
  code: string;
  title: string;
  digits: 2 | 4 | 6;
}

export function createCatalogImportsRepository(db: Executor) {
  return {
    /** Inserts new institutions and updates changed ones (by IPEDS unit id); identical rows are not written. */
    async upsertInstitutions(
      environment: Environment,
      rows: InstitutionRow[],
    ): Promise<{ created: number; updated: number }> {
      const params: unknown[] = [];
      const values = rows.map((row) => {
        const start = params.length;
        params.push(
          environment,
          institutionId(row.ipedsId),
          row.ipedsId,
          row.name,
          row.city,
          row.state,
          row.type,
          row.system,
          row.source,
        );
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
    },

    /** Inserts or retitles CIP codes. */
    async upsertCipCodes(entries: CipEntry[]): Promise<void> {
      for (let start = 0; start < entries.length; start += CIP_CHUNK) {
        const chunk = entries.slice(start, start + CIP_CHUNK);
        const params = chunk.flatMap((e) => [e.code, e.title, e.digits]);
        const values = chunk.map((_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3}::int)`).join(", ");
        await db.$executeRawUnsafe(
          `INSERT INTO cip_codes (code, title, digits) VALUES ${values}
           ON CONFLICT (code) DO UPDATE SET title = EXCLUDED.title, digits = EXCLUDED.digits`,
          ...params,
        );
      }
    },
  };
}

export type CatalogImportsRepository = ReturnType<typeof createCatalogImportsRepository>;
