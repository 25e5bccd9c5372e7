// Institutions, keyed by IPEDS unit id ("inst_<ipedsId>"), per environment: read only.
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import type { InstitutionFilters } from "../repositories/institutions.ts";
import type { Page, PageResult } from "./types.ts";
import { notFound } from "../kernel/errors.ts";
import { institutionView } from "../views/catalog.ts";

export type { InstitutionFilters } from "../repositories/institutions.ts";
export type InstitutionView = ReturnType<typeof institutionView>;

export function createInstitutionsService({ institutions }: Pick<Repositories, "institutions">) {
  return {
    async listInstitutions(
      caller: Credential,
      filters: InstitutionFilters,
      page: Page,
    ): Promise<PageResult<InstitutionView>> {
      const { items, total, next } = await institutions.listPage(caller.environment, filters, page);
      return { items: items.map(institutionView), total, next };
    },

    async getInstitution(caller: Credential, id: string): Promise<InstitutionView> {
      const record = await institutions.findById(caller.environment, id);
      if (!record) throw notFound.institution(id, caller.environment);
      return institutionView(record);
    },
  };
}

export type InstitutionsService = ReturnType<typeof createInstitutionsService>;
