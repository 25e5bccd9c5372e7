// The fetch that openapi-fetch calls: it adds the credential, renews an OAuth
// token once on a 401, and retries 429 and 503 with backoff, honouring
// Retry-After. A POST, PATCH or DELETE is retried only with an Idempotency-Key,
// because the first attempt may have been applied.
import type { Authenticator } from "./auth.js";
import { retryAfterMs } from "./errors.js";

export type FetchFunction = (request: Request) => Promise<Response>;

/** Time as the SDK sees it; tests inject a fake one. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface RetryOptions {
  /** Retries after the first attempt; 2 by default, 0 disables retrying. */
  maxRetries: number;
  /** First backoff when the server sends no Retry-After; doubled on each retry. */
  initialDelayMs: number;
  /** Longest wait the SDK accepts; a longer Retry-After ends the retries. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 60_000 };

const RETRIED_STATUSES = new Set([429, 503]);
const UNSAFE_METHODS = new Set(["POST", "PATCH", "DELETE"]);

export function mayRetry(request: Request): boolean {
  return !UNSAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has("idempotency-key");
}

export function createTransport(deps: {
  fetch: FetchFunction;
  authenticator: Authenticator;
  clock: Clock;
  retry: RetryOptions;
}): FetchFunction {
  const { fetch, authenticator, clock, retry } = deps;

  async function send(request: Request): Promise<Response> {
    const attempt = request.clone();
    attempt.headers.set("Authorization", await authenticator.authorization());
    return fetch(attempt);
  }

  return async function transport(request: Request): Promise<Response> {
    let response = await send(request);
    // A 401 was refused before anything ran, so even a POST is safe to send again.
    if (response.status === 401 && authenticator.renew()) {
      await response.body?.cancel();
      response = await send(request);
    }
    for (
      let retries = 0;
      retries < retry.maxRetries && RETRIED_STATUSES.has(response.status) && mayRetry(request);
      retries++
    ) {
      const delay =
        retryAfterMs(response.headers.get("retry-after"), clock.now()) ?? retry.initialDelayMs * 2 ** retries;
      if (delay > retry.maxDelayMs) break;
      await response.body?.cancel();
      await clock.sleep(delay);
      response = await send(request);
    }
    return response;
  };
}
