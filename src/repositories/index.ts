// The data-access layer: one repository per aggregate, all built over one
// database client. Only repositories (and src/db/) touch Prisma or SQL.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Database, Db } from "../db/database.ts";
import { createCoursesRepository, type CoursesRepository } from "./courses.ts";
import { createCredentialsRepository, type CredentialsRepository } from "./credentials.ts";
import { createDeliveriesRepository, type DeliveriesRepository } from "./deliveries.ts";
import { createEquivalenciesRepository, type EquivalenciesRepository } from "./equivalencies.ts";
import { createInstitutionsRepository, type InstitutionsRepository } from "./institutions.ts";
import { createOrganizationsRepository, type OrganizationsRepository } from "./organizations.ts";
import { createSecretsRepository, type SecretsRepository } from "./secrets.ts";
import { createWebhooksRepository, type WebhooksRepository } from "./webhooks.ts";

export interface Repositories {
  institutions: InstitutionsRepository;
  courses: CoursesRepository;
  equivalencies: EquivalenciesRepository;
  organizations: OrganizationsRepository;
  credentials: CredentialsRepository;
  webhooks: WebhooksRepository;
  deliveries: DeliveriesRepository;
  secrets: SecretsRepository;
  /**
   * Runs `work` in one database transaction with repositories bound to it.
   * `tx` is handed on for the modules that do not have a repository yet
   * (outbox, stewardship: part of the admin restructuring).
   */
  transaction<T>(work: (repositories: TransactionRepositories, tx: Prisma.TransactionClient) => Promise<T>): Promise<T>;
}

/** What a transaction's statements can use: the repositories, bound to the transaction. */
export type TransactionRepositories = Pick<Repositories, "courses">;

export function createRepositories(db: Db): Repositories {
  return {
    institutions: createInstitutionsRepository(db),
    courses: createCoursesRepository(db),
    equivalencies: createEquivalenciesRepository(db),
    organizations: createOrganizationsRepository(db),
    credentials: createCredentialsRepository(db),
    webhooks: createWebhooksRepository(db),
    deliveries: createDeliveriesRepository(db),
    secrets: createSecretsRepository(db),
    transaction: (work) => db.$transaction((tx) => work({ courses: createCoursesRepository(tx) }, tx)),
  };
}

/** The repositories over an open database (what the server, the worker and the CLI build on). */
export function repositoriesOf(database: Pick<Database, "prisma">): Repositories {
  return createRepositories(database.prisma);
}
