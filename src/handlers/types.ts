// Handler types derived from the contract: an operation's path, query and body
// types, and the responses it may answer, all come from generated/api-types.ts.
import type { Readable } from "node:stream";
import type { operations } from "../../generated/api-types.ts";
import type { ApiCredential } from "../auth/credential.ts";
import type { FieldError } from "../kernel/errors.ts";
import type { Logger } from "../kernel/logger.ts";
import type { Services } from "../services/index.ts";

/** Operations the service serves; webhook operations (named on…) are what receivers implement. */
export type OperationId = Exclude<keyof operations, `on${string}`>;
type Op<K extends OperationId> = operations[K];

type Member<T, Name extends string> = T extends { [P in Name]?: infer V } ? NonNullable<V> : never;

export type PathParams<K extends OperationId> = Member<Op<K>["parameters"], "path">;
export type QueryParams<K extends OperationId> = Member<Op<K>["parameters"], "query">;
export type RequestBody<K extends OperationId> =
  NonNullable<Op<K>["requestBody"]> extends { content: { "application/json": infer Body } }
    ? Body
    : NonNullable<Op<K>["requestBody"]> extends { content: { "text/csv": infer Text } }
      ? Text
      : undefined;

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<K extends OperationId> = Op<K>["responses"];
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;

/** A response an operation's contract allows, chosen among its 2xx statuses. */
export type OperationResult<K extends OperationId> =
  | {
      [S in keyof Responses<K> & SuccessStatus]: {
        status: S;
        body: ContentOf<Responses<K>[S]>;
        headers?: Record<string, string>;
      };
    }[keyof Responses<K> & SuccessStatus]
  | { status: 200; stream: Readable; headers: Record<string, string> }
  | RenderedResult;

/**
 * A 200 whose JSON body the database rendered (the hottest reads): the text is sent as it is. The
 * compiler cannot hold it to the contract, so a unit test holds the rendering to the view
 * (test/unit/api-json.test.ts) and the contract tests validate it as any other body.
 */
export interface RenderedResult {
  status: 200;
  json: string;
  headers?: Record<string, string>;
}

export interface OperationRequest<K extends OperationId> {
  params: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  headers: Record<string, string | undefined>;
  /** The request URL as the client sent it (used for Link headers). */
  url: URL;
}

export interface RequestContext {
  /** Present on every operation: they all require a credential. */
  caller: ApiCredential;
  requestId: string;
  /** The client's address as rate limits count it (an IPv6 address: its /64). */
  clientAddress: string;
  log: Logger;
  services: Services;
}

export type OperationHandler<K extends OperationId> = (
  request: OperationRequest<K>,
  context: RequestContext,
) => Promise<OperationResult<K>>;

/** Every operation of the contract must have a handler, or this fails to compile. */
export type HandlerRegistry = { [K in OperationId]: OperationHandler<K> };

/**
 * More than the schema can say about an operation's request, declared beside its handler. It runs
 * when the schema has found errors, and returns the whole list the 400 problem carries (the
 * schema's errors and its own), so that one answer names every bad value; when the schema passes,
 * the operation's service makes the same checks itself.
 */
export type RequestCheck<K extends OperationId> = (
  body: RequestBody<K> | unknown,
  schemaErrors: FieldError[],
  context: RequestContext,
) => Promise<FieldError[]>;

export type RequestChecks = { [K in OperationId]?: RequestCheck<K> };
