// The data-access layer: one repository per aggregate, all built over one
// database client. Only repositories (and src/db/) touch Prisma or SQL.
import type { Database, Db } from "../db/database.ts";
import { type Executor, markTransaction } from "./executor.ts";
import { createCatalogImportsRepository, type CatalogImportsRepository } from "./catalog-imports.ts";
import { createCoursesRepository, type CoursesRepository } from "./courses.ts";
import { createDatasetsRepository, type DatasetsRepository } from "./datasets.ts";
import { createExportsRepository, type ExportsRepository } from "./exports.ts";
import { createCredentialsRepository, type CredentialsRepository } from "./credentials.ts";
import { createDeliveriesRepository, type DeliveriesRepository } from "./deliveries.ts";
import { createEquivalenciesRepository, type EquivalenciesRepository } from "./equivalencies.ts";
import { createEquivalencyImportsRepository, type EquivalencyImportsRepository } from "./equivalency-imports.ts";
import { createEquivalencyRequestsRepository, type EquivalencyRequestsRepository } from "./equivalency-requests.ts";
import { createIdempotencyRepository, type IdempotencyRepository } from "./idempotency.ts";
import { createInstitutionsRepository, type InstitutionsRepository } from "./institutions.ts";
import { createOrganizationsRepository, type OrganizationsRepository } from "./organizations.ts";
import { createOutboxRepository, type OutboxRepository } from "./outbox.ts";
import { createEventFeedRepository, type EventFeedRepository } from "./event-feed.ts";
import { createSandboxRepository, type SandboxRepository } from "./sandbox.ts";
import { createSecretsRepository, type SecretsRepository } from "./secrets.ts";
import { createSsoRepository, type SsoRepository } from "./sso.ts";
import { createTransferEvaluationsRepository, type TransferEvaluationsRepository } from "./transfer-evaluations.ts";
import { createStewardshipRepository, type StewardshipRepository } from "./stewardship.ts";
import { createWebhooksRepository, type WebhooksRepository } from "./webhooks.ts";
import { createUsersRepository, type UsersRepository } from "./users.ts";
import { createSessionsRepository, type SessionsRepository } from "./sessions.ts";
import { createAuditRepository, type AuditRepository } from "./audit.ts";

export interface Repositories {
  institutions: InstitutionsRepository;
  courses: CoursesRepository;
  equivalencies: EquivalenciesRepository;
  equivalencyRequests: EquivalencyRequestsRepository;
  transferEvaluations: TransferEvaluationsRepository;
  datasets: DatasetsRepository;
  exports: ExportsRepository;
  catalogImports: CatalogImportsRepository;
  sandbox: SandboxRepository;
  organizations: OrganizationsRepository;
  credentials: CredentialsRepository;
  webhooks: WebhooksRepository;
  equivalencyImports: EquivalencyImportsRepository;
  outbox: OutboxRepository;
  eventFeed: EventFeedRepository;
  stewardship: StewardshipRepository;
  idempotency: IdempotencyRepository;
  deliveries: DeliveriesRepository;
  secrets: SecretsRepository;
  sso: SsoRepository;
  users: UsersRepository;
  sessions: SessionsRepository;
  audit: AuditRepository;
  /** Runs `work` in one database transaction with repositories bound to it. */
  transaction<T>(
    work: (repositories: TransactionRepositories) => Promise<T>,
    options?: { timeout?: number },
  ): Promise<T>;
}

/** What a transaction's statements can use: every repository, bound to the transaction. */
export type TransactionRepositories = Omit<Repositories, "transaction">;

/** What the repositories use of the driver itself, outside transactions (each optional: tests pass a bare client). */
export type DriverAccess = Partial<Pick<Database, "statement" | "copyValues" | "readBytes">>;

/**
 * `statement` (Database.statement), when given, serves the hot reads, the start-up work and the
 * dispatcher's idle poll outside transactions; `copyValues`
 * (Database.copyValues, PostgreSQL) streams the largest exports, and `readBytes`
 * (Database.readBytes, the embedded database) reads their batches as bytes.
 */
export function createRepositories(db: Db, driver: DriverAccess = {}): Repositories {
  return {
    ...boundRepositories(db, driver),
    transaction: (work, options) => db.$transaction((tx) => work(boundRepositories(markTransaction(tx))), options),
  };
}

function boundRepositories(
  db: Executor,
  { statement, copyValues, readBytes }: DriverAccess = {},
): TransactionRepositories {
  return {
    institutions: createInstitutionsRepository(db),
    courses: createCoursesRepository(db),
    equivalencies: createEquivalenciesRepository(db, statement),
    equivalencyRequests: createEquivalencyRequestsRepository(db),
    equivalencyImports: createEquivalencyImportsRepository(db),
    transferEvaluations: createTransferEvaluationsRepository(db, statement),
    datasets: createDatasetsRepository(db),
    exports: createExportsRepository(db, copyValues, readBytes),
    catalogImports: createCatalogImportsRepository(db),
    sandbox: createSandboxRepository(db, statement),
    organizations: createOrganizationsRepository(db),
    credentials: createCredentialsRepository(db),
    webhooks: createWebhooksRepository(db),
    outbox: createOutboxRepository(db, statement),
    eventFeed: createEventFeedRepository(db),
    stewardship: createStewardshipRepository(db),
    idempotency: createIdempotencyRepository(db),
    deliveries: createDeliveriesRepository(db, statement),
    secrets: createSecretsRepository(db, statement),
    sso: createSsoRepository(db),
    users: createUsersRepository(db),
    sessions: createSessionsRepository(db),
    audit: createAuditRepository(db),
  };
}

/** The repositories over an open database (what the server, the dispatcher and the CLI build on). */
export function repositoriesOf(database: Pick<Database, "prisma"> & DriverAccess): Repositories {
  return createRepositories(database.prisma, {
    statement: database.statement,
    copyValues: database.copyValues?.bind(database),
    readBytes: database.readBytes?.bind(database),
  });
}
