// Rate limits shared through the local Redis (SVC_RATE_LIMIT_REDIS_URL): one
// script per request, the same numbers as in memory, a shared budget across
// processes, and answers from in-process limits while Redis is down or slow.
// A missing Redis fails these tests (test/helpers/redis.ts says how to start one).
import net from "node:net";
import { expect } from "chai";
import supertest from "supertest";
import type { Credential } from "../../src/auth/credential.ts";
import { MemoryRateLimitStore, type Bucket } from "../../src/auth/rate-limit-store.ts";
import { RedisRateLimitStore } from "../../src/auth/redis-rate-limit-store.ts";
import {
  RateLimiter,
  createRateLimiter,
  type RateLimitDecision,
  type RateLimitRules,
} from "../../src/auth/rate-limiter.ts";
import { createApp } from "../../src/app/app.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { logSink } from "../helpers/log-sink.ts";
import { connectTestRedis, redisUrl, type TestRedis } from "../helpers/redis.ts";

const silent = createLogger("silent");
const rule = (burst: number, refillPerSecond: number) => ({ burst, refillPerSecond });

function redisStore(keyPrefix: string, options: { url?: string; timeoutMs?: number; log?: typeof silent } = {}) {
  return RedisRateLimitStore.open({
    url: options.url ?? redisUrl,
    keyPrefix,
    timeoutMs: options.timeoutMs ?? 1_000,
    log: options.log ?? silent,
    fallback: new MemoryRateLimitStore(),
  });
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Forwards to the test Redis; can hold requests (a slow server) and refuse connections (a server that is down). */
class RedisProxy {
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private stalled = false;
  refusing = false;
  private constructor(private readonly server: net.Server) {}

  static async start(): Promise<RedisProxy> {
    const target = new URL(redisUrl);
    const server = net.createServer();
    const proxy = new RedisProxy(server);
    server.on("connection", (client) => {
      if (proxy.refusing) return client.destroy();
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      proxy.pairs.add(pair);
      client.on("data", (chunk) => {
        if (!proxy.stalled) upstream.write(chunk);
      });
      upstream.on("data", (chunk) => client.write(chunk));
      const end = () => {
        proxy.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on("close", end).on("error", end);
      upstream.on("close", end).on("error", end);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  /** Requests sent from now on are never answered. */
  stall(): void {
    this.stalled = true;
  }

  dropConnections(): void {
    for (const [client] of this.pairs) client.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function credential(id: string, organizationId: string): Credential {
  return {
    kind: "api_key",
    id,
    organizationId,
    organizationSlug: organizationId,
    channel: "direct",
    environment: "live",
    scopes: ["read:public"],
  };
}

describe("rate limits in Redis", () => {
  let redis: TestRedis;
  before(async () => {
    redis = await connectTestRedis();
  });
  after(() => redis?.close());

  it("two processes' stores draw from one budget, atomically per request", async () => {
    const prefix = redis.prefix();
    const [first, second] = await Promise.all([redisStore(prefix), redisStore(prefix)]);
    try {
      expect(await first.connected(5_000)).to.equal(true);
      expect(await second.connected(5_000)).to.equal(true);
      const buckets: Bucket[] = [
        { key: "key:k1", rule: rule(5, 0.001) },
        { key: "org:o1", rule: rule(6, 0.001) },
      ];
      const seen: Array<[boolean, number]> = [];
      for (let i = 0; i < 7; i++) {
        const result = await (i % 2 ? second : first).take(buckets, 1_000);
        seen.push([result.allowed, result.readings[0].remaining]);
      }
      expect(seen).to.deep.equal([
        [true, 4],
        [true, 3],
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      // A refused request took nothing from the organization's bucket.
      expect(await redis.client.hget(`${prefix}org:o1`, "level")).to.equal(String(1 * 1_000_000));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("answers with the same numbers, so the same headers, as the memory store for the same requests and times", async () => {
    const rules: RateLimitRules = {
      credential: rule(4, 1 / 3),
      organization: rule(7, 0.7),
      authFailures: rule(3, 0.1),
      tokenEndpoint: rule(2, 7.5),
      signIn: rule(3, 0.5),
    };
    let now = 1_780_000_000_000;
    const clock = () => now;
    const prefix = redis.prefix();
    const store = await redisStore(prefix);
    expect(await store.connected(5_000)).to.equal(true);
    const inRedis = new RateLimiter(rules, store, { publicSandboxKeyId: "key_public", clock });
    const inMemory = new RateLimiter(rules, new MemoryRateLimitStore(clock), {
      publicSandboxKeyId: "key_public",
      clock,
    });
    // A fixed pseudo-random walk: bursts, pauses and every kind of bucket.
    let seed = 42;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const calls: Array<(limiter: RateLimiter) => RateLimitDecision | Promise<RateLimitDecision>> = [
      (l) => l.forCredential(credential("key_1", "org_1"), "10.0.0.1"),
      (l) => l.forCredential(credential("key_2", "org_1"), "10.0.0.1"),
      (l) => l.forCredential(credential("key_public", "org_public"), "10.0.0.2"),
      (l) => l.tokenRequest("10.0.0.3"),
      (l) => l.authenticationFailed("10.0.0.4"),
    ];
    try {
      let refusals = 0;
      for (let step = 0; step < 300; step++) {
        now += [0, 0, 1, 37, 250, 999, 3_000, 20_000][next(8)];
        const call = calls[next(calls.length)];
        const expected = await call(inMemory);
        expect(await call(inRedis), `step ${step}`).to.deep.equal(expected);
        if (!expected.allowed) refusals++;
      }
      expect(refusals).to.be.greaterThan(20);
    } finally {
      await store.close();
    }
  });

  it("keeps time by the server's clock when none is passed, and lets a bucket expire a minute after it would be full", async () => {
    const prefix = redis.prefix();
    const store = await redisStore(prefix);
    try {
      expect(await store.connected(5_000)).to.equal(true);
      const started = Date.now();
      const result = await store.take([{ key: "k", rule: rule(10, 2) }]);
      expect(result).to.deep.equal({
        allowed: true,
        readings: [{ remaining: 9, resetSeconds: 1, retryAfterSeconds: 0 }],
      });
      const ttl = await redis.client.pttl(`${prefix}k`);
      // Full again after 500 ms (501 with the micro-tokens' rounding up), plus the 60 s margin that
      // keeps a key from expiring before its refill, less the whole milliseconds that passed since
      // it was set (at most those measured around both calls, and the millisecond Date.now rounds off).
      const elapsed = Date.now() - started;
      expect(ttl).to.be.within(60_500 - elapsed - 1, 60_501);
    } finally {
      await store.close();
    }
  });

  it("loads the script again (EVAL) when the server has forgotten it (NOSCRIPT)", async () => {
    const prefix = redis.prefix();
    const store = await redisStore(prefix);
    try {
      expect(await store.connected(5_000)).to.equal(true);
      const bucket: Bucket[] = [{ key: "k", rule: rule(5, 0.001) }];
      expect((await store.take(bucket, 0)).readings[0].remaining).to.equal(4);
      await redis.client.script("FLUSH");
      expect((await store.take(bucket, 0)).readings[0].remaining).to.equal(3);
      expect(await redis.client.hget(`${prefix}k`, "level")).to.equal(String(3 * 1_000_000));
    } finally {
      await store.close();
    }
  });

  it("counts in memory with a warning while Redis is unreachable, from the start", async () => {
    const sink = logSink("warn");
    const config = loadConfig({
      SVC_RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      SVC_RATE_LIMIT_BURST: "2",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.001",
    });
    const limiter = await createRateLimiter(config, sink.log, { publicSandboxKeyId: "key_public" });
    try {
      const warning = await sink.next("Redis unavailable");
      expect(warning).to.include({ level: 40 });
      const take = () => limiter.forCredential(credential("key_1", "org_1"), "10.0.0.1");
      const answers = [await take(), await take(), await take()].map((d) => d.allowed);
      expect(answers).to.deep.equal([true, true, false]);
      expect(sink.lines.filter((line) => String(line.msg).includes("Redis unavailable"))).to.have.length(1);
    } finally {
      await limiter.close();
    }
  });

  it("a slow Redis: the command times out, the request is counted in memory, and a warning is logged", async () => {
    const proxy = await RedisProxy.start();
    const sink = logSink("warn");
    const prefix = redis.prefix();
    const store = await redisStore(prefix, { url: proxy.url, timeoutMs: 50, log: sink.log });
    try {
      expect(await store.connected(5_000)).to.equal(true);
      proxy.stall();
      const result = await store.take([{ key: "k", rule: rule(5, 0.001) }], 0);
      expect(result).to.deep.equal({
        allowed: true,
        readings: [{ remaining: 4, resetSeconds: 1000, retryAfterSeconds: 0 }],
      });
      const warning = await sink.next("Redis unavailable");
      expect(warning.reason).to.match(/timed out/i);
      expect(await redis.client.exists(`${prefix}k`)).to.equal(0);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it("reconnects by itself after losing the connection, and shares buckets again", async () => {
    const proxy = await RedisProxy.start();
    const sink = logSink("info");
    const prefix = redis.prefix();
    const store = await redisStore(prefix, { url: proxy.url, log: sink.log });
    const bucket: Bucket[] = [{ key: "k", rule: rule(5, 0.001) }];
    const level = () => redis.client.hget(`${prefix}k`, "level");
    try {
      expect(await store.connected(5_000)).to.equal(true);
      await store.take(bucket, 0);
      expect(await level()).to.equal("4000000");

      proxy.refusing = true;
      proxy.dropConnections();
      await sink.next("Redis unavailable");
      expect((await store.take(bucket, 0)).allowed).to.equal(true);
      expect(await level(), "counted in memory meanwhile").to.equal("4000000");

      proxy.refusing = false;
      await sink.next("Redis answers again");
      await store.take(bucket, 0);
      expect(await level()).to.equal("3000000");
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});

describe("rate limits in Redis, over HTTP", () => {
  let redis: TestRedis;
  let t: TestApp;
  before(async () => {
    redis = await connectTestRedis();
  });
  after(async () => {
    await t?.close();
    await redis?.close();
  });

  it("two API processes share each organization's bucket", async () => {
    const env = {
      SVC_RATE_LIMIT_REDIS_URL: redisUrl,
      SVC_RATE_LIMIT_REDIS_PREFIX: redis.prefix(),
      SVC_RATE_LIMIT_ORG_BURST: "3",
      SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "0.001",
    };
    t = await createTestApp(env);
    const other = await createApp({
      config: loadConfig({ SVC_LOG_LEVEL: "silent", ...env }),
      database: t.database,
      log: silent,
      secrets: t.secrets,
    });
    try {
      const otherHttp = supertest(other.koa.callback());
      const first = await t.http.get("/api/v1/institutions").set(bearer(t.keys.live));
      expect(first.headers).to.include({ "x-ratelimit-limit": "3", "x-ratelimit-remaining": "2" });
      const second = await otherHttp.get("/api/v1/institutions").set(bearer(t.keys.liveReadOnly));
      expect(second.headers).to.include({ "x-ratelimit-limit": "3", "x-ratelimit-remaining": "1" });
      await t.http.get("/api/v1/institutions").set(bearer(t.keys.live));
      const refused = await otherHttp.get("/api/v1/institutions").set(bearer(t.keys.live));
      await expectContract(refused, 429);
      expectProblem(refused, "rate-limited");
      expect(refused.headers["retry-after"]).to.equal("1000");
    } finally {
      await other.close();
    }
  });

  it("keeps answering, with in-process limits and a warning, when Redis is unreachable", async () => {
    const sink = logSink("warn");
    const config = loadConfig({
      SVC_LOG_LEVEL: "warn",
      SVC_RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      SVC_RATE_LIMIT_BURST: "2",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.001",
    });
    t ??= await createTestApp();
    const app = await createApp({ config, database: t.database, log: sink.log, secrets: t.secrets });
    try {
      const http = supertest(app.koa.callback());
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await http.get("/api/v1/institutions").set(bearer(t.keys.sandbox))).status);
      expect(statuses).to.deep.equal([200, 200, 429]);
      expect(sink.lines.some((line) => String(line.msg).includes("Redis unavailable"))).to.equal(true);
    } finally {
      await app.close();
    }
  });
});
