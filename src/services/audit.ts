// The audit log: one append-only entry per record a change made, whoever made it (an API key,
// OAuth client, external token or user token through the API or the dashboard, the operator at
// the server's command line, a user signing in), appended by the service in the change's own
// transaction (auditChange), so the change and its entry commit together or not at all. Admins of
// an organization read their own organization's entries only.
import type { AuditEntry, CredentialKind, Environment } from "../../generated/prisma/client.ts";
import type { Page, PageResult } from "./types.ts";
import type { Repositories, TransactionRepositories } from "../repositories/index.ts";
import { actingKind, type Credential } from "../auth/credential.ts";
import { newId } from "../kernel/ids.ts";
import { requireAdminUser } from "./users.ts";
import { actorKey, createActorNames } from "./actor-names.ts";
import { countAuditEntry, currentOrigin } from "./change-origin.ts";

export interface AuditEventView {
  id: string;
  actor: { kind: CredentialKind; id: string; displayName: string | null };
  operationId: string;
  target: { type: string | null; id: string | null };
  environment: Environment | null;
  requestId: string | null;
  clientRequestId: string | null;
  createdAt: string;
}

export function auditEventView(entry: AuditEntry): AuditEventView {
  return {
    id: entry.id,
    actor: { kind: entry.actorKind, id: entry.actorId, displayName: entry.actorName },
    operationId: entry.operationId,
    target: { type: entry.targetType, id: entry.targetId },
    environment: entry.environment,
    requestId: entry.requestId,
    clientRequestId: entry.clientRequestId,
    createdAt: entry.createdAt.toISOString(),
  };
}

/** How the audit log names a credential: a user by name or email, a key or client by its id. */
export function actorName(caller: Credential): string | null {
  if (caller.kind === "user") return caller.user?.name ?? caller.user?.email ?? null;
  if (caller.kind === "operator") return caller.id;
  return caller.kind === "external_token" ? caller.id.replace(/^ext:/, "") : null;
}

/** A record a change made: what the audit entry names, and the organization whose log it joins. */
export interface ChangedRecord {
  organizationId: string;
  environment: Environment | null;
  type: string;
  /** Null when the change made no single record (a batch names each of its records instead). */
  id: string | null;
}

/**
 * Appends the audit entries for the records a change made, inside that change's transaction
 * (`writes` is bound to it). The actor, operationId and request ids are those of the change's
 * origin (change-origin.ts); work run outside any origin (seed scripts, test fixtures) is no
 * actor's change and appends nothing.
 */
export async function auditChange(
  writes: Pick<TransactionRepositories, "audit">,
  records: readonly ChangedRecord[],
): Promise<void> {
  const origin = currentOrigin();
  if (!origin) return;
  // The environment is the acting credential's; the operator has none of its own, so the record's.
  const environment = origin.actor.kind === "operator" ? undefined : origin.actor.environment;
  const named = records.map((record) => ({ ...record, environment: environment ?? record.environment }));
  await appendEntries(writes, { ...origin, actorName: actorName(origin.actor) }, named);
  for (const _ of records) countAuditEntry();
}

/** Who an entry names as acting, when it is no credential of a change origin (a user signing in). */
export interface EntryOrigin {
  actor: Pick<Credential, "kind" | "id">;
  actorName: string | null;
  operationId: string;
  requestId: string | null;
  clientRequestId: string | null;
}

/** Appends one entry per record, in the transaction `writes` is bound to. */
export async function appendEntries(
  writes: Pick<TransactionRepositories, "audit">,
  origin: EntryOrigin,
  records: readonly ChangedRecord[],
): Promise<void> {
  const now = new Date();
  await writes.audit.appendMany(
    records.map((record) => ({
      id: newId("aud"),
      organizationId: record.organizationId,
      actorKind: actingKind(origin.actor.kind),
      actorId: origin.actor.id,
      actorName: origin.actorName,
      operationId: origin.operationId,
      targetType: record.type,
      targetId: record.id,
      environment: record.environment,
      requestId: origin.requestId,
      clientRequestId: origin.clientRequestId,
      createdAt: now,
    })),
  );
}

export function createAuditService(deps: Pick<Repositories, "audit" | "users" | "credentials">) {
  const { audit } = deps;
  const actorNames = createActorNames(deps);
  return {
    /** The caller's organization's entries, newest first; admins (users) only. */
    async listAuditEvents(
      caller: Credential,
      filter: { since?: string; actorId?: string; operationId?: string },
      page: Page,
    ): Promise<PageResult<AuditEventView>> {
      requireAdminUser(caller);
      const { items, total, next } = await audit.listPage(
        {
          organizationId: caller.organizationId,
          since: filter.since ? new Date(filter.since) : undefined,
          actorId: filter.actorId,
          operationId: filter.operationId,
        },
        page,
      );
      // Keys and OAuth clients are recorded by id; their names (which may change) are read now.
      const unnamed = items
        .filter((entry) => entry.actorName === null)
        .map((entry) => ({ kind: entry.actorKind, id: entry.actorId, organizationId: entry.organizationId }));
      const names = await actorNames(caller.organizationId, unnamed);
      const views = items.map((entry) =>
        auditEventView({
          ...entry,
          actorName: entry.actorName ?? names.get(actorKey({ kind: entry.actorKind, id: entry.actorId })) ?? null,
        }),
      );
      return { items: views, total, next };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
