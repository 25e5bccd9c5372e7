// The floors of scripts/bench/reads.ts: the least a server can do to answer
// GET /api/v1/equivalencies/{id} and GET /api/v1/equivalencies?status=…&limit=…&offset=…
// from the same database: node:http, no framework, the same SQL as the service (the
// "equivalency_expanded_api_json" function; the list's page of ids joined back to its
// rows rendered by "equivalency_api_json", and its count, remembered 10 s above 10,000
// rows as the service does), the same answer (the database's text passed through), and
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
import { lockDirectory } from "../../src/db/directory-lock.ts";
import { embeddedDataPath } from "../../src/db/database.ts";
import { OneCallQueries } from "../../src/db/one-call-queries.ts";
import { floorQueries, type Query } from "./floor-queries.ts";
import { answerProfileRequests } from "./profiling.ts";

const ROUTE = /^\/api\/v1\/equivalencies\/([^/?]+)$/;
const LIST_ROUTE = "/api/v1/equivalencies";

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
  const { environmentOf, listPage, equivalencyById } = floorQueries(database);

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
        const record = await equivalencyById(decodeURIComponent(id), environment);
        return record ? answer(200, record) : answer(404, '{"status":404}');
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
