// Organizations: the tenants that own keys, OAuth clients, webhooks and datasets.
import type { Channel, Db, Page } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import { stewardedInstitutions } from "./stewardship.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import { newId } from "../ids.ts";

const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const CHANNELS: readonly Channel[] = ["channel_a", "channel_b", "direct"];

export interface OrganizationInput {
  slug: string;
  name: string;
  source?: Channel;
}

export async function createOrganization(db: Db, input: OrganizationInput) {
  const errors = [];
  if (!SLUG_PATTERN.test(input.slug)) {
    errors.push({ pointer: "/slug", message: "must be 2-63 lowercase letters, digits or hyphens, starting with a letter or digit" });
  }
  if (!input.name.trim()) errors.push({ pointer: "/name", message: "must not be empty" });
  const source = input.source ?? "direct";
  if (!CHANNELS.includes(source)) errors.push({ pointer: "/source", message: `must be one of ${CHANNELS.join(", ")}` });
  if (errors.length) throw new ValidationError("The organization is not valid.", errors);

  const existing = await db.organization.findUnique({ where: { slug: input.slug } });
  if (existing) throw new ConflictError(`An organization with slug "${input.slug}" already exists.`, existing.id);
  return db.organization.create({ data: { id: newId("org"), slug: input.slug, name: input.name.trim(), source } });
}

export async function getOrganizationBySlug(db: Db, slug: string) {
  const organization = await db.organization.findUnique({ where: { slug } });
  if (!organization) throw new NotFoundError(`No organization has the slug "${slug}".`);
  return organization;
}

export function listOrganizations(db: Db) {
  return db.organization.findMany({ orderBy: { slug: "asc" } });
}

/** Who the credential is, and a page of the institutions its organization stewards in its environment. */
export async function describeCredential(db: Db, credential: Credential, page: Page) {
  const [organization, stewardship] = await Promise.all([
    db.organization.findUniqueOrThrow({ where: { id: credential.organizationId } }),
    stewardedInstitutions(db, credential.organizationId, credential.environment, page),
  ]);
  return {
    view: {
      organization: { id: organization.id, slug: organization.slug, name: organization.name, channel: organization.source },
      environment: credential.environment,
      credential: { id: credential.id, kind: credential.kind },
      scopes: credential.scopes,
      stewardship: { allInstitutions: stewardship.allInstitutions, institutionIds: stewardship.items },
    },
    total: stewardship.total,
  };
}
