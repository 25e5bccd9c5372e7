// Stewardship: which institutions an organization may write for, per environment.
// Reading stays open to every credential; writing a course needs a steward of its
// institution, writing an equivalency a steward of its target institution.
import type { Environment } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import type { StewardshipRepository } from "../repositories/stewardship.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { NotFoundError, NotStewardError, type FieldError } from "../kernel/errors.ts";

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

/**
 * Throws not-steward (403) when the credential's organization does not steward
 * every referenced institution; the problem points to each offending reference.
 * Takes the repository so a write checks inside its own transaction.
 */
export async function assertSteward(
  stewardship: StewardshipRepository,
  caller: Credential,
  references: StewardedReference[],
): Promise<void> {
  const institutionIds = [...new Set(references.map((reference) => reference.institutionId))];
  if (!institutionIds.length) return;
  const stewarded = await stewardship.stewardedAmong(caller.organizationId, caller.environment, institutionIds);
  const outside = references.filter((reference) => !stewarded.has(reference.institutionId));
  if (!outside.length) return;
  const errors: FieldError[] = outside
    .filter((reference) => reference.pointer !== undefined)
    .map((reference) => ({
      pointer: reference.pointer!,
      message: `the organization does not steward ${reference.institutionId}`,
    }));
  throw new NotStewardError(
    [...new Set(outside.map((reference) => reference.institutionId))],
    {
      organization: caller.organizationSlug,
      environment: caller.environment,
    },
    errors,
  );
}

/** Granting and revoking stewardship (an administrator's act: the CLI, test set-up). */
export function createStewardshipService({
  stewardship,
  transaction,
}: Pick<Repositories, "stewardship" | "transaction">) {
  /** A grant names each institution it covers, or none for the standing grant of every institution. */
  function grantRecords(organizationId: string, environment: Environment, target: GrantTarget): ChangedRecord[] {
    const ids = "all" in target ? [null] : [...new Set(target.institutionIds)];
    return ids.map((id) => ({ organizationId, environment, type: "stewardship", id }));
  }

  return {
    /** Grants are idempotent: granting what is already granted changes nothing. */
    async grantStewardship(organizationId: string, environment: Environment, target: GrantTarget): Promise<void> {
      if (!("all" in target)) {
        const institutionIds = [...new Set(target.institutionIds)];
        const known = await stewardship.existingInstitutionIds(environment, institutionIds);
        const unknown = institutionIds.filter((id) => !known.has(id));
        if (unknown.length)
          throw new NotFoundError(`No institution ${unknown.join(", ")} in the ${environment} environment.`);
      }
      await transaction(async (writes) => {
        if ("all" in target) await writes.stewardship.grantAll(organizationId, environment);
        else
          await writes.stewardship.grantInstitutions(organizationId, environment, [...new Set(target.institutionIds)]);
        await auditChange(writes, grantRecords(organizationId, environment, target));
      });
    },

    /** Revoking `all` withdraws the standing grant only; explicit grants stay until revoked by name. */
    async revokeStewardship(organizationId: string, environment: Environment, target: GrantTarget): Promise<void> {
      await transaction(async (writes) => {
        if ("all" in target) await writes.stewardship.revokeAll(organizationId, environment);
        else await writes.stewardship.revokeInstitutions(organizationId, environment, target.institutionIds);
        await auditChange(writes, grantRecords(organizationId, environment, target));
      });
    },

    /** Every environment's stewardship of one organization (for administrators). */
    async describeStewardship(organizationId: string): Promise<StewardshipView[]> {
      const { standing, grants } = await stewardship.listGrants(organizationId);
      return ENVIRONMENTS.map((environment) => ({
        environment,
        allInstitutions: standing.some((grant) => grant.environment === environment),
        institutionIds: grants.filter((grant) => grant.environment === environment).map((grant) => grant.institutionId),
      }));
    },
  };
}

export type StewardshipService = ReturnType<typeof createStewardshipService>;
