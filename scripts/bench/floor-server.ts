// The floor of scripts/bench/reads.ts: the least a server can do to answer
// GET /api/v1/equivalencies/{id} from the same database: node:http, no framework,
// the same SQL as the service (the "equivalency_expanded_json" function), and
// the same credential cost as the service's hot path (the key's SHA-256 looked up
// in a cache, the database asked at most every 2 s per key). On the embedded
// database PGlite runs on this process's main thread: the naive design that the
// service's worker thread has to beat; with BENCH_FLOOR_ONE_CALL=1 it sends each
// statement in one call into PostgreSQL as the service's engine thread does
// (src/db/one-call-queries.ts), which tells the two gains apart. Run in its own process, like server.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import { lockDirectory } from "../../src/db/directory-lock.ts";
import { embeddedDataPath } from "../../src/db/database.ts";
import { OneCallQueries } from "../../src/db/one-call-queries.ts";
import { answerProfileRequests } from "./profiling.ts";

/** The service's own cache lifetime (src/auth/authenticator.ts). */
const KEY_CACHE_MS = 2_000;
const EXPANDED_BY_ID = `SELECT "equivalency_expanded_json"($1, $2::"Environment") AS record`;
const KEY_BY_HASH = `SELECT environment FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`;
const ROUTE = /^\/api\/v1\/equivalencies\/([^/?]+)$/;

type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

async function connect(): Promise<{ query: Query; close(): Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    return { query: async (sql, params) => (await pool.query(sql, params)).rows, close: () => pool.end() };
  }
  const dataDir = process.env.BENCH_DATA_DIR!;
  const unlock = lockDirectory(dataDir);
  // The service's shared_buffers (SVC_EMBEDDED_SHARED_BUFFERS_MB), so both read through the same buffer cache.
  const pglite = await PGlite.create(embeddedDataPath(dataDir), {
    startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${process.env.BENCH_SHARED_BUFFERS_MB}MB`],
  });
  const client = process.env.BENCH_FLOOR_ONE_CALL === "1" ? new OneCallQueries(pglite).client() : pglite;
  return {
    query: async (sql, params) => (await client.query<Record<string, unknown>>(sql, params)).rows,
    async close() {
      await pglite.close();
      unlock();
    },
  };
}

async function main() {
  const database = await connect();
  const keys = new Map<string, { environment: string; expiresAt: number }>();

  async function environmentOf(authorization: string | undefined): Promise<string | null> {
    const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    if (!token) return null;
    const hash = hashApiKey(token);
    const cached = keys.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.environment;
    const [row] = await database.query(KEY_BY_HASH, [hash]);
    if (!row) return null;
    keys.set(hash, { environment: String(row.environment), expiresAt: Date.now() + KEY_CACHE_MS });
    return String(row.environment);
  }

  const server = http.createServer((request, response) => {
    const id = ROUTE.exec(request.url ?? "")?.[1];
    const answer = (status: number, body: string) => {
      response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
    };
    if (!id) return answer(404, '{"status":404}');
    environmentOf(request.headers.authorization)
      .then(async (environment) => {
        if (!environment) return answer(401, '{"status":401}');
        const [row] = await database.query(EXPANDED_BY_ID, [decodeURIComponent(id), environment]);
        return row?.record ? answer(200, String(row.record)) : answer(404, '{"status":404}');
      })
      .catch((error: Error) => answer(500, JSON.stringify({ status: 500, detail: error.message })));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  answerProfileRequests();
  process.send!({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  process.once("disconnect", () => {
    server.closeAllConnections();
    server.close();
    database.close().finally(() => process.exit(0));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
