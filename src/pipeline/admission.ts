// Who is calling, and may they call now. The credential is authenticated; a valid one is charged
// to its own buckets, whatever its address did before (a NAT or a proxy without SVC_TRUST_PROXY
// puts many clients behind one address: one client's bad keys must not lock out the others). A
// request without a valid credential from an address that failed authentication too often is
// refused (429); otherwise a presented credential that fails counts against the address. From
// here on every answer carries the X-RateLimit-* headers of the bucket the request was counted
// against.
import type { Context } from "koa";
import type { Authenticator } from "../auth/authenticator.ts";
import { clientAddressKey } from "../auth/client-address.ts";
import { type ApiCredential, publicCaller } from "../auth/credential.ts";
import type { RateLimitDecision, RateLimiter } from "../auth/rate-limiter.ts";
import { AuthenticationError, ProblemError } from "../kernel/errors.ts";
import { countRateLimited } from "./request-metrics.ts";

export interface Admission {
  /** The caller's credential: 401 without a valid one (429 from a blocked address), 429 for an empty bucket. */
  admit(ctx: Context): Promise<ApiCredential>;
  /**
   * The caller of an operation that needs no credential (the public explorer's): anonymous, counted
   * against its client address (429 when that bucket is empty). An Authorization header is ignored.
   */
  admitPublic(ctx: Context): Promise<ApiCredential>;
  /** Counts a token request against its client address (before its body is read): 429 when the bucket is empty. */
  throttleTokenRequest(ctx: Context): Promise<void>;
  /** Counts a request to a dashboard sign-in route against its client address: 429 when the bucket is empty. */
  throttleSignIn(ctx: Context): Promise<void>;
}

export function createAdmission(authenticator: Authenticator, rateLimiter: RateLimiter): Admission {
  async function authenticate(
    ctx: Context,
    authorization: string | undefined,
    address: string,
  ): Promise<ApiCredential> {
    try {
      return await authenticator.authenticate(authorization);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      const blocked = rateLimiter.blockedAddress(address);
      if (blocked) applyRateLimit(ctx, blocked);
      if (authorization) {
        const failures = await rateLimiter.authenticationFailed(address);
        if (!failures.allowed) applyRateLimit(ctx, failures);
      }
      throw error;
    }
  }

  return {
    async admit(ctx) {
      const address = clientAddressKey(ctx.ip);
      const authorization = ctx.get("authorization") || undefined;
      // A key verified moments ago is known at once; anything else waits for authenticate().
      const credential = authenticator.cached(authorization) ?? (await authenticate(ctx, authorization, address));
      let decision = rateLimiter.forCredential(credential, address);
      if (decision instanceof Promise) decision = await decision;
      applyRateLimit(ctx, decision);
      return credential;
    },
    async admitPublic(ctx) {
      applyRateLimit(ctx, await rateLimiter.publicRequest(clientAddressKey(ctx.ip)));
      return publicCaller();
    },
    async throttleTokenRequest(ctx) {
      applyRateLimit(ctx, await rateLimiter.tokenRequest(clientAddressKey(ctx.ip)));
    },
    async throttleSignIn(ctx) {
      applyRateLimit(ctx, await rateLimiter.signInRequest(clientAddressKey(ctx.ip)));
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
