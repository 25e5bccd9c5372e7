// OAuth client management (administrators, through the CLI): creation (the
// secret leaves only in the return value; a hash is stored), listing without
// secrets, and revocation, after which the client gets no new token and its
// tokens already issued are refused (the verifier checks it on every request).
import crypto from "node:crypto";
import type { OAuthClient } from "../../generated/prisma/client.ts";
import type { Environment, Page, PageResult } from "./types.ts";
import type { Repositories } from "../repositories/index.ts";
import { hashApiKey } from "../auth/api-keys.ts";
import { type Credential, type Scope, SCOPES, isScope } from "../auth/credential.ts";
import { ForbiddenError, ValidationError, notFound } from "../kernel/errors.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { noteNothingChanged } from "./change-origin.ts";
import { newId } from "../kernel/ids.ts";

export interface OAuthClientView {
  id: string;
  clientId: string;
  name: string | null;
  environment: Environment;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function oauthClientView(client: OAuthClient): OAuthClientView {
  return {
    id: client.id,
    clientId: client.clientId,
    name: client.name,
    environment: client.environment,
    scopes: client.scopes.filter(isScope),
    createdAt: client.createdAt.toISOString(),
    lastUsedAt: client.lastUsedAt?.toISOString() ?? null,
    revokedAt: client.revokedAt?.toISOString() ?? null,
  };
}

function clientRecord(client: OAuthClient): ChangedRecord {
  return {
    organizationId: client.organizationId,
    environment: client.environment,
    type: "oauth_client",
    id: client.id,
  };
}

export function createOAuthClientsService({
  credentials,
  transaction,
  now = () => new Date(),
  forgetCredential = () => {},
}: Pick<Repositories, "credentials" | "transaction"> & {
  now?: () => Date;
  /** Ends what this process holds of a revoked client at once (its event streams). */
  forgetCredential?: (clientId: string) => void;
}) {
  /** Revokes a client, with its audit entry; revoking a revoked client changes nothing. */
  async function revoke(client: OAuthClient): Promise<OAuthClientView> {
    if (client.revokedAt) {
      noteNothingChanged();
      return oauthClientView(client);
    }
    const revoked = await transaction(async (writes) => {
      const marked = await writes.credentials.markOAuthClientRevoked(client.id, now());
      await auditChange(writes, [clientRecord(marked)]);
      return marked;
    });
    forgetCredential(revoked.id);
    return oauthClientView(revoked);
  }

  /** The caller's organization's client of the caller's environment, or 404 (never 403). */
  async function visibleClient(caller: Credential, id: string): Promise<OAuthClient> {
    const client = await credentials.findOAuthClientByEitherId(id);
    if (!client || client.organizationId !== caller.organizationId || client.environment !== caller.environment) {
      throw notFound.oauthClient(id);
    }
    return client;
  }

  const service = {
    /** createOAuthClient: a client of the caller's organization and environment, with at most the caller's scopes. */
    async createCallerOAuthClient(caller: Credential, request: { name?: string; scopes?: Scope[] }) {
      const scopes = request.scopes ?? caller.scopes;
      const missing = scopes.filter((scope) => !caller.scopes.includes(scope));
      if (missing.length) {
        throw new ForbiddenError(`The credential does not hold the scope(s) it asked to grant: ${missing.join(", ")}.`);
      }
      const { client, clientSecret } = await service.createOAuthClient({
        organizationId: caller.organizationId,
        environment: caller.environment,
        scopes,
        name: request.name,
      });
      return { view: oauthClientView(client), clientSecret };
    },

    /** listOAuthClients: the caller's organization's clients in the caller's environment, oldest first. */
    async listCallerOAuthClients(caller: Credential, page: Page): Promise<PageResult<OAuthClientView>> {
      const { items, total, next } = await credentials.listOAuthClientsPage(
        caller.organizationId,
        caller.environment,
        page,
      );
      return { items: items.map(oauthClientView), total, next };
    },

    /** revokeOAuthClient: revokes a client the caller can see; twice is fine. */
    async revokeCallerOAuthClient(caller: Credential, id: string): Promise<OAuthClientView> {
      return revoke(await visibleClient(caller, id));
    },

    async createOAuthClient(input: {
      organizationId: string;
      environment: Environment;
      scopes?: readonly string[];
      name?: string | null;
    }) {
      const scopes = [...new Set(input.scopes ?? SCOPES)];
      if (!scopes.length || scopes.some((s) => !isScope(s))) {
        throw ValidationError.single("/scopes", `scopes must be a non-empty list of ${SCOPES.join(", ")}`);
      }
      const clientSecret = `svcsec_${crypto.randomBytes(30).toString("base64url")}`;
      const id = newId("oac");
      const client = await transaction(async (writes) => {
        const created = await writes.credentials.createOAuthClient({
          id,
          clientId: id,
          organizationId: input.organizationId,
          environment: input.environment,
          name: input.name ?? null,
          secretHash: hashApiKey(clientSecret),
          scopes,
        });
        await auditChange(writes, [clientRecord(created)]);
        return created;
      });
      return { client, clientSecret };
    },

    /** An organization's clients, revoked ones included, oldest first. */
    async listOAuthClients(organizationId: string): Promise<OAuthClientView[]> {
      return (await credentials.listOAuthClients(organizationId)).map(oauthClientView);
    },

    /** Revokes a client by its id (or client id, the same value). Revoking twice is fine and keeps the first time. */
    async revokeOAuthClient(id: string): Promise<OAuthClientView> {
      const client = await credentials.findOAuthClientByEitherId(id);
      if (!client) throw notFound.oauthClient(id);
      return revoke(client);
    },
  };
  return service;
}

export type OAuthClientsService = ReturnType<typeof createOAuthClientsService>;
