// The sandbox's fixed records: the public read-only key and its organization,
// and the demo dataset (organizations, institutions, courses, equivalencies and
// their versions) written in one transaction.
import { type Executor, inTransaction } from "./executor.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Channel, Environment } from "../../generated/prisma/client.ts";

export interface FixedOrganization {
  id: string;
  slug: string;
  name: string;
  source: Channel;
}

/** A key with a fixed id: created, or given these fields when it exists. */
export interface FixedApiKey {
  id: string;
  organizationId: string;
  name: string;
  fields: { hash: string; prefix: string; scopes: string[]; environment: Environment; revokedAt: null };
}

export interface SandboxSeed {
  organizations: FixedOrganization[];
  institutions: Prisma.InstitutionCreateManyInput[];
  courses: Prisma.CourseCreateManyInput[];
  equivalencies: Prisma.EquivalencyCreateManyInput[];
  versions: Prisma.EquivalencyVersionCreateManyInput[];
  /** Given stewardship of the seeded institutions, in the same transaction. */
  steward: FixedOrganization;
}

/** An existing organization is left as it is. */
async function ensureOrganization(db: Prisma.TransactionClient, organization: FixedOrganization): Promise<void> {
  await db.organization.upsert({ where: { id: organization.id }, create: organization, update: {} });
}

/** Grants `steward` the listed institutions that exist in the environment; none is no write at all. */
async function grantPresent(
  db: Prisma.TransactionClient,
  steward: FixedOrganization,
  environment: Environment,
  institutionIds: string[],
): Promise<void> {
  const present = await db.institution.findMany({
    where: { environment, id: { in: institutionIds } },
    select: { id: true },
  });
  if (!present.length) return;
  await ensureOrganization(db, steward);
  await db.stewardship.createMany({
    data: present.map(({ id }) => ({ organizationId: steward.id, environment, institutionId: id })),
    skipDuplicates: true,
  });
}

/** The seed's one transaction, once at the first start: longer than the usual 15 s, which a loaded machine's first start exceeded. */
const SEED_TRANSACTION = { maxWait: 60_000, timeout: 300_000 };

export function createSandboxRepository(db: Executor) {
  return {
    async ensureApiKey(organization: FixedOrganization, key: FixedApiKey): Promise<void> {
      await ensureOrganization(db, organization);
      await db.apiKey.upsert({
        where: { id: key.id },
        create: { id: key.id, organizationId: key.organizationId, name: key.name, ...key.fields },
        update: key.fields,
      });
    },

    countInstitutions(environment: Environment): Promise<number> {
      return db.institution.count({ where: { environment } });
    },

    async insertSeed(environment: Environment, seed: SandboxSeed): Promise<void> {
      await inTransaction(
        db,
        async (tx) => {
          for (const organization of seed.organizations) await ensureOrganization(tx, organization);
          await tx.institution.createMany({ data: seed.institutions });
          await tx.course.createMany({ data: seed.courses });
          await tx.equivalency.createMany({ data: seed.equivalencies });
          await tx.equivalencyVersion.createMany({ data: seed.versions });
          await grantPresent(
            tx,
            seed.steward,
            environment,
            seed.institutions.map((institution) => institution.id),
          );
        },
        SEED_TRANSACTION,
      );
    },

    /** Idempotent: grants already held are kept. */
    grantStewardshipOfPresent(
      steward: FixedOrganization,
      environment: Environment,
      institutionIds: string[],
    ): Promise<void> {
      return grantPresent(db, steward, environment, institutionIds);
    },
  };
}

export type SandboxRepository = ReturnType<typeof createSandboxRepository>;
