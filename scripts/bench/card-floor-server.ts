// The card floor of scripts/bench/reads.ts: what the design card's stack costs by itself. Koa,
// and openapi-backend over the project's own document (its handleRequest with handlers registered
// by operationId, Ajv 2020 request validation, the project's OperationRouter: src/pipeline/
// contract.ts), answering GET /api/v1/equivalencies/{id} and the list's first page with the same
// SQL and the same 2 s key cache as the floor (floor-queries.ts), through the service's own
// database access (Database.statement: the pool, or the embedded database's thread). No logging,
// metrics, rate limiting or audit: the service's own per-request work is what it is measured
// against. Run in its own process, like server.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import Koa, { type Context } from "koa";
import type { Context as BackendContext } from "openapi-backend";
import { loadContract } from "../../src/pipeline/contract.ts";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { benchConfig } from "./harness.ts";
import { floorQueries } from "./floor-queries.ts";
import { answerProfileRequests } from "./profiling.ts";

interface Answer {
  status: number;
  body: string;
}

async function main() {
  const config = benchConfig(process.env.BENCH_DATA_DIR!, process.env.BENCH_DATABASE_URL || null);
  const database = await openMigratedDatabase(config, createLogger("silent"));
  const { environmentOf, listPage, equivalencyById } = floorQueries({
    query: (sql, params) => database.statement<Record<string, unknown>>(sql, params),
  });

  const contract = await loadContract();
  const environmentOfRequest = (ctx: Context) => (ctx.state.environment as string | null) ?? null;
  // The security handler authenticates; openapi-backend then calls the operation's handler.
  const authenticate = async (_c: BackendContext, ctx: Context) => {
    ctx.state.environment = await environmentOf(ctx.get("authorization") || undefined);
    return Boolean(ctx.state.environment);
  };
  contract.registerSecurityHandler("ApiKeyAuth", authenticate);
  contract.registerSecurityHandler("OAuth2", authenticate);
  contract.register({
    getEquivalency: async (c: BackendContext, ctx: Context): Promise<Answer> => {
      const record = await equivalencyById(String(c.request.params.id), environmentOfRequest(ctx)!);
      return record ? { status: 200, body: record } : { status: 404, body: '{"status":404}' };
    },
    listEquivalencies: async (_c: BackendContext, ctx: Context): Promise<Answer> => ({
      status: 200,
      body: await listPage(environmentOfRequest(ctx)!, new URL(ctx.originalUrl, "http://card-floor")),
    }),
    validationFail: (): Answer => ({ status: 400, body: '{"status":400}' }),
    unauthorizedHandler: (): Answer => ({ status: 401, body: '{"status":401}' }),
    notFound: (): Answer => ({ status: 404, body: '{"status":404}' }),
    methodNotAllowed: (): Answer => ({ status: 405, body: '{"status":405}' }),
    notImplemented: (): Answer => ({ status: 501, body: '{"status":501}' }),
  });

  const koa = new Koa();
  koa.use(async (ctx) => {
    const request = { method: ctx.method, path: ctx.path, query: ctx.querystring, headers: ctx.headers as never };
    const answer = (await contract.handleRequest(request, ctx)) as Answer;
    ctx.status = answer.status;
    ctx.type = "application/json";
    ctx.body = answer.body;
  });
  const server = http.createServer(koa.callback());
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
