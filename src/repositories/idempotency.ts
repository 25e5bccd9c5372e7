// Idempotency records: one per (organization, environment, credential, key), holding the stored
// response (or IN_PROGRESS while the first request runs). See services/idempotency.ts.
import type { IdempotencyRecord, Prisma } from "../../generated/prisma/client.ts";

/** The response status of a record whose first request has not finished. */
export const IN_PROGRESS = 0;

/** Whose key it is: a key is remembered per organization, environment and credential. */
export interface IdempotencyScope {
  organizationId: string;
  environment: string;
  credentialId: string;
  key: string;
}

export interface IdempotencyClaim extends IdempotencyScope {
  operationId: string;
  fingerprint: string;
}

export function createIdempotencyRepository(db: Prisma.TransactionClient) {
  return {
    /**
     * Inserts the in-progress record, or takes over one whose first request has
     * been in progress longer than inProgressTimeoutMs (it crashed); false when
     * the key is held by a finished or still-running request.
     */
    async claim(claim: IdempotencyClaim, inProgressTimeoutMs: number): Promise<boolean> {
      const rows = await db.$queryRaw<{ claimed: boolean }[]>`
        INSERT INTO idempotency_records (organization_id, environment, credential_id, key, operation_id, request_hash, response_status, response_body, created_at)
        VALUES (${claim.organizationId}, ${claim.environment}, ${claim.credentialId}, ${claim.key}, ${claim.operationId}, ${claim.fingerprint}, ${IN_PROGRESS}, 'null'::jsonb, now())
        ON CONFLICT (organization_id, environment, credential_id, key) DO UPDATE SET created_at = now(), request_hash = EXCLUDED.request_hash, operation_id = EXCLUDED.operation_id
          WHERE idempotency_records.response_status = ${IN_PROGRESS}
            AND idempotency_records.created_at < now() - make_interval(secs => ${inProgressTimeoutMs / 1000}::double precision)
        RETURNING true AS claimed`;
      return rows.length > 0;
    },

    find(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
      return db.idempotencyRecord.findUnique({ where: { organizationId_environment_credentialId_key: scope } });
    },

    async storeResponse(scope: IdempotencyScope, status: number, response: unknown): Promise<void> {
      await db.idempotencyRecord.update({
        where: { organizationId_environment_credentialId_key: scope },
        data: { responseStatus: status, responseBody: response as Prisma.InputJsonValue },
      });
    },

    /** Forgets a key (its request failed); a key already gone is no error. */
    async release(scope: IdempotencyScope): Promise<void> {
      await db.idempotencyRecord.deleteMany({ where: scope });
    },

    async deleteCreatedBefore(cutoff: Date): Promise<void> {
      await db.idempotencyRecord.deleteMany({ where: { createdAt: { lt: cutoff } } });
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
