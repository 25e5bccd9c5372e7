// The services: one object per resource, each built over the repositories it
// needs. Their function names are the operationIds they serve.
import type { Config } from "../config.ts";
import type { Database, Db } from "../db/database.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import type { Page } from "./types.ts";
import { createInstitutionsService } from "./institutions.ts";
import { createCoursesService } from "./courses.ts";
import { createEquivalencyVersionsService } from "./equivalency-versions.ts";
import * as equivalencies from "./equivalencies.ts";
import * as datasets from "./datasets.ts";
import { exportResource, type ExportFormat, type ExportResource } from "./exports/index.ts";
import { createKeysService } from "./keys.ts";
import { createOrganizationsService } from "./organizations.ts";
import { createWebhooksService } from "./webhooks.ts";
import { createOAuthClientsService } from "./oauth-clients.ts";
import { createWebhookDeliveriesService } from "./webhook-deliveries.ts";
import { createStoredSecretsService } from "./stored-secrets.ts";

/**
 * Equivalencies (except their history), datasets and exports still query the
 * database inside their modules; these factories give them the one service
 * shape the handlers use, so moving their queries into repositories changes
 * nothing above them.
 */
function createEquivalenciesService(deps: Pick<Repositories, "equivalencies"> & { db: Db }) {
  const { db } = deps;
  return {
    ...createEquivalencyVersionsService(deps),
    listEquivalencies: (caller: Credential, filters: equivalencies.EquivalencyFilters, page: Page, expandCourse: boolean) =>
      equivalencies.listEquivalencies(db, caller.environment, filters, page, expandCourse),
    getEquivalency: (caller: Credential, id: string) => equivalencies.getEquivalency(db, caller.environment, id),
    createEquivalency: (caller: Credential, input: equivalencies.EquivalencyCreate, options: { dryRun?: boolean }) =>
      equivalencies.createEquivalency(db, caller, input, options),
    updateEquivalency: (caller: Credential, id: string, patch: equivalencies.EquivalencyUpdate, ifMatch?: string) =>
      equivalencies.updateEquivalency(db, caller, id, patch, ifMatch),
  };
}

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

/** What the idempotency of the course and equivalency handlers still uses directly (until it has a service). */
export interface AdminDependencies {
  database: Database;
}

export interface Services {
  institutions: ReturnType<typeof createInstitutionsService>;
  courses: ReturnType<typeof createCoursesService>;
  equivalencies: ReturnType<typeof createEquivalenciesService>;
  datasets: ReturnType<typeof createDatasetsService>;
  exports: ReturnType<typeof createExportsService>;
  organizations: ReturnType<typeof createOrganizationsService>;
  keys: ReturnType<typeof createKeysService>;
  oauthClients: ReturnType<typeof createOAuthClientsService>;
  webhooks: ReturnType<typeof createWebhooksService>;
  webhookDeliveries: ReturnType<typeof createWebhookDeliveriesService>;
  storedSecrets: ReturnType<typeof createStoredSecretsService>;
  adminDependencies: AdminDependencies;
}

export interface ServicesDependencies {
  repositories: Repositories;
  config: Config;
  database: Database;
  /** Seals and opens stored secrets (webhook secrets). */
  secrets: SecretBox;
  /** Drops what this process remembers of a credential (the authenticator's cache), so a revocation takes effect at once. */
  forgetCredential?: (credentialId: string) => void;
}

export function createServices(deps: ServicesDependencies): Services {
  const { repositories, config, database } = deps;
  const db = database.prisma;
  return {
    institutions: createInstitutionsService(repositories),
    courses: createCoursesService({ ...repositories, db }),
    equivalencies: createEquivalenciesService({ ...repositories, db }),
    datasets: createDatasetsService({ db, config }),
    exports: createExportsService({ db }),
    organizations: createOrganizationsService(repositories),
    keys: createKeysService({ ...repositories, forgetCredential: deps.forgetCredential }),
    oauthClients: createOAuthClientsService(repositories),
    webhooks: createWebhooksService({
      ...repositories,
      secrets: deps.secrets,
      targetPolicy: { allowPrivateTargets: config.webhooks.allowPrivateTargets },
    }),
    webhookDeliveries: createWebhookDeliveriesService({ ...repositories, secrets: deps.secrets, settings: config.webhooks }),
    storedSecrets: createStoredSecretsService(repositories),
    adminDependencies: { database },
  };
}
