// createApp wires the application; src/main.ts only listens. A request meets, in order: its
// metrics, the problem boundary (request id, problem+json, the request's log line), the routes
// outside the contract (src/routes/), then the API's pipeline (src/pipeline/pipeline.ts), and a
// 404 for any other path.
import Koa, { type Context } from "koa";
import type { Config } from "../kernel/config.ts";
import type { Database } from "../db/database.ts";
import type { Logger } from "../kernel/logger.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import { registerDatabaseGauges } from "../kernel/metrics.ts";
import { createRateLimiter, type RateLimiter } from "../auth/rate-limiter.ts";
import type { AccessTokens } from "../auth/oauth.ts";
import { listenForRevocations } from "../auth/revocations.ts";
import { externalIssuerWarning } from "../auth/external-tokens.ts";
import { PUBLIC_SANDBOX_KEY_ID } from "../services/sandbox.ts";
import { installDashboardContext } from "../dashboard/server/sessions.ts";
import { createAdmission } from "../pipeline/admission.ts";
import { loadContract, unknownPath } from "../pipeline/contract.ts";
import { apiPipeline } from "../pipeline/pipeline.ts";
import { problemBoundary } from "../pipeline/problem-boundary.ts";
import { installRequestLog, requestLog } from "../pipeline/request-log.ts";
import { requestMetrics } from "../pipeline/request-metrics.ts";
import { routesOutsideContract } from "../routes/index.ts";
import { createAppContext, type AppContext } from "./context.ts";

/** A client that disconnects mid-response (a download cancelled) is not a server failure. */
const CLIENT_GONE = new Set(["ERR_STREAM_PREMATURE_CLOSE", "ECONNRESET", "EPIPE"]);

export interface AppDependencies {
  config: Config;
  database: Database;
  log: Logger;
  /** Seals and opens stored secrets (see src/process/startup.ts, openSecrets). */
  secrets: SecretBox;
  /** Tests turn this on: a response off the contract then fails loudly. */
  validateResponses?: boolean;
}

export interface App {
  koa: Koa;
  context: AppContext;
  accessTokens: AccessTokens;
  rateLimiter: RateLimiter;
  /** Ends the event streams (clients reconnect with Last-Event-ID): first, when the server stops. */
  closeStreams(): Promise<void>;
  /**
   * Writes the demand evaluations gathered in memory, then releases what the app holds besides the
   * database (the event streams, the rate-limit store's connection): before the database closes.
   */
  close(): Promise<void>;
}

export async function createApp(deps: AppDependencies): Promise<App> {
  const { config, database, log, secrets } = deps;
  const context = await createAppContext({ config, database, log, secrets });
  const externalWarning = externalIssuerWarning(config.oauth.external);
  if (externalWarning) log.warn(externalWarning);
  const rateLimiter = await createRateLimiter(config, log, { publicSandboxKeyId: PUBLIC_SANDBOX_KEY_ID });
  const admission = createAdmission(context.authenticator, rateLimiter);
  const contract = await loadContract();
  // A revocation another process committed: the credential is forgotten and its streams end here too.
  const stopListening = listenForRevocations(
    database,
    {
      forget(id) {
        context.authenticator.forget(id);
        context.services.events.credentialRevoked(id);
      },
      forgetAll() {
        context.authenticator.forgetAll();
        void context.services.events.recheckStreams();
      },
    },
    log,
  );
  const stopGauges = registerDatabaseGauges({
    poolStats: () => database.poolStats(),
    outboxBacklog: () => context.repositories.outbox.backlog(),
  });

  // Behind a proxy, the client is the last X-Forwarded-For entry: the one the nearest proxy added.
  const koa = new Koa({ proxy: config.trustProxy, maxIpsCount: 1 });
  koa.on("error", (error: NodeJS.ErrnoException, ctx?: Context) => reportAfterResponse(log, error, ctx));
  installDashboardContext(koa, context);
  installRequestLog(koa, log);
  koa.use(requestMetrics());
  // A finished write may have committed events: this process's event streams look now.
  koa.use(async (ctx, next) => {
    await next();
    if (ctx.method !== "GET" && ctx.method !== "HEAD") context.services.events.wake();
  });
  koa.use(problemBoundary(log));
  koa.use(
    routesOutsideContract({
      app: context,
      throttleTokenRequest: admission.throttleTokenRequest,
      throttleSignIn: admission.throttleSignIn,
      redis: rateLimiter.sharedStore,
    }),
  );
  koa.use(
    apiPipeline({
      contract,
      admission,
      services: context.services,
      bodyLimitBytes: config.bodyLimitBytes,
      validateResponses: deps.validateResponses,
    }),
  );
  koa.use((ctx) => {
    throw unknownPath(ctx.path);
  });

  return {
    koa,
    context,
    accessTokens: context.accessTokens,
    rateLimiter,
    closeStreams: () => context.services.events.closeStreams(),
    close: async () => {
      await context.services.transferEvaluations
        .closeDemand()
        .catch((error: unknown) => log.error({ err: error }, "writing the demand gathered in memory failed"));
      await context.services.events.closeStreams();
      stopGauges();
      await stopListening();
      await rateLimiter.close();
    },
  };
}

/**
 * What Koa reports after the status is sent (a streamed export that failed, or whose client went
 * away; the operation logs its own account) goes to the log, not to stderr as a bare stack.
 */
function reportAfterResponse(log: Logger, error: NodeJS.ErrnoException, ctx?: Context): void {
  const requestLogger = ctx ? requestLog(ctx) : log;
  const gone = CLIENT_GONE.has(error.code ?? "");
  requestLogger[gone ? "debug" : "warn"](
    { err: error },
    gone ? "the client left before the response ended" : "the response ended early",
  );
}
