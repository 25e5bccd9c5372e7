// The audit log: one append-only entry per successful change made through the API (by any API
// key, OAuth client, external token or user token) or the dashboard; admins of an organization
// read their own organization's entries only.
import type { AuditEntry, CredentialKind, Environment } from "../../generated/prisma/client.ts";
import type { Page, PageResult } from "./types.ts";
import type { Repositories } from "../repositories/index.ts";
import type { Credential } from "../auth/credential.ts";
import { newId } from "../kernel/ids.ts";
import { requireAdminUser } from "./users.ts";
import { actorKey, createActorNames } from "./actor-names.ts";

export interface AuditEventView {
  id: string;
  actor: { kind: CredentialKind; id: string; displayName: string | null };
  operationId: string;
  target: { type: string | null; id: string | null };
  environment: Environment | null;
  requestId: string | null;
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
    createdAt: entry.createdAt.toISOString(),
  };
}

/** How the audit log names a credential: a user by name or email, a key or client by its id. */
export function actorName(caller: Credential): string | null {
  if (caller.kind === "user") return caller.user?.name ?? caller.user?.email ?? null;
  return caller.kind === "external_token" ? caller.id.replace(/^ext:/, "") : null;
}

export interface AuditRecord {
  operationId: string;
  target: { type: string | null; id: string | null };
  requestId: string | null;
}

export function createAuditService(deps: Pick<Repositories, "audit" | "users" | "credentials"> & { now?: () => Date }) {
  const { audit, now = () => new Date() } = deps;
  const actorNames = createActorNames(deps);
  return {
    /** Appends one entry for a change `caller` made. */
    async recordChange(caller: Credential, change: AuditRecord): Promise<void> {
      await audit.append({
        id: newId("aud"),
        organizationId: caller.organizationId,
        actorKind: caller.kind,
        actorId: caller.id,
        actorName: actorName(caller),
        operationId: change.operationId,
        targetType: change.target.type,
        targetId: change.target.id,
        environment: caller.environment,
        requestId: change.requestId,
        createdAt: now(),
      });
    },

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
