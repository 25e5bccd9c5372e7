// Where token buckets live: in this process's memory, or in Redis
// (redis-rate-limit-store.ts) so that several processes share one budget.
// Both stores run the same arithmetic, in whole micro-tokens, so that the
// numbers, and so the response headers, are identical for the same sequence
// of requests and times; the Lua script in the Redis store is this file's
// `take` line by line.

import type { BucketRule } from "../kernel/config.ts";

/** Tokens are counted in millionths: integer arithmetic, identical in JavaScript and in Redis' Lua. */
export const MICRO = 1_000_000;

export type { BucketRule };

export interface Bucket {
  key: string;
  rule: BucketRule;
}

export interface BucketReading {
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the bucket holds a whole token again (0 when it holds one now). */
  retryAfterSeconds: number;
}

export interface TakeResult {
  /** Every bucket held a token, and one was taken from each; otherwise none was taken. */
  allowed: boolean;
  /** One reading per bucket, in the order asked. */
  readings: BucketReading[];
}

export interface RateLimitStore {
  /**
   * Refills the buckets up to `now` (milliseconds; the store's own clock when
   * undefined), then takes one token from each if each holds one, else none.
   */
  take(buckets: readonly Bucket[], now?: number): TakeResult | Promise<TakeResult>;
  close(): Promise<void>;
}

/** Micro-tokens per millisecond of a rule; the Redis store sends the same number to its script. */
export function microPerMs(rule: BucketRule): number {
  return rule.refillPerSecond * 1000;
}

export function capacityOf(rule: BucketRule): number {
  return rule.burst * MICRO;
}

/** What a bucket at `level` micro-tokens reports; the Lua script computes the same. */
export function reading(level: number, capacity: number, perMs: number): BucketReading {
  return readInto(blankReading(), level, capacity, perMs);
}

function blankReading(): BucketReading {
  return { remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };
}

/** reading(), written into an existing object. */
function readInto(target: BucketReading, level: number, capacity: number, perMs: number): BucketReading {
  target.remaining = Math.floor(level / MICRO);
  target.resetSeconds = Math.ceil((capacity - level) / (perMs * 1000));
  target.retryAfterSeconds = level < MICRO ? Math.ceil((MICRO - level) / (perMs * 1000)) : 0;
  return target;
}

interface Level {
  micro: number;
  stamp: number;
  rule: BucketRule;
}

/** How often buckets that have refilled completely are dropped (they read the same as absent ones). */
const SWEEP_EVERY_MS = 60_000;

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly levels = new Map<string, Level>();
  private nextSweep = 0;
  /**
   * Scratch space of take(), which never yields: no arrays or readings allocated per request. The
   * result it answers is reused by the next call, so its caller reads it at once (RateLimiter does).
   */
  private found: Array<Level | undefined> = [undefined, undefined];
  private micros = new Float64Array(2);
  private readonly result: { allowed: boolean; readings: BucketReading[] } = {
    allowed: true,
    readings: [blankReading(), blankReading()],
  };

  constructor(private readonly clock: () => number = Date.now) {}

  take(buckets: readonly Bucket[], now: number = this.clock()): TakeResult {
    if (now >= this.nextSweep) this.sweep(now);
    const count = buckets.length;
    if (count > this.found.length) this.grow(count);
    const { found, micros } = this;
    // Refill every bucket first: a request is refused by any empty one, and then takes from none.
    let allowed = true;
    for (let i = 0; i < count; i++) {
      const rule = buckets[i].rule;
      const level = this.levels.get(buckets[i].key);
      found[i] = level;
      micros[i] = level ? refilled(level, now, capacityOf(rule), microPerMs(rule)) : capacityOf(rule);
      if (micros[i] < MICRO) allowed = false;
    }
    const { result } = this;
    result.readings.length = count;
    for (let i = 0; i < count; i++) {
      const rule = buckets[i].rule;
      if (allowed) {
        micros[i] -= MICRO;
        const level = found[i];
        if (level) {
          level.micro = micros[i];
          // The stamp never moves back: a clock stepping backwards refills nothing.
          if (now > level.stamp) level.stamp = now;
          level.rule = rule;
        } else {
          this.levels.set(buckets[i].key, { micro: micros[i], stamp: now, rule });
        }
      }
      found[i] = undefined;
      if (!result.readings[i]) result.readings[i] = blankReading();
      readInto(result.readings[i], micros[i], capacityOf(rule), microPerMs(rule));
    }
    result.allowed = allowed;
    return result;
  }

  async close(): Promise<void> {
    this.levels.clear();
  }

  private grow(count: number): void {
    this.found = new Array<Level | undefined>(count).fill(undefined);
    this.micros = new Float64Array(count);
  }

  /** Drops buckets that have refilled completely, as Redis expires them (PEXPIRE). */
  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, level] of this.levels) {
      if (refilled(level, now, capacityOf(level.rule), microPerMs(level.rule)) >= capacityOf(level.rule))
        this.levels.delete(key);
    }
  }
}

function refilled(level: Level, now: number, capacity: number, perMs: number): number {
  const added = now > level.stamp ? Math.floor((now - level.stamp) * perMs) : 0;
  return Math.min(capacity, level.micro + added);
}
