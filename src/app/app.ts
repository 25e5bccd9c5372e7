// createApp builds the Koa application; main.ts only listens. Every API request
// goes: request id and problem mapping -> a path parameter that is not valid
// percent-encoding (400) -> routing (404/405) -> content
// negotiation (406) -> refusal of an address that failed authentication too
// often (429) -> authentication (401, counted per address), rate limit (429),
// scope (403) -> body (413/415/400) -> contract validation (400) -> handler.
// POST /oauth/token is rate-limited per address before the token route reads its body.
import type { Readable } from "node:stream";
import Koa, { type Context } from "koa";
import type { Context as BackendContext, Operation } from "openapi-backend";
import type { Config } from "../kernel/config.ts";
import type { Database } from "../db/database.ts";
import type { Logger } from "../kernel/logger.ts";
import {
  API_ROOT,
  allowedMethods,
  createBackend,
  operationScopes,
  requestFieldErrors,
  requestValidationError,
  unknownPath,
} from "../pipeline/contract.ts";
import { createRateLimiter, type RateLimitDecision, type RateLimiter } from "../auth/rate-limiter.ts";
import { clientAddressKey } from "../auth/client-address.ts";
import { hasScope, type Credential, type Scope } from "../auth/credential.ts";
import type { AccessTokens } from "../auth/oauth.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import {
  AuthenticationError,
  ForbiddenError,
  ProblemError,
  ValidationError,
  type FieldError,
} from "../kernel/errors.ts";
import { readJsonBody } from "../pipeline/body.ts";
import { rejectUnstorableText } from "../pipeline/unstorable-text.ts";
import { decodesAsUri, rejectMalformedPathEncoding } from "../pipeline/path-encoding.ts";
import { rejectNonDecimalIntegers } from "../pipeline/integer-parameters.ts";
import { problemBoundary } from "../pipeline/problem-boundary.ts";
import { responseTypes, negotiate } from "../pipeline/negotiation.ts";
import { operationalRoutes } from "../routes/operational.ts";
import { handlers } from "../handlers/index.ts";
import type { OperationId, OperationResult, RequestContext } from "../handlers/types.ts";
import { createAppContext, type AppContext } from "./context.ts";
import { PUBLIC_SANDBOX_KEY_ID } from "../services/sandbox.ts";
import { mountDashboardAuth } from "../dashboard/server/session-routes.ts";
import { auditTarget } from "../pipeline/audit-target.ts";
import { dashboardStatic } from "../dashboard/server/static.ts";
import { mountSsoRoutes } from "../dashboard/server/sso/routes.ts";
import { listenForRevocations } from "../auth/revocations.ts";
import { countRateLimited, requestMetrics } from "../pipeline/request-metrics.ts";
import { registerDatabaseGauges } from "../kernel/metrics.ts";

/** A client that disconnects mid-response (a download cancelled) is not a server failure. */
const CLIENT_GONE = new Set(["ERR_STREAM_PREMATURE_CLOSE", "ECONNRESET", "EPIPE"]);

/** The request as openapi-backend sees it; the body is added once credentials have been checked. */
interface RoutedRequest {
  method: string;
  path: string;
  query: string;
  headers: Context["headers"];
  body?: unknown;
}

/** What any handler returns, seen from the transport. */
interface HandlerResponse {
  status: number;
  body?: unknown;
  stream?: Readable;
  headers?: Record<string, string>;
}

export interface AppDependencies {
  config: Config;
  database: Database;
  log: Logger;
  /** Seals and opens stored secrets (see bootstrap's openSecrets). */
  secrets: SecretBox;
  /** Tests turn this on: a response off the contract then fails loudly. */
  validateResponses?: boolean;
}

export interface App {
  koa: Koa;
  context: AppContext;
  accessTokens: AccessTokens;
  rateLimiter: RateLimiter;
  /** Releases what the app holds besides the database (the rate-limit store's connection). */
  close(): Promise<void>;
}

export async function createApp(deps: AppDependencies): Promise<App> {
  const { config, database, log, secrets } = deps;
  const context = await createAppContext({ config, database, log, secrets });
  const { accessTokens, authenticator, services } = context;
  const rateLimiter = await createRateLimiter(config, log, { publicSandboxKeyId: PUBLIC_SANDBOX_KEY_ID });
  const stopListening = listenForRevocations(database, authenticator, log);
  const stopGauges = registerDatabaseGauges({
    poolStats: () => database.poolStats(),
    outboxBacklog: () => context.repositories.outbox.backlog(),
  });

  const backend = createBackend(
    () => {
      throw new ProblemError("internal-error", "No handler is registered for this operation.");
    },
    {
      notFound: (_context, ctx) => {
        throw unknownPath((ctx as Context).path);
      },
      methodNotAllowed: (_context, ctx) => {
        const { method, path } = ctx as Context;
        const allowed = allowedMethods(backend, path);
        throw new ProblemError(
          "method-not-allowed",
          `${method} is not allowed on ${path}; use ${allowed.join(", ")}.`,
          {
            headers: { Allow: allowed.join(", ") },
            extensions: { allowed },
          },
        );
      },
      // Runs for a matched operation only after openapi-backend has routed the
      // request, and before its security handlers and contract validation.
      postRoutingHandler: (context, ctx, request) =>
        context.operation ? admit(context.operation, ctx as Context, request as RoutedRequest) : undefined,
      // A batch of courses is checked whole in one pass: the values off the schema and the
      // references of the items whose fields have the right type (institutions, CIP codes, duplicates).
      validationFail: async (context, ctx, request) => {
        const schemaErrors = context.validation.errors ?? [];
        if (context.operation?.operationId !== "upsertCourses") throw requestValidationError(schemaErrors);
        // The body as read by admit (openapi-backend parsed its request before the body was read).
        const body = (request as RoutedRequest).body as unknown;
        let referenceErrors: FieldError[];
        try {
          // Text PostgreSQL cannot compare never reaches a query: it is reported instead.
          rejectUnstorableText({ params: {}, query: {}, body });
          referenceErrors = await services.courses.referenceErrorsOf(
            (ctx as Context).state.credential as Credential,
            Array.isArray(body) ? body : [body],
            { single: !Array.isArray(body) },
          );
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          referenceErrors = error.errors;
        }
        const fieldErrors = requestFieldErrors(schemaErrors);
        throw requestValidationError(
          [],
          sortByItem([...fieldErrors, ...referenceErrors.filter((r) => !fieldErrors.some((f) => same(f, r)))]),
        );
      },
      postResponseHandler: (context) => {
        const response = context.response as HandlerResponse;
        if (deps.validateResponses) validateResponse(backend, context.operation, response);
        return response;
      },
    },
  );
  for (const operationId of Object.keys(handlers) as OperationId[]) {
    backend.register(operationId, (context: BackendContext, ctx: Context) => runHandler(operationId, context, ctx));
  }
  await backend.init();

  /** Everything between routing and contract validation, in the order described at the top of this file. */
  async function admit(operation: Operation, ctx: Context, request: RoutedRequest) {
    ctx.state.operationId = operation.operationId;
    negotiate(ctx, responseTypes(operation));
    const address = clientAddressKey(ctx.ip);
    const blocked = rateLimiter.blockedAddress(address);
    if (blocked) applyRateLimit(ctx, blocked);
    const credential = await authenticate(ctx, address);
    ctx.state.credential = credential;
    ctx.state.log = (ctx.state.log as Logger).child({
      credentialId: credential.id,
      operationId: operation.operationId,
    });
    let decision = rateLimiter.forCredential(credential, address);
    if (decision instanceof Promise) decision = await decision;
    applyRateLimit(ctx, decision);
    requireScopes(operation, credential);
    requireCredentialKindAndRole(operation, credential);
    // openapi-backend validates, and hands the handler, the body of the request object it was given.
    if (operation.requestBody) request.body = await readJsonBody(ctx, config.bodyLimitBytes);
    rejectNonDecimalIntegers(operation, ctx.path.slice(API_ROOT.length), ctx.querystring);
  }

  async function runHandler(operationId: OperationId, context: BackendContext, ctx: Context) {
    const request = {
      // openapi-backend re-parses path parameters as strings; keep the coerced ones.
      params: { ...context.request.params, ...(context.validation?.coerced?.params ?? {}) },
      query: context.request.query,
      body: context.request.requestBody,
      headers: ctx.headers as Record<string, string | undefined>,
      url: new URL(ctx.originalUrl, "http://localhost"),
    };
    const requestContext: RequestContext = {
      caller: ctx.state.credential as Credential,
      requestId: ctx.state.requestId as string,
      log: ctx.state.log as Logger,
      services,
    };
    rejectUnstorableText(request);
    const handler = handlers[operationId] as (
      r: typeof request,
      c: RequestContext,
    ) => Promise<OperationResult<OperationId>>;
    const result = await handler(request, requestContext);
    if (isChange(context.operation, request.query, result)) {
      await recordChange(context.operation, requestContext, request.params, result as HandlerResponse);
    }
    return result;
  }

  /**
   * The audit log: one entry per successful change, written right after it (outside the change's
   * transaction). A failure to write it is logged as an error, and the change's answer stands.
   */
  async function recordChange(
    operation: Operation,
    requestContext: RequestContext,
    params: Record<string, unknown>,
    result: HandlerResponse,
  ) {
    try {
      await services.audit.recordChange(requestContext.caller, {
        operationId: operation.operationId as string,
        target: auditTarget(operation.path, params, result.body),
        requestId: requestContext.requestId,
      });
    } catch (error) {
      requestContext.log.error({ err: error }, "audit entry could not be written");
    }
  }

  // Behind a proxy, the client is the last X-Forwarded-For entry: the one the nearest proxy added.
  const koa = new Koa({ proxy: config.trustProxy, maxIpsCount: 1 });
  // What Koa reports after the status is sent (a streamed export that failed, or whose client
  // went away; the operation logs its own account) goes to the log, not to stderr as a bare stack.
  koa.on("error", (error: NodeJS.ErrnoException, ctx?: Context) => {
    const requestLog = (ctx?.state.log as Logger | undefined) ?? log;
    const gone = CLIENT_GONE.has(error.code ?? "");
    requestLog[gone ? "debug" : "warn"](
      { err: error },
      gone ? "the client left before the response ended" : "the response ended early",
    );
  });
  koa.use(requestMetrics());
  koa.use(problemBoundary(log));
  const throttleTokenRequest = async (ctx: Context) =>
    applyRateLimit(ctx, await rateLimiter.tokenRequest(clientAddressKey(ctx.ip)));
  koa.use(operationalRoutes({ database, accessTokens, throttleTokenRequest, redis: rateLimiter.sharedStore }));
  mountDashboardAuth(koa, context);
  koa.use(dashboardStatic());
  mountSsoRoutes(koa, context);

  koa.use(async (ctx, next) => {
    if (ctx.path !== API_ROOT && !ctx.path.startsWith(`${API_ROOT}/`)) return next();
    const request: RoutedRequest = { method: ctx.method, path: ctx.path, query: ctx.querystring, headers: ctx.headers };
    // openapi-backend decodes path parameters before any hook runs and a malformed
    // one would throw there; such a request pays a second match to name the parameter.
    if (!decodesAsUri(ctx.path)) {
      const operation = backend.router.matchOperation(request as never);
      if (operation) rejectMalformedPathEncoding(operation.path, ctx.path.slice(API_ROOT.length));
    }
    const result = (await backend.handleRequest(request as never, ctx, request)) as HandlerResponse;
    ctx.status = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    if (result.stream) {
      ctx.body = result.stream;
      return;
    }
    if (result.body !== undefined) ctx.body = result.body;
  });

  koa.use((ctx) => {
    throw unknownPath(ctx.path);
  });

  /** A presented credential that fails counts against the client address; too many failures are answered 429 instead. */
  async function authenticate(ctx: Context, address: string): Promise<Credential> {
    const authorization = ctx.get("authorization") || undefined;
    try {
      return await authenticator.authenticate(authorization);
    } catch (error) {
      if (authorization && error instanceof AuthenticationError) {
        const failures = await rateLimiter.authenticationFailed(address);
        if (!failures.allowed) applyRateLimit(ctx, failures);
      }
      throw error;
    }
  }

  return {
    koa,
    context,
    accessTokens,
    rateLimiter,
    close: async () => {
      stopGauges();
      await stopListening();
      await rateLimiter.close();
    },
  };
}

/** X-RateLimit-* describe the bucket the request was counted against; an empty one is a 429. */
function applyRateLimit(ctx: Context, decision: RateLimitDecision) {
  ctx.set("X-RateLimit-Limit", String(decision.limit));
  ctx.set("X-RateLimit-Remaining", String(decision.remaining));
  ctx.set("X-RateLimit-Reset", String(decision.resetSeconds));
  if (!decision.allowed) {
    countRateLimited(decision.subject);
    throw new ProblemError(
      "rate-limited",
      `Too many requests ${decision.subject}; retry in ${decision.retryAfterSeconds} s.`,
      {
        headers: { "Retry-After": String(decision.retryAfterSeconds) },
      },
    );
  }
}

function requireScopes(operation: Operation, credential: Credential) {
  const missing = operationScopes(operation).filter((scope) => !hasScope(credential, scope as Scope));
  if (missing.length) {
    throw new ForbiddenError(
      `This operation needs the scope ${missing.join(", ")}, which the credential does not hold.`,
    );
  }
}

/** A write that succeeded and changed something: not a read, a dry run, or a replayed idempotent answer. */
function isChange(operation: Operation, query: unknown, result: unknown): boolean {
  const { status, headers } = result as HandlerResponse;
  if (operation.method === "get" || status < 200 || status >= 300) return false;
  if (headers?.["Idempotent-Replayed"] === "true") return false;
  const dryRun = (query as Record<string, unknown> | undefined)?.dryRun;
  return dryRun !== true && dryRun !== "true";
}

/**
 * Role rules for people (the spec's extensions): `x-credential-kinds` lists the credential kinds an
 * operation serves (members and the audit log: users only), and `x-user-role: admin` refuses a
 * user's token of another role. API keys and OAuth clients are governed by their scopes alone.
 */
function requireCredentialKindAndRole(operation: Operation, credential: Credential) {
  const kinds = (operation as { "x-credential-kinds"?: string[] })["x-credential-kinds"];
  if (kinds && !kinds.includes(credential.kind)) {
    throw new ForbiddenError(
      "This operation is for people: it needs a dashboard user's access token with the admin role, not an API key or OAuth client.",
    );
  }
  const role = (operation as { "x-user-role"?: string })["x-user-role"];
  if (role && credential.kind === "user" && credential.user?.role !== role) {
    throw new ForbiddenError(`This operation needs the ${role} role; the user's role is ${credential.user?.role}.`);
  }
}

function validateResponse(backend: ReturnType<typeof createBackend>, operation: Operation, response: HandlerResponse) {
  if (response.status === 204 || response.stream || typeof response.body !== "object") return;
  const result = backend.validateResponse(response.body, operation, response.status);
  if (result.errors?.length) {
    throw new Error(
      `Response of ${operation.operationId} (${response.status}) is off the contract: ${JSON.stringify(result.errors)}`,
    );
  }
}

function same(a: FieldError, b: FieldError): boolean {
  return a.pointer === b.pointer && a.message === b.message;
}

/** Errors of a batch in item order (`/0/…`, `/1/…`, …), each item's in the order found. */
function sortByItem(errors: FieldError[]): FieldError[] {
  const item = (e: FieldError) => Number(/^\/(\d+)(?:\/|$)/.exec(e.pointer)?.[1] ?? -1);
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => item(a.e) - item(b.e) || a.i - b.i)
    .map(({ e }) => e);
}
