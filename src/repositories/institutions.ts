// Institutions: every query of the institutions table.
import type { Executor } from "./executor.ts";
import type { Institution, Prisma } from "../../generated/prisma/client.ts";
import type { Channel, Environment, InstitutionType } from "../../generated/prisma/client.ts";
import { containsInsensitive } from "./search.ts";
import { pageOf, type Page, type PageResult } from "./paging.ts";

export interface InstitutionFilters {
  state?: string;
  type?: InstitutionType;
  source?: Channel;
  q?: string;
}

export function createInstitutionsRepository(db: Executor) {
  return {
    /** Ordered by name, then id. */
    listPage(environment: Environment, filters: InstitutionFilters, page: Page): Promise<PageResult<Institution>> {
      const where: Prisma.InstitutionWhereInput = {
        environment,
        ...(filters.state ? { state: filters.state.toUpperCase() } : {}),
        ...(filters.type ? { type: filters.type } : {}),
        ...(filters.source ? { source: filters.source } : {}),
        ...(filters.q
          ? { OR: [{ name: containsInsensitive(filters.q) }, { city: containsInsensitive(filters.q) }] }
          : {}),
      };
      return pageOf(
        page,
        [
          ["name", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) =>
          db.institution.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.institution.count({ where }),
      );
    },

    findById(environment: Environment, id: string): Promise<Institution | null> {
      return db.institution.findUnique({ where: { environment_id: { environment, id } } });
    },
  };
}

export type InstitutionsRepository = ReturnType<typeof createInstitutionsRepository>;
