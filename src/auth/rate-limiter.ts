// Which token buckets a request draws from (docs/api-guide.md, rate limits):
//   - a request with a valid credential: its credential's bucket AND its
//     organization's bucket in that environment, so more keys do not mean a
//     larger budget; the public sandbox key instead has a bucket per client
//     address, so one heavy user cannot empty the shared demo key for everyone;
//   - the public explorer's operations, which need no credential: a bucket per
//     client address, of a credential's size;
//   - POST /oauth/token: a bucket per client address;
//   - the dashboard's sign-in routes (start, the OIDC callback, the SAML ACS,
//     one-time links), which need no credential: a bucket per client address;
//   - a presented credential that fails authentication: a bucket per client
//     address. Once it is empty, requests from the address without a valid
//     credential are refused (429) until a token has refilled; a valid
//     credential is still served, from its own buckets.
// The buckets live in a RateLimitStore (memory, or Redis for several processes).
import type { Config } from "../kernel/config.ts";
import type { Logger } from "../kernel/logger.ts";
import type { Credential } from "./credential.ts";
import {
  MemoryRateLimitStore,
  type Bucket,
  type BucketRule,
  type RateLimitStore,
  type TakeResult,
} from "./rate-limit-store.ts";
import { RedisRateLimitStore } from "./redis-rate-limit-store.ts";

export interface RateLimitRules {
  credential: BucketRule;
  organization: BucketRule;
  authFailures: BucketRule;
  tokenEndpoint: BucketRule;
  signIn: BucketRule;
}

/** A bucket and what it limits, for the refusal's message ("this credential"). */
interface NamedBucket extends Bucket {
  subject: string;
}

/** What the X-RateLimit-* and Retry-After headers report. */
export interface RateLimitDecision {
  allowed: boolean;
  /** What the reported bucket limits, for the refusal's message. */
  subject: string;
  limit: number;
  remaining: number;
  /** Seconds until the reported bucket is full again. */
  resetSeconds: number;
  /** Seconds until the reported bucket holds a whole token again (0 when it holds one); Retry-After when refused. */
  retryAfterSeconds: number;
}

/** What readiness asks of a shared store. */
export interface SharedStore {
  /** Where it is (host:port), for the readiness report. */
  readonly where: string;
  /** Resolves true when it answered a PING in time. */
  ping(): Promise<boolean>;
}

/** The memory store answers at once; only a shared store makes the caller wait. */
export type PendingDecision = RateLimitDecision | Promise<RateLimitDecision>;

const FAILURES = "with failed authentication from this address";

/** How often expired entries of the blocked-address list are dropped. */
const BLOCK_SWEEP_EVERY_MS = 60_000;

interface Block {
  until: number;
  fullAt: number;
}

export interface RateLimiterOptions {
  /** The key whose bucket is kept per client address rather than per credential and organization. */
  publicSandboxKeyId: string;
  /** Milliseconds; tests inject one. When unset, the store keeps time (Redis uses its server's clock). */
  clock?: () => number;
}

export class RateLimiter {
  /** Addresses whose failure bucket is empty, by the time it holds a token again (this process's clock). */
  private readonly blocked = new Map<string, Block>();
  private readonly now: () => number;
  private nextBlockSweep = 0;
  /** The authenticator hands out the same Credential object while it caches a key: build its bucket list once. */
  private readonly credentialBuckets = new WeakMap<Credential, NamedBucket[]>();

  constructor(
    private readonly rules: RateLimitRules,
    private readonly store: RateLimitStore,
    private readonly options: RateLimiterOptions,
  ) {
    this.now = options.clock ?? Date.now;
  }

  /** An authenticated request. */
  forCredential(credential: Credential, address: string): PendingDecision {
    if (credential.id === this.options.publicSandboxKeyId) {
      return this.take([
        {
          key: `key:${credential.id}:${address}`,
          rule: this.rules.credential,
          subject: "for this key from this address",
        },
      ]);
    }
    let buckets = this.credentialBuckets.get(credential);
    if (!buckets) {
      buckets = [
        { key: `key:${credential.id}`, rule: this.rules.credential, subject: "for this credential" },
        {
          key: `org:${credential.organizationId}:${credential.environment}`,
          rule: this.rules.organization,
          subject: `for this organization in ${credential.environment}`,
        },
      ];
      this.credentialBuckets.set(credential, buckets);
    }
    return this.take(buckets);
  }

  /** A request to an operation that needs no credential (the public explorer's). */
  publicRequest(address: string): PendingDecision {
    return this.take([{ key: `public:${address}`, rule: this.rules.credential, subject: "from this address" }]);
  }

  tokenRequest(address: string): PendingDecision {
    return this.take([
      { key: `token:${address}`, rule: this.rules.tokenEndpoint, subject: "for tokens from this address" },
    ]);
  }

  signInRequest(address: string): PendingDecision {
    return this.take([{ key: `signin:${address}`, rule: this.rules.signIn, subject: "to sign in from this address" }]);
  }

  /** Counts a failed authentication; refused once the address has failed too often. */
  authenticationFailed(address: string): PendingDecision {
    const decision = this.take([{ key: `authfail:${address}`, rule: this.rules.authFailures, subject: FAILURES }]);
    if (decision instanceof Promise) return decision.then((settled) => this.noteFailures(address, settled));
    return this.noteFailures(address, decision);
  }

  /** A refusal for a request without a valid credential from an address whose failure bucket is empty; null otherwise. */
  blockedAddress(address: string): RateLimitDecision | null {
    if (this.blocked.size === 0) return null;
    const block = this.blocked.get(address);
    if (!block) return null;
    const now = this.now();
    if (now >= block.until) {
      this.blocked.delete(address);
      return null;
    }
    return {
      allowed: false,
      subject: FAILURES,
      limit: this.rules.authFailures.burst,
      remaining: 0,
      resetSeconds: Math.ceil((block.fullAt - now) / 1000),
      retryAfterSeconds: Math.ceil((block.until - now) / 1000),
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The shared store (Redis) when one is configured, for readiness; null when buckets live in memory. */
  get sharedStore(): SharedStore | null {
    return this.store instanceof RedisRateLimitStore ? this.store : null;
  }

  /** An address left without a whole token is refused (unless it presents a valid credential) until one has refilled. */
  private noteFailures(address: string, decision: RateLimitDecision): RateLimitDecision {
    if (decision.remaining > 0) return decision;
    const now = this.now();
    if (now >= this.nextBlockSweep) {
      this.nextBlockSweep = now + BLOCK_SWEEP_EVERY_MS;
      for (const [blocked, block] of this.blocked) if (now >= block.until) this.blocked.delete(blocked);
    }
    this.blocked.set(address, {
      until: now + decision.retryAfterSeconds * 1000,
      fullAt: now + decision.resetSeconds * 1000,
    });
    return decision;
  }

  private take(buckets: NamedBucket[]): PendingDecision {
    const result = this.store.take(buckets, this.options.clock?.());
    if (result instanceof Promise) return result.then((settled) => decide(buckets, settled));
    return decide(buckets, result);
  }
}

/**
 * The headers describe the tightest bucket: the one with the fewest whole
 * tokens left; on a tie the one that takes longest to hold a token again, then
 * the one that takes longest to fill. When refused, that is an empty bucket,
 * and Retry-After is the longest wait among the empty ones.
 */
function decide(buckets: readonly NamedBucket[], result: TakeResult): RateLimitDecision {
  let tightest = 0;
  for (let i = 1; i < result.readings.length; i++) {
    const a = result.readings[i];
    const b = result.readings[tightest];
    if (
      a.remaining < b.remaining ||
      (a.remaining === b.remaining &&
        (a.retryAfterSeconds > b.retryAfterSeconds ||
          (a.retryAfterSeconds === b.retryAfterSeconds && a.resetSeconds > b.resetSeconds)))
    ) {
      tightest = i;
    }
  }
  const reading = result.readings[tightest];
  return {
    allowed: result.allowed,
    subject: buckets[tightest].subject,
    limit: buckets[tightest].rule.burst,
    remaining: reading.remaining,
    resetSeconds: reading.resetSeconds,
    retryAfterSeconds: reading.retryAfterSeconds,
  };
}

/** How long start-up waits for a configured Redis before counting in memory (it keeps reconnecting). */
const REDIS_START_WAIT_MS = 2_000;

/** The limiter the configuration asks for: buckets in Redis when SVC_RATE_LIMIT_REDIS_URL is set, else in memory. */
export async function createRateLimiter(
  config: Pick<Config, "rateLimit">,
  log: Logger,
  options: RateLimiterOptions,
): Promise<RateLimiter> {
  const { redis, ...rules } = config.rateLimit;
  const memory = new MemoryRateLimitStore(options.clock);
  if (!redis) return new RateLimiter(rules, memory, options);
  const store = await RedisRateLimitStore.open({ ...redis, log, fallback: memory });
  await store.connected(REDIS_START_WAIT_MS);
  return new RateLimiter(rules, store, options);
}
