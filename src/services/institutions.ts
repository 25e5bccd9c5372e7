// Institutions, keyed by IPEDS unit id ("inst_<ipedsId>"), per environment.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Channel, Db, Environment, InstitutionType, Page, PageResult } from "./types.ts";
import { containsInsensitive } from "./search.ts";
import { NotFoundError } from "../errors.ts";
import { institutionView } from "./views.ts";

export interface InstitutionFilters {
  state?: string;
  type?: InstitutionType;
  source?: Channel;
  q?: string;
}

export type InstitutionView = ReturnType<typeof institutionView>;

/** Ordered by name, then id. */
export async function listInstitutions(
  db: Db,
  environment: Environment,
  filters: InstitutionFilters,
  page: Page,
): Promise<PageResult<InstitutionView>> {
  const where: Prisma.InstitutionWhereInput = {
    environment,
    ...(filters.state ? { state: filters.state.toUpperCase() } : {}),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.source ? { source: filters.source } : {}),
    ...(filters.q
      ? { OR: [{ name: containsInsensitive(filters.q) }, { city: containsInsensitive(filters.q) }] }
      : {}),
  };
  const [items, total] = await Promise.all([
    db.institution.findMany({ where, orderBy: [{ name: "asc" }, { id: "asc" }], take: page.limit, skip: page.offset }),
    db.institution.count({ where }),
  ]);
  return { items: items.map(institutionView), total };
}

export async function getInstitution(db: Db, environment: Environment, id: string): Promise<InstitutionView> {
  const record = await db.institution.findUnique({ where: { environment_id: { environment, id } } });
  if (!record) throw new NotFoundError(`No institution with id "${id}" in the ${environment} environment.`);
  return institutionView(record);
}
