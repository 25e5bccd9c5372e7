// API key management: creation (the plaintext leaves only in the return value),
// listing without secrets, and revocation.
import type { ApiKey } from "../../generated/prisma/client.ts";
import type { Db, Environment, Page, PageResult } from "./types.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../auth/api-keys.ts";
import { type Credential, type Scope, SCOPES, isScope } from "../auth/credential.ts";
import { ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { newId } from "../ids.ts";

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

export interface NewKeyInput {
  organizationId: string;
  environment: Environment;
  scopes?: readonly string[];
  name?: string | null;
}

/** Creates a key; the returned `key` is the only copy of the plaintext. */
export async function createApiKey(db: Db, input: NewKeyInput): Promise<{ view: ApiKeyView; key: string }> {
  const scopes = [...new Set(input.scopes ?? SCOPES)];
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length || scopes.length === 0) {
    throw ValidationError.single("/scopes", `scopes must be a non-empty list of ${SCOPES.join(", ")}`);
  }
  const key = generateApiKey(input.environment);
  const record = await db.apiKey.create({
    data: {
      id: newId("key"),
      organizationId: input.organizationId,
      environment: input.environment,
      name: input.name ?? null,
      prefix: keyPrefix(key),
      hash: hashApiKey(key),
      scopes,
    },
  });
  return { view: toApiKeyView(record), key };
}

/** A credential may only hand out what it holds itself. */
export async function createApiKeyFor(
  db: Db,
  caller: Credential,
  request: { name?: string; environment?: Environment; scopes?: Scope[] },
) {
  const environment = request.environment ?? caller.environment;
  if (environment !== caller.environment) {
    throw new ForbiddenError(`A ${caller.environment} credential cannot create a ${environment} key.`);
  }
  const scopes = request.scopes ?? caller.scopes;
  const missing = scopes.filter((scope) => !caller.scopes.includes(scope));
  if (missing.length) {
    throw new ForbiddenError(`The credential does not hold the scope(s) it asked to grant: ${missing.join(", ")}.`);
  }
  return createApiKey(db, { organizationId: caller.organizationId, environment, scopes, name: request.name });
}

export async function listApiKeys(
  db: Db,
  organizationId: string,
  environment: Environment | undefined,
  page: Page,
): Promise<PageResult<ApiKeyView>> {
  const where = { organizationId, ...(environment ? { environment } : {}) };
  const [items, total] = await Promise.all([
    db.apiKey.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: page.limit, skip: page.offset }),
    db.apiKey.count({ where }),
  ]);
  return { items: items.map(toApiKeyView), total };
}

/**
 * Revokes a key of the organization (and environment, when given). Another
 * organization's key is "not found", never "forbidden". Revoking twice is fine.
 */
export async function revokeApiKey(
  db: Db,
  scope: { organizationId?: string; environment?: Environment },
  id: string,
): Promise<ApiKeyView> {
  const key = await db.apiKey.findUnique({ where: { id } });
  const visible =
    key &&
    (scope.organizationId === undefined || key.organizationId === scope.organizationId) &&
    (scope.environment === undefined || key.environment === scope.environment);
  if (!visible) throw new NotFoundError(`No API key with id "${id}".`);
  if (key.revokedAt) return toApiKeyView(key);
  return toApiKeyView(await db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } }));
}
