// The data-access layer: one repository per aggregate, all built over one
// database client. Only repositories (and src/db/) touch Prisma or SQL.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../db/database.ts";
import { createCoursesRepository, type CoursesRepository } from "./courses.ts";
import { createCredentialsRepository, type CredentialsRepository } from "./credentials.ts";
import { createEquivalenciesRepository, type EquivalenciesRepository } from "./equivalencies.ts";
import { createInstitutionsRepository, type InstitutionsRepository } from "./institutions.ts";
import { createOrganizationsRepository, type OrganizationsRepository } from "./organizations.ts";
import { createWebhooksRepository, type WebhooksRepository } from "./webhooks.ts";

export interface Repositories {
  institutions: InstitutionsRepository;
  courses: CoursesRepository;
  equivalencies: EquivalenciesRepository;
  organizations: OrganizationsRepository;
  credentials: CredentialsRepository;
  webhooks: WebhooksRepository;
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
    transaction: (work) => db.$transaction((tx) => work({ courses: createCoursesRepository(tx) }, tx)),
  };
}
