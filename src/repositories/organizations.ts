// Organizations: the tenants, and the stewardship grants read alongside them.
import type { Executor } from "./executor.ts";
import type { Organization } from "../../generated/prisma/client.ts";
import type { Channel, Environment } from "../../generated/prisma/client.ts";
import { pageOf, type Page } from "./paging.ts";

export function createOrganizationsRepository(db: Executor) {
  return {
    create(record: { id: string; slug: string; name: string; source: Channel }): Promise<Organization> {
      return db.organization.create({ data: record });
    },

    findById(id: string): Promise<Organization | null> {
      return db.organization.findUnique({ where: { id } });
    },

    findBySlug(slug: string): Promise<Organization | null> {
      return db.organization.findUnique({ where: { slug } });
    },

    listAll(): Promise<Organization[]> {
      return db.organization.findMany({ orderBy: { slug: "asc" } });
    },

    /** Whether the organization holds the standing grant over every institution of the environment. */
    async holdsStandingStewardship(organizationId: string, environment: Environment): Promise<boolean> {
      const standing = await db.stewardshipAll.findUnique({
        where: { organizationId_environment: { organizationId, environment } },
      });
      return Boolean(standing);
    },

    /** One page of the explicitly stewarded institution ids, ordered by id. */
    stewardedInstitutionIdsPage(organizationId: string, environment: Environment, page: Page) {
      const where = { organizationId, environment };
      return pageOf(
        page,
        [["institutionId", "asc"]],
        ({ take, skip, orderBy, after }) =>
          db.stewardship.findMany({
            where: { AND: [where, after] },
            orderBy,
            take,
            skip,
            select: { institutionId: true },
          }),
        () => db.stewardship.count({ where }),
      ).then((result) => ({ ...result, items: result.items.map((grant) => grant.institutionId) }));
    },
  };
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
