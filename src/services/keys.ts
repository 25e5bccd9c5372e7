// Keys: API key management. Creation returns the plaintext once (it is stored
// only as a hash), listing never shows secrets, and revocation is idempotent.
import type { ApiKey } from "../../generated/prisma/client.ts";
import type { Environment, Page, PageResult } from "./types.ts";
import type { Repositories } from "../repositories/index.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../auth/api-keys.ts";
import { type Credential, type Scope, SCOPES, isScope } from "../auth/credential.ts";
import { ForbiddenError, ValidationError, notFound } from "../kernel/errors.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { noteNothingChanged } from "./change-origin.ts";
import { newId } from "../kernel/ids.ts";

export interface ApiKeyView {
  id: string;
  name: string | null;
  prefix: string;
  environment: Environment;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function toApiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    environment: key.environment,
    scopes: key.scopes.filter(isScope),
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

function keyRecord(key: ApiKey): ChangedRecord {
  return { organizationId: key.organizationId, environment: key.environment, type: "key", id: key.id };
}

export interface NewKeyInput {
  organizationId: string;
  environment: Environment;
  scopes?: readonly string[];
  name?: string | null;
}

export interface KeysServiceDependencies extends Pick<Repositories, "credentials" | "transaction"> {
  /** Drops a revoked key from the authenticator's cache so it stops working in this process at once. */
  forgetCredential?: (keyId: string) => void;
  now?: () => Date;
}

export function createKeysService({
  credentials,
  transaction,
  forgetCredential = () => {},
  now = () => new Date(),
}: KeysServiceDependencies) {
  /** Creates a key for any organization (the CLI and setup); the returned `key` is the only copy of the plaintext. */
  async function issueKey(input: NewKeyInput): Promise<{ view: ApiKeyView; key: string }> {
    const scopes = [...new Set(input.scopes ?? SCOPES)];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length || scopes.length === 0) {
      throw ValidationError.single("/scopes", `scopes must be a non-empty list of ${SCOPES.join(", ")}`);
    }
    const key = generateApiKey(input.environment);
    const record = await transaction(async (writes) => {
      const created = await writes.credentials.createApiKey({
        id: newId("key"),
        organizationId: input.organizationId,
        environment: input.environment,
        name: input.name ?? null,
        prefix: keyPrefix(key),
        hash: hashApiKey(key),
        scopes,
      });
      await auditChange(writes, [keyRecord(created)]);
      return created;
    });
    return { view: toApiKeyView(record), key };
  }

  /** Revokes a key the scope can see; another organization's key is "not found", never "forbidden". */
  async function revokeVisibleKey(
    scope: { organizationId?: string; environment?: Environment },
    id: string,
  ): Promise<ApiKeyView> {
    const key = await credentials.findApiKeyById(id);
    const visible =
      key &&
      (scope.organizationId === undefined || key.organizationId === scope.organizationId) &&
      (scope.environment === undefined || key.environment === scope.environment);
    if (!visible) throw notFound.apiKey(id);
    if (key.revokedAt) noteNothingChanged();
    const revoked = key.revokedAt
      ? key
      : await transaction(async (writes) => {
          const marked = await writes.credentials.markApiKeyRevoked(id, now());
          await auditChange(writes, [keyRecord(marked)]);
          return marked;
        });
    forgetCredential(revoked.id);
    return toApiKeyView(revoked);
  }

  return {
    issueKey,

    /** A credential may only hand out what it holds itself: its environment and a subset of its scopes. */
    async createKey(caller: Credential, request: { name?: string; environment?: Environment; scopes?: Scope[] }) {
      const environment = request.environment ?? caller.environment;
      if (environment !== caller.environment) {
        throw new ForbiddenError(`A ${caller.environment} credential cannot create a ${environment} key.`);
      }
      const scopes = request.scopes ?? caller.scopes;
      const missing = scopes.filter((scope) => !caller.scopes.includes(scope));
      if (missing.length) {
        throw new ForbiddenError(`The credential does not hold the scope(s) it asked to grant: ${missing.join(", ")}.`);
      }
      return issueKey({ organizationId: caller.organizationId, environment, scopes, name: request.name });
    },

    /** The keys of the caller's organization in the caller's environment. */
    listKeys(caller: Credential, page: Page): Promise<PageResult<ApiKeyView>> {
      return listOrganizationKeys(caller.organizationId, caller.environment, page);
    },

    /** Revokes a key of the caller's organization and environment; revoking twice is fine. */
    revokeKey(caller: Credential, id: string): Promise<ApiKeyView> {
      return revokeVisibleKey({ organizationId: caller.organizationId, environment: caller.environment }, id);
    },

    /** Every key of an organization, of every environment unless one is given (the CLI). */
    listOrganizationKeys,

    /** Revokes any key by id (the CLI, run by an operator). */
    revokeAnyKey(id: string): Promise<ApiKeyView> {
      return revokeVisibleKey({}, id);
    },
  };

  async function listOrganizationKeys(organizationId: string, environment: Environment | undefined, page: Page) {
    const { items, total, next } = await credentials.listApiKeysPage(organizationId, environment, page);
    return { items: items.map(toApiKeyView), total, next };
  }
}

export type KeysService = ReturnType<typeof createKeysService>;
