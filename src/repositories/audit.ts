// The audit log: append-only entries (the database refuses UPDATE and DELETE), read per organization.
import type { Executor } from "./executor.ts";
import type { AuditEntry, CredentialKind, Environment } from "../../generated/prisma/client.ts";
import { pageOf, type Page } from "./paging.ts";
import { insertRecords } from "./record-columns.ts";

export interface NewAuditEntry {
  id: string;
  organizationId: string;
  actorKind: CredentialKind;
  actorId: string;
  actorName: string | null;
  operationId: string;
  targetType: string | null;
  targetId: string | null;
  environment: Environment | null;
  requestId: string | null;
  clientRequestId: string | null;
  createdAt: Date;
}

export interface AuditFilter {
  organizationId: string;
  since?: Date;
  actorId?: string;
  operationId?: string;
}

export function createAuditRepository(db: Executor) {
  return {
    /** One statement for a change's entries (a batch of 500 courses writes 500, an import one per rule). */
    appendMany(entries: NewAuditEntry[]): Promise<void> {
      return insertRecords(db, "AuditEntry", "audit_entries", entries);
    },

    /** Newest first (then by id, descending), filtered. */
    listPage(filter: AuditFilter, page: Page) {
      const where = {
        organizationId: filter.organizationId,
        ...(filter.since ? { createdAt: { gte: filter.since } } : {}),
        ...(filter.actorId ? { actorId: filter.actorId } : {}),
        ...(filter.operationId ? { operationId: filter.operationId } : {}),
      };
      return pageOf<AuditEntry>(
        page,
        [
          ["createdAt", "desc"],
          ["id", "desc"],
        ],
        ({ take, skip, orderBy, after }) =>
          db.auditEntry.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.auditEntry.count({ where }),
      );
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
