// The API's request pipeline. Every request under /api/v1 takes these steps, in this order, and
// each step throws the problem that ends the request (problem-boundary.ts answers it):
//
//   route       the operation, by openapi-backend's router         400 path encoding, 404, 405
//   negotiate   a media type the client accepts                    406
//   admit       blocked address, credential, rate limit            429, 401, 429
//   authorize   scopes, credential kind and role, from the document 403
//   read        the JSON body, within its size and depth limits    413, 415, 400
//   validate    the contract (Ajv), and an operation's own checks  400
//   handle      the operation's handler (services hold the rules and write the audit entries)
//   respond     status, headers, and a body or a stream
import type { Context, Middleware, Next } from "koa";
import type { OpenAPIBackend, Operation, Request } from "openapi-backend";
import { authorize } from "../auth/authorize.ts";
import type { ApiCredential } from "../auth/credential.ts";
import { handlers, requestChecks } from "../handlers/index.ts";
import type { OperationId, OperationRequest, RequestContext } from "../handlers/types.ts";
import { API_ROOT } from "../kernel/document.ts";
import { rejectUnstorableText } from "../kernel/unstorable-text.ts";
import type { Services } from "../services/index.ts";
import type { Admission } from "./admission.ts";
import { runAudited } from "./audit.ts";
import { readCsvBody, readJsonBody } from "./body.ts";
import { routeRequest } from "./contract.ts";
import { rejectNonDecimalIntegers } from "./integer-parameters.ts";
import { negotiate, responseTypes } from "./negotiation.ts";
import { requestLog } from "./request-log.ts";
import { decodesAsUri, rejectMalformedPathEncoding } from "./path-encoding.ts";
import { requestFieldErrors, requestValidationError } from "./request-errors.ts";
import { validateParameters } from "./request-parameters.ts";
import { assertResponseOnContract, respond, type OperationResponse } from "./respond.ts";

/** A 10,000-row import file is larger than a JSON write: its body may be this many times the body limit. */
export const CSV_BODY_LIMIT_FACTOR = 4;

export interface PipelineDependencies {
  contract: OpenAPIBackend;
  admission: Admission;
  services: Services;
  bodyLimitBytes: number;
  /** Tests turn this on: a response off the contract then fails loudly. */
  validateResponses?: boolean;
}

type AnyHandler = (request: OperationRequest<OperationId>, context: RequestContext) => Promise<OperationResponse>;

export function apiPipeline(deps: PipelineDependencies): Middleware {
  const { contract, admission, services } = deps;

  return async function api(ctx: Context, next: Next) {
    if (ctx.path !== API_ROOT && !ctx.path.startsWith(`${API_ROOT}/`)) return next();
    const request: Request = {
      method: ctx.method,
      path: ctx.path,
      query: ctx.querystring,
      headers: ctx.headers as Request["headers"],
    };

    const operation = route(request);
    const operationId = operation.operationId as OperationId;
    ctx.state.operationId = operationId;
    negotiate(ctx, responseTypes(operation));

    const caller = await admission.admit(ctx);
    const context = requestContext(ctx, caller);
    authorize(operation, caller);

    if (operation.requestBody) request.body = await readBody(ctx, operation, deps.bodyLimitBytes);
    rejectNonDecimalIntegers(operation, ctx.path.slice(API_ROOT.length), ctx.querystring);
    const input = await validate(operation, request, ctx, context);

    // The services append the change's audit entries in its own transaction (pipeline/audit.ts).
    const handle = () => (handlers[operationId] as AnyHandler)(input, context);
    const requestIds = {
      requestId: (ctx.state.serviceRequestId as string | undefined) ?? context.requestId,
      clientRequestId: (ctx.state.clientRequestId as string | null | undefined) ?? null,
    };
    const result = await runAudited(operation, input, context, requestIds, handle, deps.validateResponses === true);
    if (deps.validateResponses) assertResponseOnContract(contract, operation, result);
    respond(ctx, result);
  };

  /** An operation reads JSON, or the text of a CSV file (imports), which may be up to CSV_BODY_LIMIT_FACTOR times larger. */
  function readBody(ctx: Context, operation: Operation, limitBytes: number): Promise<unknown> {
    const content = (operation.requestBody as { content?: Record<string, unknown> }).content ?? {};
    return "text/csv" in content ? readCsvBody(ctx, limitBytes * CSV_BODY_LIMIT_FACTOR) : readJsonBody(ctx, limitBytes);
  }

  /** openapi-backend decodes path parameters as it matches: a malformed one is named before that. */
  function route(request: Request): Operation {
    if (!decodesAsUri(request.path)) {
      const operation = contract.router.matchOperation(request);
      if (operation) rejectMalformedPathEncoding(operation.path, request.path.slice(API_ROOT.length));
    }
    return routeRequest(contract, request);
  }

  function requestContext(ctx: Context, caller: ApiCredential): RequestContext {
    ctx.state.credential = caller;
    return {
      caller,
      requestId: ctx.state.requestId as string,
      get log() {
        return requestLog(ctx);
      },
      services,
    };
  }

  /** The request as its handler reads it, with the contract's coerced types; 400 when it is off the contract. */
  async function validate(
    operation: Operation,
    request: Request,
    ctx: Context,
    context: RequestContext,
  ): Promise<OperationRequest<OperationId>> {
    const { parameters, errors } = validateParameters(contract, operation, request);
    if (errors) {
      const schemaErrors = requestFieldErrors(errors);
      const check = requestChecks[operation.operationId as OperationId];
      throw requestValidationError([], check ? await check(request.body, schemaErrors, context) : schemaErrors);
    }
    const input = {
      params: parameters.path as never,
      query: parameters.query as never,
      body: request.body as never,
      headers: ctx.headers as Record<string, string | undefined>,
      url: new URL(ctx.originalUrl, "http://localhost"),
    };
    rejectUnstorableText(input);
    return input;
  }
}
