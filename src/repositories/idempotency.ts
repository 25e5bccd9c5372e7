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
  /** This run's own token: the answer is stored only while the key is still this run's. */
  token: string;
}

/** The key is no longer this run's: a retry of the same request took it over. */
export class ClaimLostError extends Error {}

export function createIdempotencyRepository(db: Prisma.TransactionClient) {
  return {
    /**
     * Inserts the in-progress record, or takes over an in-progress one: at once for the same
     * request (its first run may have died with a server; if it is alive, only one of the two can
     * store an answer), after inProgressTimeoutMs for another request. False when the key has an
     * answer or is held by another request.
     */
    async claim(claim: IdempotencyClaim, inProgressTimeoutMs: number): Promise<boolean> {
      const rows = await db.$queryRaw<{ claimed: boolean }[]>`
        INSERT INTO idempotency_records (organization_id, environment, credential_id, key, operation_id, request_hash, response_status, response_body, claim_token, created_at)
        VALUES (${claim.organizationId}, ${claim.environment}, ${claim.credentialId}, ${claim.key}, ${claim.operationId}, ${claim.fingerprint}, ${IN_PROGRESS}, 'null'::jsonb, ${claim.token}, now())
        ON CONFLICT (organization_id, environment, credential_id, key) DO UPDATE SET created_at = now(), request_hash = EXCLUDED.request_hash, operation_id = EXCLUDED.operation_id, claim_token = EXCLUDED.claim_token
          WHERE idempotency_records.response_status = ${IN_PROGRESS}
            AND ((idempotency_records.request_hash = EXCLUDED.request_hash AND idempotency_records.operation_id = EXCLUDED.operation_id)
              OR idempotency_records.created_at < now() - make_interval(secs => ${inProgressTimeoutMs / 1000}::double precision))
        RETURNING true AS claimed`;
      return rows.length > 0;
    },

    find(scope: IdempotencyScope): Promise<IdempotencyRecord | null> {
      return db.idempotencyRecord.findUnique({ where: { organizationId_environment_credentialId_key: scope } });
    },

    /** Stores the answer of the run holding `token`; throws ClaimLostError when the key is no longer its. */
    async storeResponse(scope: IdempotencyScope, token: string, status: number, response: unknown): Promise<void> {
      const { count } = await db.idempotencyRecord.updateMany({
        where: { ...scope, claimToken: token, responseStatus: IN_PROGRESS },
        data: { responseStatus: status, responseBody: response as Prisma.InputJsonValue },
      });
      if (count === 0) throw new ClaimLostError(`the Idempotency-Key "${scope.key}" was taken over by a retry`);
    },

    /** Forgets a key its run still holds (the request failed); a key gone or taken over is no error. */
    async release(scope: IdempotencyScope, token: string): Promise<void> {
      await db.idempotencyRecord.deleteMany({ where: { ...scope, claimToken: token, responseStatus: IN_PROGRESS } });
    },

    async deleteCreatedBefore(cutoff: Date): Promise<void> {
      await db.idempotencyRecord.deleteMany({ where: { createdAt: { lt: cutoff } } });
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
