// Who is calling, and may they call now. An address that failed authentication too often is
// refused before its credential is read; the credential is authenticated (a presented one that
// fails counts against the address); then the credential's buckets are charged. From here on
// every answer carries the X-RateLimit-* headers of the bucket the request was counted against.
import type { Context } from "koa";
import type { Authenticator } from "../auth/authenticator.ts";
import { clientAddressKey } from "../auth/client-address.ts";
import type { Credential } from "../auth/credential.ts";
import type { RateLimitDecision, RateLimiter } from "../auth/rate-limiter.ts";
import { AuthenticationError, ProblemError } from "../kernel/errors.ts";
import { countRateLimited } from "./request-metrics.ts";

export interface Admission {
  /** The caller's credential: 429 for a blocked address, 401 without a valid credential, 429 for an empty bucket. */
  admit(ctx: Context): Promise<Credential>;
  /** Counts a token request against its client address (before its body is read): 429 when the bucket is empty. */
  throttleTokenRequest(ctx: Context): Promise<void>;
}

export function createAdmission(authenticator: Authenticator, rateLimiter: RateLimiter): Admission {
  async function authenticate(ctx: Context, address: string): Promise<Credential> {
    const authorization = ctx.get("authorization") || undefined;
    try {
      return await authenticator.authenticate(authorization);
    } catch (error) {
      if (authorization && error instanceof AuthenticationError) {
        const failures = await rateLimiter.authenticationFailed(address);
        if (!failures.allowed) applyRateLimit(ctx, failures);
      }
      throw error;
    }
  }

  return {
    async admit(ctx) {
      const address = clientAddressKey(ctx.ip);
      const blocked = rateLimiter.blockedAddress(address);
      if (blocked) applyRateLimit(ctx, blocked);
      const credential = await authenticate(ctx, address);
      let decision = rateLimiter.forCredential(credential, address);
      if (decision instanceof Promise) decision = await decision;
      applyRateLimit(ctx, decision);
      return credential;
    },
    async throttleTokenRequest(ctx) {
      applyRateLimit(ctx, await rateLimiter.tokenRequest(clientAddressKey(ctx.ip)));
    },
  };
}

/** X-RateLimit-* describe the bucket the request was counted against; an empty one is a 429. */
function applyRateLimit(ctx: Context, decision: RateLimitDecision): void {
  ctx.set("X-RateLimit-Limit", String(decision.limit));
  ctx.set("X-RateLimit-Remaining", String(decision.remaining));
  ctx.set("X-RateLimit-Reset", String(decision.resetSeconds));
  if (!decision.allowed) {
    countRateLimited(decision.subject);
    throw new ProblemError(
      "rate-limited",
      `Too many requests ${decision.subject}; retry in ${decision.retryAfterSeconds} s.`,
      { headers: { "Retry-After": String(decision.retryAfterSeconds) } },
    );
  }
}
