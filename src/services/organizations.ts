// Organizations: the tenants that own keys, OAuth clients, webhooks and datasets.
import { Channel } from "../../generated/prisma/enums.ts";
import type { Page } from "./types.ts";
import type { Repositories } from "../repositories/index.ts";
import { actingKind, type ApiCredential } from "../auth/credential.ts";
import { ConflictError, ValidationError, notFound } from "../kernel/errors.ts";
import { auditChange } from "./audit.ts";
import { newId } from "../kernel/ids.ts";

const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const CHANNELS: readonly Channel[] = Object.values(Channel);

export interface OrganizationInput {
  slug: string;
  name: string;
  source?: Channel;
}

export function createOrganizationsService({
  organizations,
  transaction,
}: Pick<Repositories, "organizations" | "transaction">) {
  return {
    async createOrganization(input: OrganizationInput) {
      const errors = [];
      if (!SLUG_PATTERN.test(input.slug)) {
        errors.push({
          pointer: "/slug",
          message: "must be 2-63 lowercase letters, digits or hyphens, starting with a letter or digit",
        });
      }
      if (!input.name.trim()) errors.push({ pointer: "/name", message: "must not be empty" });
      const source = input.source ?? Channel.direct;
      if (!CHANNELS.includes(source))
        errors.push({ pointer: "/source", message: `must be one of ${CHANNELS.join(", ")}` });
      if (errors.length) throw new ValidationError("The organization is not valid.", errors);

      const existing = await organizations.findBySlug(input.slug);
      if (existing) throw new ConflictError(`An organization with slug "${input.slug}" already exists.`, existing.id);
      return transaction(async (writes) => {
        const created = await writes.organizations.create({
          id: newId("org"),
          slug: input.slug,
          name: input.name.trim(),
          source,
        });
        await auditChange(writes, [
          { organizationId: created.id, environment: null, type: "organization", id: created.id },
        ]);
        return created;
      });
    },

    async getOrganizationBySlug(slug: string) {
      const organization = await organizations.findBySlug(slug);
      if (!organization) throw notFound.organizationSlug(slug);
      return organization;
    },

    listOrganizations() {
      return organizations.listAll();
    },

    /** Who the caller is, and a page of the institutions its organization stewards in its environment. */
    async getCurrentOrganization(caller: ApiCredential, page: Page) {
      const [organization, allInstitutions, stewarded] = await Promise.all([
        organizations.findById(caller.organizationId),
        organizations.holdsStandingStewardship(caller.organizationId, caller.environment),
        organizations.stewardedInstitutionIdsPage(caller.organizationId, caller.environment, page),
      ]);
      // The credential was just authenticated from this organization's key or client: it exists.
      if (!organization) throw new Error(`The caller's organization ${caller.organizationId} no longer exists.`);
      return {
        view: {
          organization: {
            id: organization.id,
            slug: organization.slug,
            name: organization.name,
            channel: organization.source,
          },
          environment: caller.environment,
          credential: { id: caller.id, kind: actingKind(caller.kind) },
          scopes: caller.scopes,
          stewardship: { allInstitutions, institutionIds: stewarded.items },
        },
        total: stewarded.total,
        next: stewarded.next,
      };
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
