// A token bucket per credential, kept in memory: each request takes a token,
// tokens refill continuously up to the bucket size.

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (only when refused). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly size: number,
    private readonly refillPerSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): RateLimitState {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.size, updatedAt: now };
    bucket.tokens = Math.min(this.size, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.refillPerSecond);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return {
      allowed,
      limit: this.size,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.size - bucket.tokens) / this.refillPerSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerSecond)),
    };
  }
}
