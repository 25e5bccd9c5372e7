// The services: one object per resource, each built over the repositories it
// needs. Their function names are the operationIds they serve.
import type { Logger } from "../kernel/logger.ts";
import type { Config } from "../kernel/config.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import type { Repositories } from "../repositories/index.ts";
import { createInstitutionsService } from "./institutions.ts";
import { createCoursesService } from "./courses.ts";
import { createEquivalenciesService } from "./equivalencies.ts";
import { createExplorerService } from "./explorer.ts";
import { createEquivalencyImportService, importChunkRowsFor } from "./rules/import.ts";
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
import { createFeedCursors } from "../kernel/feed-cursors.ts";
import { createEventsService } from "./events.ts";
import { credentialRefusal } from "./credential-standing.ts";
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
  explorer: ReturnType<typeof createExplorerService>;
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
  /** Where a failed background write (the demand batch's) is reported. */
  log?: Pick<Logger, "error">;
  /** Which database: the embedded one writes a CSV import in chunks (importChunkRowsFor). */
  databaseKind?: "embedded" | "postgresql";
}

export function createServices(deps: ServicesDependencies): Services {
  const { repositories, config } = deps;
  const cursors = createCursors(deps.secrets);
  const equivalencies = createEquivalenciesService(repositories);
  const dashboardSessions = createDashboardSessionsService({ ...repositories, settings: config.dashboard });
  const events = createEventsService({
    eventFeed: repositories.eventFeed,
    cursors,
    feedCursors: createFeedCursors(deps.secrets),
    settings: config.events,
    listen: deps.listen,
    refusal: credentialRefusal(repositories.credentials, dashboardSessions),
  });
  // A revocation in this process: the authenticator forgets the credential, its streams end.
  const forgetCredential = (id: string) => {
    deps.forgetCredential?.(id);
    events.credentialRevoked(id);
  };
  const institutions = createInstitutionsService(repositories);
  const courses = createCoursesService(repositories);
  const transferEvaluations = createTransferEvaluationsService({
    ...repositories,
    secrets: deps.secrets,
    demand: { onError: (error) => deps.log?.error({ err: error }, "writing the demand of evaluations failed") },
  });
  return {
    institutions,
    courses,
    equivalencies,
    equivalencyImport: createEquivalencyImportService({
      ...repositories,
      chunkRows: importChunkRowsFor(deps.databaseKind ?? "postgresql"),
    }),
    datasets: createDatasetsService({ ...repositories, stalePendingDays: config.datasets.stalePendingDays }),
    exports: createExportsService({ ...repositories, limits: config.exports }),
    catalogImports: createCatalogImportsService(repositories),
    sandbox: createSandboxService(repositories),
    organizations: createOrganizationsService(repositories),
    stewardship: createStewardshipService(repositories),
    idempotency: createIdempotencyService(repositories),
    keys: createKeysService({ ...repositories, forgetCredential }),
    oauthClients: createOAuthClientsService({ ...repositories, forgetCredential }),
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
    users: createUsersService({ ...repositories, publicOrigin: config.publicOrigin, forgetCredential }),
    dashboardSessions,
    audit: createAuditService(repositories),
    events,
    transferEvaluations,
    explorer: createExplorerService({ repositories, institutions, courses, equivalencies, transferEvaluations }),
    cursors,
  };
}
