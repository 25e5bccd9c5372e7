// Token buckets in Redis, so that every API process draws from one budget.
// One Lua script per request refills and takes from every bucket the request
// needs, atomically, in one round trip (EVALSHA, and EVAL when the server
// answers NOSCRIPT, e.g. after a restart). Its arithmetic is
// MemoryRateLimitStore.take's, in whole micro-tokens, so both stores give the
// same numbers. When Redis is down, slow or not yet connected, requests are
// counted in this process's memory instead (the fallback store), a warning is
// logged at most every WARN_EVERY_MS, and the client reconnects by itself.
import crypto from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "../kernel/logger.ts";
import {
  MICRO,
  capacityOf,
  microPerMs,
  type Bucket,
  type BucketReading,
  type RateLimitStore,
  type TakeResult,
} from "./rate-limit-store.ts";

// KEYS: the buckets. ARGV[1]: the time in milliseconds, or "" for the server's
// clock (TIME); then, per bucket, its capacity in micro-tokens and its refill
// in micro-tokens per millisecond. Replies {allowed, then per bucket:
// remaining, resetSeconds, retryAfterSeconds}. A bucket is a hash {level,
// stamp} that expires a margin after it would be full anyway: the expiry runs on
// Redis's clock while the stamps may come from the caller's, and a key that
// outlives its refill reads as full, exactly like a missing one, whereas one
// that expired early would hand out tokens the bucket has not earned yet.
/** How long a full bucket's key outlives the moment it became full (see the script's header). */
const EXPIRY_MARGIN_MS = 60_000;

const SCRIPT = `
local MICRO = ${MICRO}
local EXPIRY_MARGIN_MS = ${EXPIRY_MARGIN_MS}
local now = tonumber(ARGV[1])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local levels, stamps, allowed = {}, {}, 1
for i = 1, #KEYS do
  local capacity, perMs = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local state = redis.call('HMGET', KEYS[i], 'level', 'stamp')
  local level, stamp = tonumber(state[1]), tonumber(state[2])
  if level == nil or stamp == nil then
    level, stamp = capacity, now
  elseif now > stamp then
    level, stamp = level + math.floor((now - stamp) * perMs), now
  end
  levels[i], stamps[i] = math.min(capacity, level), stamp
  if levels[i] < MICRO then allowed = 0 end
end
local reply = { allowed }
for i = 1, #KEYS do
  local capacity, perMs = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local level = levels[i]
  if allowed == 1 then
    level = level - MICRO
    redis.call('HSET', KEYS[i], 'level', level, 'stamp', stamps[i])
    redis.call('PEXPIRE', KEYS[i], math.ceil((capacity - level) / perMs) + EXPIRY_MARGIN_MS)
  end
  local retry = 0
  if level < MICRO then retry = math.ceil((MICRO - level) / (perMs * 1000)) end
  reply[#reply + 1] = math.floor(level / MICRO)
  reply[#reply + 1] = math.ceil((capacity - level) / (perMs * 1000))
  reply[#reply + 1] = retry
end
return reply
`;
const SCRIPT_SHA = crypto.createHash("sha1").update(SCRIPT).digest("hex");

/** At most one warning about Redis in this interval; the next one counts the requests in between. */
const WARN_EVERY_MS = 30_000;
/** After a failed or slow command, skip Redis this long, so a slow server does not slow every request. */
const COOL_DOWN_MS = 1_000;

export interface RedisStoreOptions {
  url: string;
  /** Prefixed to every bucket key, so deployments (or tests) can share one server. */
  keyPrefix: string;
  /** A command not answered within this is abandoned and the request counted in memory. */
  timeoutMs: number;
  log: Logger;
  /** Counts requests while Redis cannot. */
  fallback: RateLimitStore;
}

export class RedisRateLimitStore implements RateLimitStore {
  private readonly client: Redis;
  readonly where: string;
  private coolDownUntil = 0;
  private lastWarning = -Infinity;
  private countedInMemory = 0;
  private degraded = false;

  /**
   * A store connecting to `options.url`. ioredis is loaded here, not with the server: without
   * SVC_RATE_LIMIT_REDIS_URL it is never needed (docs/benchmarks.md, memory).
   */
  static async open(options: RedisStoreOptions): Promise<RedisRateLimitStore> {
    const { Redis } = await import("ioredis");
    return new RedisRateLimitStore(options, Redis);
  }

  private constructor(
    private readonly options: RedisStoreOptions,
    RedisClient: typeof Redis,
  ) {
    const url = new URL(options.url);
    this.where = `${url.hostname}:${url.port || 6379}`;
    this.client = new RedisClient(options.url, {
      commandTimeout: options.timeoutMs,
      connectTimeout: Math.max(1_000, options.timeoutMs * 10),
      // Fail at once while disconnected instead of queueing: the request is counted in memory.
      enableOfflineQueue: false,
      // A take whose reply was lost is not sent again: it may have counted already.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
    });
    this.client.on("error", (error: Error) => this.degrade(error.message));
    this.client.on("reconnecting", () => this.degrade("connection lost; reconnecting"));
    this.client.on("ready", () => {
      if (!this.degraded) return;
      this.degraded = false;
      this.options.log.info({ redis: this.where }, "rate limits: Redis answers again; buckets are shared again");
    });
  }

  /** Waits until the first connection is ready or has failed, at most `waitMs`, so start-up does not count early requests in memory. */
  async connected(waitMs: number): Promise<boolean> {
    if (this.client.status === "ready") return true;
    return new Promise((resolve) => {
      const settle = (ready: boolean) => {
        clearTimeout(timer);
        this.client.off("ready", onReady).off("error", onError);
        if (!ready) this.degrade(`not connected within ${waitMs} ms`);
        resolve(ready);
      };
      const onReady = () => settle(true);
      const onError = () => settle(false);
      const timer = setTimeout(() => settle(false), waitMs);
      this.client.once("ready", onReady).once("error", onError);
    });
  }

  async take(buckets: readonly Bucket[], now?: number): Promise<TakeResult> {
    if (this.client.status !== "ready" || Date.now() < this.coolDownUntil) return this.inMemory(buckets, now);
    const args: (string | number)[] = [];
    for (const bucket of buckets) args.push(this.options.keyPrefix + bucket.key);
    args.push(now === undefined ? "" : now);
    for (const { rule } of buckets) args.push(capacityOf(rule), String(microPerMs(rule)));
    try {
      return parseReply(await this.evaluate(buckets.length, args));
    } catch (error) {
      this.coolDownUntil = Date.now() + COOL_DOWN_MS;
      this.degrade((error as Error).message);
      return this.inMemory(buckets, now);
    }
  }

  /** Readiness: true when Redis answers a PING within the command timeout. */
  async ping(): Promise<boolean> {
    if (this.client.status !== "ready") return false;
    try {
      return (await this.client.ping()) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.client.disconnect();
    await this.options.fallback.close();
  }

  private async evaluate(keys: number, args: (string | number)[]): Promise<unknown> {
    try {
      return await this.client.evalsha(SCRIPT_SHA, keys, ...args);
    } catch (error) {
      if (!(error as Error).message.startsWith("NOSCRIPT")) throw error;
      return this.client.eval(SCRIPT, keys, ...args);
    }
  }

  private inMemory(buckets: readonly Bucket[], now: number | undefined): TakeResult | Promise<TakeResult> {
    this.countedInMemory++;
    if (this.degraded) this.warn("Redis is not answering");
    return this.options.fallback.take(buckets, now);
  }

  private degrade(reason: string): void {
    this.degraded = true;
    this.warn(reason);
  }

  private warn(reason: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.options.log.warn(
      { redis: this.where, reason, requestsCountedInMemory: this.countedInMemory },
      "rate limits: Redis unavailable; counting requests in this process's memory until it answers",
    );
    this.countedInMemory = 0;
  }
}

function parseReply(reply: unknown): TakeResult {
  const numbers = (reply as unknown[]).map(Number);
  const readings: BucketReading[] = [];
  for (let i = 1; i + 2 < numbers.length; i += 3) {
    readings.push({ remaining: numbers[i], resetSeconds: numbers[i + 1], retryAfterSeconds: numbers[i + 2] });
  }
  return { allowed: numbers[0] === 1, readings };
}
