// The floors of scripts/bench/reads.ts: the least a server can do to answer
// GET /api/v1/equivalencies/{id} and GET /api/v1/equivalencies?status=…&limit=…&offset=…
// from the same database: node:http, no framework, the same SQL as the service (the
// "equivalency_expanded_json" function; the list's page of ids joined back to its
// rows, and its count, remembered 10 s above 10,000 rows as the service does), the
// same answer (the list's rows under the API's field names), and
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
const LIST_ROUTE = "/api/v1/equivalencies";
const LIST_PAGE = `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS page
  FROM (SELECT id FROM equivalencies WHERE environment = $1::"Environment" AND status = $4::"EquivalencyStatus"
        ORDER BY created_at, id LIMIT $2 OFFSET $3) AS ids
  JOIN equivalencies AS e USING (id)`;
const LIST_COUNT = `SELECT count(*)::int AS total FROM equivalencies WHERE environment = $1::"Environment" AND status = $2::"EquivalencyStatus"`;
/** src/repositories/totals.ts: totals above this are remembered for TOTAL_TTL_MS. */
const EXACT_TOTAL_LIMIT = 10_000;
const TOTAL_TTL_MS = 10_000;
/** Columns the API does not show. */
const INTERNAL_COLUMNS = new Set(["environment", "organization_id", "target_key"]);

/** A row of row_to_json under the API's field names: camelCase, timestamps (UTC, written without a zone) as ISO 8601. */
function apiFields(row: Record<string, unknown>): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (INTERNAL_COLUMNS.has(column)) continue;
    const field = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    view[field] = column.endsWith("_at") && typeof value === "string" ? new Date(`${value}Z`).toISOString() : value;
  }
  return view;
}

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

  const totals = new Map<string, { total: number; expiresAt: number }>();
  async function totalOf(environment: string, status: string): Promise<number> {
    const key = `${environment} ${status}`;
    const remembered = totals.get(key);
    if (remembered && remembered.expiresAt > Date.now()) return remembered.total;
    const [row] = await database.query(LIST_COUNT, [environment, status]);
    const total = Number(row.total);
    if (total > EXACT_TOTAL_LIMIT) totals.set(key, { total, expiresAt: Date.now() + TOTAL_TTL_MS });
    return total;
  }

  async function listPage(environment: string, url: URL): Promise<string> {
    const status = url.searchParams.get("status") ?? "accepted";
    const limit = Number(url.searchParams.get("limit") ?? 25);
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const [[row], total] = await Promise.all([
      database.query(LIST_PAGE, [environment, limit + 1, offset, status]),
      totalOf(environment, status),
    ]);
    const rows = JSON.parse(String(row.page)) as Record<string, unknown>[];
    return JSON.stringify({ data: rows.slice(0, limit).map(apiFields), pagination: { total, limit, offset } });
  }

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://floor");
    const id = ROUTE.exec(url.pathname)?.[1];
    const answer = (status: number, body: string) => {
      response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      response.end(body);
    };
    if (url.pathname === LIST_ROUTE) {
      environmentOf(request.headers.authorization)
        .then(async (environment) => (environment ? answer(200, await listPage(environment, url)) : answer(401, "{}")))
        .catch((error: Error) => answer(500, JSON.stringify({ status: 500, detail: error.message })));
      return;
    }
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
