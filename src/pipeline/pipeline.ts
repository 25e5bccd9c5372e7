// The API's request pipeline. Every request under /api/v1 takes these steps, in this order, and
// each step throws the problem that ends the request (problem-boundary.ts answers it):
//
//   route       the operation, by openapi-backend's router         400 path encoding, 404, 405
//   negotiate   a media type the client accepts                    406
//   admit       blocked address, credential, rate limit            429, 401, 429
//               (an operation with `security: []`: the address's bucket only, 429)
//   authorize   scopes, credential kind and role, from the document 403
//   read        the JSON body, within its size and depth limits    413, 415, 400
//   validate    the contract (Ajv), and an operation's own checks  400
//   handle      the operation's handler (services hold the rules and write the audit entries)
//   respond     status, headers, and a body or a stream
import type { Context, Middleware, Next } from "koa";
import type { OpenAPIBackend, Operation, Request } from "openapi-backend";
import { authorize } from "../auth/authorize.ts";
import { handlers, requestChecks } from "../handlers/index.ts";
import type { OperationId, RequestContext } from "../handlers/types.ts";
import { API_ROOT } from "../kernel/document.ts";
import { rejectUnstorableText } from "../kernel/unstorable-text.ts";
import type { Services } from "../services/index.ts";
import type { Admission } from "./admission.ts";
import { type AnyHandler, runAudited } from "./audit.ts";
import { readCsvBody, readJsonBody } from "./body.ts";
import { routeRequest } from "./contract.ts";
import { rejectNonDecimalIntegers } from "./integer-parameters.ts";
import { negotiate, responseTypes } from "./negotiation.ts";
import { OperationInput, PipelineContext } from "./request-context.ts";
import type { RequestState } from "./request-log.ts";
import { decodesAsUri, rejectMalformedPathEncoding } from "./path-encoding.ts";
import { requestFieldErrors, requestValidationError } from "./request-errors.ts";
import { type RequestParameters, validateParameters } from "./request-parameters.ts";
import { assertResponseOnContract, respond } from "./respond.ts";

/** A 10,000-row import file is larger than a JSON write: its body may be this many times the body limit. */
export const CSV_BODY_LIMIT_FACTOR = 4;

const UNDER_API_ROOT = `${API_ROOT}/`;

export interface PipelineDependencies {
  contract: OpenAPIBackend;
  admission: Admission;
  services: Services;
  bodyLimitBytes: number;
  /** Tests turn this on: a response off the contract then fails loudly. */
  validateResponses?: boolean;
}

export function apiPipeline(deps: PipelineDependencies): Middleware {
  const { contract, admission, services } = deps;
  const strict = deps.validateResponses === true;

  return async function api(ctx: Context, next: Next) {
    const path = ctx.path;
    if (path !== API_ROOT && !path.startsWith(UNDER_API_ROOT)) return next();
    const request: Request = {
      method: ctx.method,
      path,
      query: ctx.querystring,
      headers: ctx.headers as Request["headers"],
    };

    const operation = route(request);
    const operationId = operation.operationId as OperationId;
    const state = ctx.state as RequestState;
    state.operationId = operationId;
    negotiate(ctx, responseTypes(operation));

    const caller = needsNoCredential(operation) ? await admission.admitPublic(ctx) : await admission.admit(ctx);
    state.credential = caller;
    const context = new PipelineContext(ctx, caller, state.requestId, services);
    authorize(operation, caller);

    if (operation.requestBody) request.body = await readBody(ctx, operation, deps.bodyLimitBytes);
    rejectNonDecimalIntegers(operation, path.slice(API_ROOT.length), request.query as string);
    const { parameters, errors } = validateParameters(contract, operation, request);
    if (errors) await refuseInvalid(operation, request, errors, context);
    const input = inputOf(parameters, request, ctx);

    // The services append the change's audit entries in its own transaction (pipeline/audit.ts).
    const ids = {
      serviceRequestId: state.serviceRequestId ?? state.requestId,
      clientRequestId: state.clientRequestId ?? null,
    };
    const result = await runAudited(operation, input, context, ids, handlers[operationId] as AnyHandler, strict);
    if (strict) assertResponseOnContract(contract, operation, result);
    respond(ctx, result);
  };

  /** An operation reads JSON, or the text of a CSV file (imports), which may be up to CSV_BODY_LIMIT_FACTOR times larger. */
  function readBody(ctx: Context, operation: Operation, limitBytes: number): Promise<unknown> {
    const content = (operation.requestBody as { content?: Record<string, unknown> }).content ?? {};
    return "text/csv" in content ? readCsvBody(ctx, limitBytes * CSV_BODY_LIMIT_FACTOR) : readJsonBody(ctx, limitBytes);
  }

  /** openapi-backend decodes path parameters as it matches: a malformed one is named before that. */
  function route(request: Request): Operation {
    if (request.path.includes("%") && !decodesAsUri(request.path)) {
      const operation = contract.router.matchOperation(request);
      if (operation) rejectMalformedPathEncoding(operation.path, request.path.slice(API_ROOT.length));
    }
    return routeRequest(contract, request);
  }

  /** 400 for a request off the contract, with an operation's own checks beside the schema's. */
  async function refuseInvalid(
    operation: Operation,
    request: Request,
    errors: NonNullable<ReturnType<typeof validateParameters>["errors"]>,
    context: RequestContext,
  ): Promise<never> {
    const schemaErrors = requestFieldErrors(errors);
    const check = requestChecks[operation.operationId as OperationId];
    throw requestValidationError([], check ? await check(request.body, schemaErrors, context) : schemaErrors);
  }

  /** The request as its handler reads it, with the contract's coerced types. */
  function inputOf(parameters: RequestParameters, request: Request, ctx: Context): OperationInput {
    const input = new OperationInput(
      parameters.path as never,
      parameters.query as never,
      request.body as never,
      ctx.headers as Record<string, string | undefined>,
      ctx.originalUrl,
    );
    rejectUnstorableText(input);
    return input;
  }
}

/** The public explorer's operations are documented with `security: []`: anyone may call them, from an address. */
function needsNoCredential(operation: Operation): boolean {
  const security = (operation as { security?: unknown[] }).security;
  return Array.isArray(security) && security.length === 0;
}
