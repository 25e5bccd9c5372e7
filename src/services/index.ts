// The services handlers call: one instance per aggregate, built once with the
// app context over the repositories.
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import type { Repositories } from "../repositories/index.ts";
import { createKeysService, type KeysService } from "./keys.ts";
import { createOrganizationsService, type OrganizationsService } from "./organizations.ts";

export interface Services {
  organizations: OrganizationsService;
  keys: KeysService;
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
    config,
    database,
    authenticator,
    secrets,
  };
}
