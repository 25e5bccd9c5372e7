// The data-access layer: one repository per aggregate, the only code besides
// src/db/ that queries the database.
import type { Db } from "../db/database.ts";
import { createCredentialsRepository, type CredentialsRepository } from "./credentials.ts";
import { createOrganizationsRepository, type OrganizationsRepository } from "./organizations.ts";
import { createWebhooksRepository, type WebhooksRepository } from "./webhooks.ts";

export interface Repositories {
  organizations: OrganizationsRepository;
  credentials: CredentialsRepository;
  webhooks: WebhooksRepository;
}

export function createRepositories(db: Db): Repositories {
  return {
    organizations: createOrganizationsRepository(db),
    credentials: createCredentialsRepository(db),
    webhooks: createWebhooksRepository(db),
  };
}
