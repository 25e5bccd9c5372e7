// Stripe-style idempotency keys: the first successful response to a key is
// stored and replayed for a retry with the same request; the same key with a
// different request is a 409. Keys are per organization, environment and credential (a user's
// token and an external issuer's subject keep their id in both environments), kept at least 24 h.
import crypto from "node:crypto";
import type { Credential } from "../auth/credential.ts";
import type { Repositories, TransactionRepositories } from "../repositories/index.ts";
import {
  ClaimLostError,
  IN_PROGRESS,
  type IdempotencyClaim,
  type IdempotencyScope,
} from "../repositories/idempotency.ts";
import { ProblemError } from "../kernel/errors.ts";

export const RETENTION_MS = 25 * 3_600_000;
/** A key whose first request never finished (a crash) may be reused for another request after this. */
const IN_PROGRESS_TIMEOUT_MS = 60_000;
const SWEEP_INTERVAL_MS = 3_600_000;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Stores the answer of an idempotent request inside the transaction of its change. */
export type RememberAnswer = (
  transaction: Pick<TransactionRepositories, "idempotency">,
  response: StoredResponse,
) => Promise<void>;

/** What identifies a request: its operation, query and body (key order in objects does not matter). */
export interface IdempotentRequest {
  /** The Idempotency-Key header; without one the request simply runs. */
  key: string | undefined;
  operationId: string;
  query: unknown;
  body: unknown;
}

function requestFingerprint(operationId: string, query: unknown, body: unknown): string {
  return crypto
    .createHash("sha256")
    .update(JSON.stringify([operationId, canonical(query), canonical(body)]))
    .digest("hex");
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * How a response is stored: the body as the JSON text the client received. A
 * JSON column of PostgreSQL (jsonb) does not keep the order of an object's keys,
 * so a stored object would come back with its keys in another order; the text
 * parsed again gives the same object, keys in the same order, hence the same bytes.
 * (Records stored before kept the object itself, `body`.)
 */
interface StoredRecord {
  status: number;
  headers?: Record<string, string>;
  bodyText?: string;
  body?: unknown;
}

function recorded(response: StoredResponse): StoredRecord {
  const bodyText = response.body === undefined ? undefined : JSON.stringify(response.body);
  return { status: response.status, headers: response.headers, bodyText };
}

function replayed(stored: StoredRecord): StoredResponse {
  const body = typeof stored.bodyText === "string" ? JSON.parse(stored.bodyText) : stored.body;
  return { status: stored.status, headers: stored.headers, body };
}

export function createIdempotencyService({
  idempotency,
  now = Date.now,
}: Pick<Repositories, "idempotency"> & { now?: () => number }) {
  let lastSweep = 0;

  /** Expired records are deleted at most once an interval, by the request that finds the interval over. */
  async function sweep() {
    const current = now();
    if (current - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = current;
    await idempotency.deleteCreatedBefore(new Date(current - RETENTION_MS));
  }

  /**
   * Runs `run` once per key. `run` is given `remember`, to call inside the transaction of its
   * change with the answer it will give: the answer then commits with the change, or neither
   * does, so a retry after a crash either replays the answer or runs a change that never
   * happened. A retry of the same request takes over a key still in progress (its run may have
   * died with a server): only the run holding the key can store its answer, so if both are alive
   * the first to commit answers both and the other's change rolls back. An answer not remembered
   * so (a dry run writes nothing) is stored after `run`.
   */
  async function withIdempotency<R extends StoredResponse>(
    caller: Credential,
    request: IdempotentRequest,
    run: (remember: RememberAnswer) => Promise<R>,
  ): Promise<R> {
    if (!request.key) return run(async () => undefined);
    const scope: IdempotencyScope = {
      organizationId: caller.organizationId,
      environment: caller.environment,
      credentialId: caller.id,
      key: request.key,
    };
    const claim: IdempotencyClaim = {
      ...scope,
      operationId: request.operationId,
      fingerprint: requestFingerprint(request.operationId, request.query, request.body),
      token: crypto.randomUUID(),
    };
    await sweep();
    if (!(await idempotency.claim(claim, IN_PROGRESS_TIMEOUT_MS))) return answered<R>(scope, claim);
    let remembered = false;
    const remember: RememberAnswer = async (transaction, response) => {
      await transaction.idempotency.storeResponse(scope, claim.token, response.status, recorded(response));
      remembered = true;
    };
    try {
      const response = await run(remember);
      if (!remembered) await idempotency.storeResponse(scope, claim.token, response.status, recorded(response));
      return response;
    } catch (error) {
      // A retry took the key over and its change committed first: this run's rolled back, and the
      // retry's answer is this request's too.
      if (error instanceof ClaimLostError) return answered<R>(scope, claim);
      // A failed request is not remembered: the client may fix it and retry.
      await idempotency.release(scope, claim.token).catch(() => undefined);
      throw error;
    }
  }

  /** The answer to a key held by another run: its stored answer replayed, or why there is none yet. */
  async function answered<R>(scope: IdempotencyScope, claim: IdempotencyClaim): Promise<R> {
    const existing = await idempotency.find(scope);
    if (!existing) throw inProgress(claim.key);
    if (existing.operationId !== claim.operationId || existing.requestHash !== claim.fingerprint) {
      throw new ProblemError(
        "idempotency-key-reused",
        `The Idempotency-Key "${claim.key}" was already used with a different request.`,
      );
    }
    if (existing.responseStatus === IN_PROGRESS) throw inProgress(claim.key);
    const stored = replayed(existing.responseBody as unknown as StoredRecord);
    return { ...stored, headers: { ...stored.headers, "Idempotent-Replayed": "true" } } as unknown as R;
  }

  function inProgress(key: string): ProblemError {
    return new ProblemError(
      "conflict",
      `A request with the Idempotency-Key "${key}" is still in progress; retry shortly.`,
    );
  }

  return { withIdempotency };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
