// The services: one object per resource, each built over the repositories it
// needs. Their function names are the operationIds they serve.
import type { Config } from "../config.ts";
import type { Database, Db } from "../db/database.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import type { Page } from "./types.ts";
import { createInstitutionsService } from "./institutions.ts";
import { createCoursesService } from "./courses.ts";
import { createEquivalenciesService } from "./equivalencies.ts";
import { createIdempotencyService } from "./idempotency.ts";
import { createStewardshipService } from "./stewardship.ts";
import * as datasets from "./datasets.ts";
import { exportResource, type ExportFormat, type ExportResource } from "./exports/index.ts";
import { createKeysService } from "./keys.ts";
import { createOrganizationsService } from "./organizations.ts";
import { createWebhooksService } from "./webhooks.ts";
import { createOAuthClientsService } from "./oauth-clients.ts";

/**
 * Datasets and exports still query the database inside their modules; these
 * factories give them the one service shape the handlers use, so moving their
 * queries into repositories changes nothing above them.
 */
function createDatasetsService({ db, config }: { db: Db; config: Config }) {
  return {
    listDatasets: (caller: Credential, page: Page) => datasets.listDatasets(db, caller, page),
    getDataset: (caller: Credential, id: string) => datasets.getDataset(db, caller, id),
    publishDataset: (caller: Credential, input: datasets.DatasetPublish) =>
      datasets.publishDataset(db, caller, input, { stalePendingDays: config.datasets.stalePendingDays }),
  };
}

function createExportsService({ db }: { db: Db }) {
  return {
    exportData: (caller: Credential, resource: ExportResource, format: ExportFormat) => exportResource(db, caller.environment, resource, format),
  };
}

/**
 * What the organization, key and webhook handlers still use directly until
 * their services are restructured the same way (the admin part of issue 12).
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
  const db = database.prisma;
  return {
    institutions: createInstitutionsService(repositories),
    courses: createCoursesService(repositories),
    equivalencies: createEquivalenciesService(repositories),
    datasets: createDatasetsService({ db, config }),
    exports: createExportsService({ db }),
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
