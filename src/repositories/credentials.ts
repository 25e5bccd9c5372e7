// Credentials: API keys and OAuth clients (their hashed secrets, scopes and revocation).
import type { Executor } from "./executor.ts";
import type { ApiKey, OAuthClient, Organization } from "../../generated/prisma/client.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { pageOf, type Page } from "./paging.ts";

export interface NewApiKeyRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  name: string | null;
  prefix: string;
  hash: string;
  scopes: string[];
}

export function createCredentialsRepository(db: Executor) {
  return {
    createApiKey(record: NewApiKeyRecord): Promise<ApiKey> {
      return db.apiKey.create({ data: record });
    },

    findApiKeyById(id: string): Promise<ApiKey | null> {
      return db.apiKey.findUnique({ where: { id } });
    },

    /** The key with this hash, with its organization (what authentication needs). */
    findApiKeyByHash(hash: string): Promise<(ApiKey & { organization: Organization }) | null> {
      return db.apiKey.findUnique({ where: { hash }, include: { organization: true } });
    },

    async markApiKeyUsed(id: string, lastUsedAt: Date): Promise<void> {
      await db.apiKey.update({ where: { id }, data: { lastUsedAt } });
    },

    /** Keys of an organization (of one environment, when given), oldest first. */
    listApiKeysPage(organizationId: string, environment: Environment | undefined, page: Page) {
      const where = { organizationId, ...(environment ? { environment } : {}) };
      return pageOf(
        page,
        [
          ["createdAt", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) => db.apiKey.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.apiKey.count({ where }),
      );
    },

    markApiKeyRevoked(id: string, revokedAt: Date): Promise<ApiKey> {
      return db.apiKey.update({ where: { id }, data: { revokedAt } });
    },

    createOAuthClient(
      record: Omit<NewApiKeyRecord, "prefix" | "hash"> & { clientId: string; secretHash: string },
    ): Promise<OAuthClient> {
      return db.oAuthClient.create({ data: record });
    },

    /** A client named by its record id or its client id (the same value, either accepted). */
    findOAuthClientByEitherId(id: string): Promise<OAuthClient | null> {
      return db.oAuthClient.findFirst({ where: { OR: [{ id }, { clientId: id }] } });
    },

    findOAuthClientByClientId(clientId: string): Promise<OAuthClient | null> {
      return db.oAuthClient.findUnique({ where: { clientId } });
    },

    /** The client with this record id, with its organization (what a token's verification needs). */
    findOAuthClientById(id: string): Promise<(OAuthClient & { organization: Organization }) | null> {
      return db.oAuthClient.findUnique({ where: { id }, include: { organization: true } });
    },

    async markOAuthClientUsed(id: string, lastUsedAt: Date): Promise<void> {
      await db.oAuthClient.update({ where: { id }, data: { lastUsedAt } });
    },

    /** An organization's clients, revoked ones included, oldest first. */
    listOAuthClients(organizationId: string): Promise<OAuthClient[]> {
      return db.oAuthClient.findMany({ where: { organizationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    },

    /** Clients of an organization in one environment, oldest first. */
    listOAuthClientsPage(organizationId: string, environment: Environment, page: Page) {
      const where = { organizationId, environment };
      return pageOf(
        page,
        [
          ["createdAt", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) =>
          db.oAuthClient.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.oAuthClient.count({ where }),
      );
    },

    markOAuthClientRevoked(id: string, revokedAt: Date): Promise<OAuthClient> {
      return db.oAuthClient.update({ where: { id }, data: { revokedAt } });
    },
  };
}

export type CredentialsRepository = ReturnType<typeof createCredentialsRepository>;
