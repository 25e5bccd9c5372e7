// Stripe-style idempotency keys: the first successful response to a key is
// stored and replayed for a retry with the same request; the same key with a
// different request is a 409. Keys are per credential and kept at least 24 h.
import crypto from "node:crypto";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "./types.ts";
import { ProblemError } from "../errors.ts";

export const RETENTION_MS = 25 * 3_600_000;
/** A key whose first request never finished (a crash) may be reused after this. */
const IN_PROGRESS_TIMEOUT_MS = 60_000;
const SWEEP_INTERVAL_MS = 3_600_000;
const IN_PROGRESS = 0;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function requestFingerprint(operationId: string, query: unknown, body: unknown): string {
  return crypto.createHash("sha256").update(JSON.stringify([operationId, canonical(query), canonical(body)])).digest("hex");
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  }
  return value;
}

let lastSweep = 0;

export async function withIdempotency<R extends StoredResponse>(
  db: Db,
  scope: { credentialId: string; key: string | undefined; operationId: string; fingerprint: string },
  run: () => Promise<R>,
): Promise<R> {
  if (!scope.key) return run();
  const id = { credentialId: scope.credentialId, key: scope.key };
  await sweep(db);
  const claimed = await claim(db, scope);
  if (!claimed) {
    const existing = await db.idempotencyRecord.findUnique({ where: { credentialId_key: id } });
    if (!existing) return withIdempotency(db, scope, run);
    if (existing.operationId !== scope.operationId || existing.requestHash !== scope.fingerprint) {
      throw new ProblemError("idempotency-key-reused", `The Idempotency-Key "${scope.key}" was already used with a different request.`);
    }
    if (existing.responseStatus === IN_PROGRESS) {
      throw new ProblemError("conflict", `A request with the Idempotency-Key "${scope.key}" is still in progress; retry shortly.`);
    }
    const stored = existing.responseBody as unknown as StoredResponse;
    return { ...stored, headers: { ...stored.headers, "Idempotent-Replayed": "true" } } as unknown as R;
  }
  try {
    const response = await run();
    await db.idempotencyRecord.update({
      where: { credentialId_key: id },
      data: { responseStatus: response.status, responseBody: response as unknown as Prisma.InputJsonValue },
    });
    return response;
  } catch (error) {
    // A failed request is not remembered: the client may fix it and retry.
    await db.idempotencyRecord.delete({ where: { credentialId_key: id } }).catch(() => undefined);
    throw error;
  }
}

async function claim(db: Db, scope: { credentialId: string; key: string | undefined; operationId: string; fingerprint: string }) {
  const rows = await db.$queryRaw<{ claimed: boolean }[]>`
    INSERT INTO idempotency_records (credential_id, key, operation_id, request_hash, response_status, response_body, created_at)
    VALUES (${scope.credentialId}, ${scope.key}, ${scope.operationId}, ${scope.fingerprint}, ${IN_PROGRESS}, 'null'::jsonb, now())
    ON CONFLICT (credential_id, key) DO UPDATE SET created_at = now(), request_hash = EXCLUDED.request_hash, operation_id = EXCLUDED.operation_id
      WHERE idempotency_records.response_status = ${IN_PROGRESS}
        AND idempotency_records.created_at < now() - make_interval(secs => ${IN_PROGRESS_TIMEOUT_MS / 1000}::double precision)
    RETURNING true AS claimed`;
  return rows.length > 0;
}

async function sweep(db: Db) {
  const now = Date.now();
  if (now - lastSweep < SWEEP_INTERVAL_MS) return;
  lastSweep = now;
  await db.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now - RETENTION_MS) } } });
}
