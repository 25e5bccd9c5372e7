// Organizations: the tenants that own keys, OAuth clients, webhooks and datasets.
import type { Channel, Db } from "./types.ts";
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
