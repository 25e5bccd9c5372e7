// The services handlers call: one instance per aggregate, built once with the
// app context over the repositories.
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import type { Repositories } from "../repositories/index.ts";
import { createKeysService, type KeysService } from "./keys.ts";
import { createOrganizationsService, type OrganizationsService } from "./organizations.ts";
import { createWebhooksService, type WebhooksService } from "./webhooks.ts";
import { createOAuthClientsService, type OAuthClientsService } from "./oauth-clients.ts";

export interface Services {
  organizations: OrganizationsService;
  keys: KeysService;
  oauthClients: OAuthClientsService;
  webhooks: WebhooksService;
  // Not yet behind repositories: the handlers of the remaining aggregates still
  // take these; each goes once its service is a factory over repositories.
  config: Config;
  database: Database;
  authenticator: Authenticator;
  /** Seals and opens stored secrets (webhook secrets, the token-signing key). */
  secrets: SecretBox;
}

export interface ServiceDependencies {
  repositories: Repositories;
  config: Config;
  database: Database;
  authenticator: Authenticator;
  secrets: SecretBox;
}

export function createServices({ repositories, config, database, authenticator, secrets }: ServiceDependencies): Services {
  return {
    organizations: createOrganizationsService(repositories),
    keys: createKeysService({ ...repositories, forgetCredential: (keyId) => authenticator.forget(keyId) }),
    oauthClients: createOAuthClientsService(repositories),
    webhooks: createWebhooksService({ ...repositories, secrets, targetPolicy: { allowPrivateTargets: config.webhooks.allowPrivateTargets } }),
    config,
    database,
    authenticator,
    secrets,
  };
}
