// The services: one object per resource, each built over the repositories it
// needs. Their function names are the operationIds they serve.
import type { Config } from "../kernel/config.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import type { Repositories } from "../repositories/index.ts";
import { createInstitutionsService } from "./institutions.ts";
import { createCoursesService } from "./courses.ts";
import { createEquivalenciesService } from "./equivalencies.ts";
import { createEquivalencyImportService } from "./rules/import.ts";
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
import { createWebhookDeliveriesService } from "./webhook-deliveries.ts";
import { createStoredSecretsService } from "./stored-secrets.ts";
import { createSsoService } from "./sso.ts";
import { createUsersService } from "./users.ts";
import { createDashboardSessionsService } from "./dashboard-sessions.ts";
import { createAuditService } from "./audit.ts";
import { createTransferEvaluationsService } from "./rules/evaluation-service.ts";
import { createCursors, type Cursors } from "../kernel/paging.ts";
import { createEventsService } from "./events.ts";
import type { FeedListen } from "./event-stream.ts";

export interface Services {
  institutions: ReturnType<typeof createInstitutionsService>;
  courses: ReturnType<typeof createCoursesService>;
  equivalencies: ReturnType<typeof createEquivalenciesService>;
  equivalencyImport: ReturnType<typeof createEquivalencyImportService>;
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
  webhookDeliveries: ReturnType<typeof createWebhookDeliveriesService>;
  storedSecrets: ReturnType<typeof createStoredSecretsService>;
  sso: ReturnType<typeof createSsoService>;
  users: ReturnType<typeof createUsersService>;
  dashboardSessions: ReturnType<typeof createDashboardSessionsService>;
  audit: ReturnType<typeof createAuditService>;
  events: ReturnType<typeof createEventsService>;
  transferEvaluations: ReturnType<typeof createTransferEvaluationsService>;
  /** Seals and opens the `after` cursors of lists. */
  cursors: Cursors;
}

export interface ServicesDependencies {
  repositories: Repositories;
  config: Config;
  /** Seals and opens stored secrets (webhook secrets). */
  secrets: SecretBox;
  /** Drops what this process remembers of a credential (the authenticator's cache), so a revocation takes effect at once. */
  forgetCredential?: (credentialId: string) => void;
  /** The database's LISTEN: wakes this process's event streams when another process commits events. */
  listen?: FeedListen;
}

export function createServices(deps: ServicesDependencies): Services {
  const { repositories, config } = deps;
  const cursors = createCursors(deps.secrets);
  const equivalencies = createEquivalenciesService(repositories);
  return {
    institutions: createInstitutionsService(repositories),
    courses: createCoursesService(repositories),
    equivalencies,
    equivalencyImport: createEquivalencyImportService(repositories),
    datasets: createDatasetsService({ ...repositories, stalePendingDays: config.datasets.stalePendingDays }),
    exports: createExportsService({ ...repositories, limits: config.exports }),
    catalogImports: createCatalogImportsService(repositories),
    sandbox: createSandboxService(repositories),
    organizations: createOrganizationsService(repositories),
    stewardship: createStewardshipService(repositories),
    idempotency: createIdempotencyService(repositories),
    keys: createKeysService({ ...repositories, forgetCredential: deps.forgetCredential }),
    oauthClients: createOAuthClientsService(repositories),
    webhooks: createWebhooksService({
      ...repositories,
      secrets: deps.secrets,
      targetPolicy: { allowPrivateTargets: config.webhooks.allowPrivateTargets },
    }),
    webhookDeliveries: createWebhookDeliveriesService({
      ...repositories,
      secrets: deps.secrets,
      settings: config.webhooks,
    }),
    storedSecrets: createStoredSecretsService(repositories),
    sso: createSsoService(repositories, deps.secrets),
    users: createUsersService({ ...repositories, publicOrigin: config.publicOrigin }),
    dashboardSessions: createDashboardSessionsService({ ...repositories, settings: config.dashboard }),
    audit: createAuditService(repositories),
    events: createEventsService({
      eventFeed: repositories.eventFeed,
      cursors,
      settings: config.events,
      listen: deps.listen,
    }),
    transferEvaluations: createTransferEvaluationsService({ ...repositories, secrets: deps.secrets }),
    cursors,
  };
}
