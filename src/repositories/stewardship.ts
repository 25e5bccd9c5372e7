// Stewardship grants: which institutions an organization may write for, per
// environment (listed institutions, or the standing grant over all of them).
import type { Prisma, Stewardship, StewardshipAll } from "../../generated/prisma/client.ts";
import type { Environment } from "../../generated/prisma/client.ts";

export function createStewardshipRepository(db: Prisma.TransactionClient) {
  return {
    /** Which of the institutions the organization stewards (all of them under a standing grant). */
    async stewardedAmong(
      organizationId: string,
      environment: Environment,
      institutionIds: string[],
    ): Promise<Set<string>> {
      const [standing, grants] = await Promise.all([
        db.stewardshipAll.findUnique({ where: { organizationId_environment: { organizationId, environment } } }),
        db.stewardship.findMany({
          where: { organizationId, environment, institutionId: { in: institutionIds } },
          select: { institutionId: true },
        }),
      ]);
      return standing ? new Set(institutionIds) : new Set(grants.map((grant) => grant.institutionId));
    },

    /** Granting what is already granted changes nothing. */
    async grantAll(organizationId: string, environment: Environment): Promise<void> {
      await db.stewardshipAll.upsert({
        where: { organizationId_environment: { organizationId, environment } },
        create: { organizationId, environment },
        update: {},
      });
    },

    async grantInstitutions(organizationId: string, environment: Environment, institutionIds: string[]): Promise<void> {
      await db.stewardship.createMany({
        data: institutionIds.map((institutionId) => ({ organizationId, environment, institutionId })),
        skipDuplicates: true,
      });
    },

    async revokeAll(organizationId: string, environment: Environment): Promise<void> {
      await db.stewardshipAll.deleteMany({ where: { organizationId, environment } });
    },

    async revokeInstitutions(
      organizationId: string,
      environment: Environment,
      institutionIds: string[],
    ): Promise<void> {
      await db.stewardship.deleteMany({
        where: { organizationId, environment, institutionId: { in: institutionIds } },
      });
    },

    /** Every standing grant and every listed grant of one organization, listed ones by environment and institution. */
    async listGrants(organizationId: string): Promise<{ standing: StewardshipAll[]; grants: Stewardship[] }> {
      const [standing, grants] = await Promise.all([
        db.stewardshipAll.findMany({ where: { organizationId } }),
        db.stewardship.findMany({
          where: { organizationId },
          orderBy: [{ environment: "asc" }, { institutionId: "asc" }],
        }),
      ]);
      return { standing, grants };
    },

    /** The ids among institutionIds that exist in the environment. */
    async existingInstitutionIds(environment: Environment, institutionIds: string[]): Promise<Set<string>> {
      const found = await db.institution.findMany({
        where: { environment, id: { in: institutionIds } },
        select: { id: true },
      });
      return new Set(found.map((institution) => institution.id));
    },
  };
}

export type StewardshipRepository = ReturnType<typeof createStewardshipRepository>;
