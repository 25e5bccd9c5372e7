// Stewardship: which institutions an organization may write for, per environment.
// Reading stays open to every credential; writing a course needs a steward of its
// institution, writing an equivalency a steward of its target institution.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db, Environment } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import { NotFoundError, NotStewardError, type FieldError } from "../errors.ts";

export const ENVIRONMENTS: readonly Environment[] = ["live", "sandbox"];

/** What to grant or revoke: listed institutions, or every institution of the environment. */
export type GrantTarget = { institutionIds: string[] } | { all: true };

export interface StewardshipView {
  environment: Environment;
  allInstitutions: boolean;
  institutionIds: string[];
}

/** An institution a write concerns, and where the request names it (a JSON pointer, or none). */
export interface StewardedReference {
  institutionId: string;
  pointer?: string;
}

async function stewardedAmong(db: Prisma.TransactionClient, organizationId: string, environment: Environment, institutionIds: string[]) {
  const [standing, grants] = await Promise.all([
    db.stewardshipAll.findUnique({ where: { organizationId_environment: { organizationId, environment } } }),
    db.stewardship.findMany({ where: { organizationId, environment, institutionId: { in: institutionIds } }, select: { institutionId: true } }),
  ]);
  return standing ? new Set(institutionIds) : new Set(grants.map((grant) => grant.institutionId));
}

/**
 * Throws not-steward (403) when the credential's organization does not steward
 * every referenced institution; the problem points to each offending reference.
 */
export async function assertSteward(db: Prisma.TransactionClient, credential: Credential, references: StewardedReference[]): Promise<void> {
  const institutionIds = [...new Set(references.map((reference) => reference.institutionId))];
  if (!institutionIds.length) return;
  const stewarded = await stewardedAmong(db, credential.organizationId, credential.environment, institutionIds);
  const outside = references.filter((reference) => !stewarded.has(reference.institutionId));
  if (!outside.length) return;
  const errors: FieldError[] = outside
    .filter((reference) => reference.pointer !== undefined)
    .map((reference) => ({ pointer: reference.pointer!, message: `the organization does not steward ${reference.institutionId}` }));
  throw new NotStewardError([...new Set(outside.map((reference) => reference.institutionId))], {
    organization: credential.organizationSlug,
    environment: credential.environment,
  }, errors);
}

async function assertInstitutionsExist(db: Db, environment: Environment, institutionIds: string[]): Promise<void> {
  const found = await db.institution.findMany({ where: { environment, id: { in: institutionIds } }, select: { id: true } });
  const known = new Set(found.map((institution) => institution.id));
  const unknown = institutionIds.filter((id) => !known.has(id));
  if (unknown.length) throw new NotFoundError(`No institution ${unknown.join(", ")} in the ${environment} environment.`);
}

/** Grants are idempotent: granting what is already granted changes nothing. */
export async function grantStewardship(db: Db, organizationId: string, environment: Environment, target: GrantTarget): Promise<void> {
  if ("all" in target) {
    await db.stewardshipAll.upsert({
      where: { organizationId_environment: { organizationId, environment } },
      create: { organizationId, environment },
      update: {},
    });
    return;
  }
  const institutionIds = [...new Set(target.institutionIds)];
  await assertInstitutionsExist(db, environment, institutionIds);
  await db.stewardship.createMany({
    data: institutionIds.map((institutionId) => ({ organizationId, environment, institutionId })),
    skipDuplicates: true,
  });
}

/** Revoking `all` withdraws the standing grant only; explicit grants stay until revoked by name. */
export async function revokeStewardship(db: Db, organizationId: string, environment: Environment, target: GrantTarget): Promise<void> {
  if ("all" in target) {
    await db.stewardshipAll.deleteMany({ where: { organizationId, environment } });
    return;
  }
  await db.stewardship.deleteMany({ where: { organizationId, environment, institutionId: { in: target.institutionIds } } });
}

/** Every environment's stewardship of one organization (for administrators). */
export async function describeStewardship(db: Db, organizationId: string): Promise<StewardshipView[]> {
  const [standing, grants] = await Promise.all([
    db.stewardshipAll.findMany({ where: { organizationId } }),
    db.stewardship.findMany({ where: { organizationId }, orderBy: [{ environment: "asc" }, { institutionId: "asc" }] }),
  ]);
  return ENVIRONMENTS.map((environment) => ({
    environment,
    allInstitutions: standing.some((grant) => grant.environment === environment),
    institutionIds: grants.filter((grant) => grant.environment === environment).map((grant) => grant.institutionId),
  }));
}
