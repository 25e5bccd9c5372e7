// The local Redis for the shared rate-limit tests: a missing server fails the
// test with the command that starts one, and each test's keys live under a
// prefix of their own that is deleted afterwards.
import crypto from "node:crypto";
import { Redis } from "ioredis";
import { testEnv } from "./env.ts";

export const redisUrl = testEnv.SVC_TEST_REDIS_URL;

export interface TestRedis {
  client: Redis;
  /** A key prefix no other test uses. */
  prefix(): string;
  /** Deletes every key under the prefixes handed out, then disconnects. */
  close(): Promise<void>;
}

export async function connectTestRedis(): Promise<TestRedis> {
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `Redis is not answering at ${redisUrl} (${(error as Error).message}). The shared rate-limit tests need it: start one with ` +
        `redis-server --daemonize yes --bind "127.0.0.1 -::1" --port 6379 --save "" --appendonly no (.ci/run does), ` +
        `or point SVC_TEST_REDIS_URL at one.`,
    );
  }
  const prefixes: string[] = [];
  return {
    client,
    prefix() {
      const prefix = `svc-test:${crypto.randomUUID()}:`;
      prefixes.push(prefix);
      return prefix;
    },
    async close() {
      for (const prefix of prefixes) {
        const keys = await client.keys(`${prefix}*`);
        if (keys.length) await client.del(...keys);
      }
      client.disconnect();
    },
  };
}
