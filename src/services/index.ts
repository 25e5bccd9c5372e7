// The services: one object per resource, each built over the repositories it
// needs. Their function names are the operationIds they serve.
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import type { Repositories } from "../repositories/index.ts";
import { createInstitutionsService } from "./institutions.ts";
import { createCoursesService } from "./courses.ts";
import { createEquivalenciesService } from "./equivalencies.ts";
import { createIdempotencyService } from "./idempotency.ts";
import { createStewardshipService } from "./stewardship.ts";
import { createDatasetsService } from "./datasets.ts";
import { createExportsService } from "./exports/index.ts";
import { createCatalogImportsService } from "./imports/index.ts";
import { createSandboxService } from "./sandbox.ts";
import { createKeysService } from "./keys.ts";
import { createOrganizationsService } from "./organizations.ts";
import { createWebhooksService } from "./webhooks.ts";
import { createOAuthClientsService } from "./oauth-clients.ts";

/**
 * What the webhook-delivery handlers still use directly until their service is
 * restructured the same way (the admin part of issue 12, round 2).
 */
export interface AdminDependencies {
  config: Config;
  database: Database;
  authenticator: Authenticator;
  secrets: SecretBox;
}

export interface Services {
  institutions: ReturnType<typeof createInstitutionsService>;
  courses: ReturnType<typeof createCoursesService>;
  equivalencies: ReturnType<typeof createEquivalenciesService>;
  datasets: ReturnType<typeof createDatasetsService>;
  exports: ReturnType<typeof createExportsService>;
  catalogImports: ReturnType<typeof createCatalogImportsService>;
  sandbox: ReturnType<typeof createSandboxService>;
  organizations: ReturnType<typeof createOrganizationsService>;
  stewardship: ReturnType<typeof createStewardshipService>;
  idempotency: ReturnType<typeof createIdempotencyService>;
  keys: ReturnType<typeof createKeysService>;
  oauthClients: ReturnType<typeof createOAuthClientsService>;
  webhooks: ReturnType<typeof createWebhooksService>;
  adminDependencies: AdminDependencies;
}

export function createServices(deps: { repositories: Repositories } & AdminDependencies): Services {
  const { repositories, config, database } = deps;
  return {
    institutions: createInstitutionsService(repositories),
    courses: createCoursesService(repositories),
    equivalencies: createEquivalenciesService(repositories),
    datasets: createDatasetsService({ ...repositories, stalePendingDays: config.datasets.stalePendingDays }),
    exports: createExportsService(repositories),
    catalogImports: createCatalogImportsService(repositories),
    sandbox: createSandboxService(repositories),
    organizations: createOrganizationsService(repositories),
    stewardship: createStewardshipService(repositories),
    idempotency: createIdempotencyService(repositories),
    keys: createKeysService({ ...repositories, forgetCredential: (keyId) => deps.authenticator.forget(keyId) }),
    oauthClients: createOAuthClientsService(repositories),
    webhooks: createWebhooksService({
      ...repositories,
      secrets: deps.secrets,
      targetPolicy: { allowPrivateTargets: config.webhooks.allowPrivateTargets },
    }),
    adminDependencies: { config, database, authenticator: deps.authenticator, secrets: deps.secrets },
  };
}
