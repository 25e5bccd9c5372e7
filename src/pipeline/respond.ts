// The last step: an operation's result becomes the Koa response, after (in tests) a check that it
// is what the contract documents for that operation and status.
import type { Readable } from "node:stream";
import type { Context } from "koa";
import type { OpenAPIBackend, Operation } from "openapi-backend";

/** What any handler returns, seen from the transport. */
export interface OperationResponse {
  status: number;
  body?: unknown;
  stream?: Readable;
  /** A JSON body already rendered as text (by the database), sent without parsing it. */
  json?: string;
  headers?: Record<string, string>;
}

export function respond(ctx: Context, result: OperationResponse): void {
  ctx.status = result.status;
  const headers = result.headers;
  if (headers) for (const name in headers) ctx.set(name, headers[name]);
  if (result.stream) ctx.body = result.stream;
  else if (result.json !== undefined) {
    ctx.type = "application/json";
    ctx.body = result.json;
  } else if (result.body !== undefined) ctx.body = result.body;
}

/** Throws when a JSON answer is off the contract: tests turn this on, so a drifting handler fails loudly. */
export function assertResponseOnContract(contract: OpenAPIBackend, operation: Operation, result: OperationResponse) {
  const body = result.json !== undefined ? JSON.parse(result.json) : result.body;
  if (result.status === 204 || result.stream || typeof body !== "object") return;
  const validation = contract.validateResponse(body, operation, result.status);
  if (validation.errors?.length) {
    throw new Error(
      `Response of ${operation.operationId} (${result.status}) is off the contract: ${JSON.stringify(validation.errors)}`,
    );
  }
}
