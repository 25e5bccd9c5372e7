// The operations of the document as requests to fuzz: valid ones, broken ones
// with the pointer their 400 must name, and sending either through supertest.
import { endingStreams } from "../helpers/sse.ts";
import fc from "fast-check";
import type { Response } from "supertest";
import type { Document } from "openapi-backend";
import { API_ROOT } from "../../src/pipeline/contract.ts";
import { bearer, type TestApp } from "../helpers/app.ts";
import { MAX_JSON_DEPTH } from "../../src/pipeline/json-depth.ts";
import {
  SchemaArbitraries,
  applyMutation,
  toPointer,
  tooDeep,
  type JsonSchema,
  type Mutation,
  type Wire,
} from "./arbitraries.ts";

type Location = "path" | "query" | "header";

interface Parameter {
  name: string;
  in: Location;
  required: boolean;
  schema: JsonSchema;
}

export interface OperationModel {
  operationId: string;
  method: "get" | "post" | "patch" | "put" | "delete";
  path: string;
  parameters: Parameter[];
  /** `mediaType`: application/json, or text/csv (an import file, sent as the generated text). */
  body?: { schema: JsonSchema; required: boolean; mediaType: string };
}

/** A request in parts; `body` undefined sends none. */
export interface RequestParts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

export interface BrokenRequest {
  request: RequestParts;
  /** The JSON Schema keyword the request breaks. */
  breaks: string;
  /** Where the 400 must point: `/query/limit`, `/header/idempotency-key`, `/path/version`, or inside the body. */
  pointer: string;
}

/** A path segment sent as is, not percent-encoded: how a broken encoding is sent. */
export class RawPathSegment {
  constructor(readonly text: string) {}

  toJSON(): string {
    return `raw:${this.text}`;
  }
}

/** Percent-encodings that decodeURIComponent refuses: cut short, not hex, an encoded lone surrogate. */
const MALFORMED_ENCODINGS = ["%", "%E0%A4%A", "%G1", "%ED%A0%80", "%C3"];

export interface RequestHints {
  /** Values of a body member, query parameter or header, by name. */
  member?(name: string, fromSchema: fc.Arbitrary<unknown>): fc.Arbitrary<unknown>;
  /** Path parameters of existing records, which a valid request should often name. */
  knownPaths?(operation: OperationModel): Record<string, unknown>[];
}

const WIRE: Record<Location, Wire> = { path: "text", query: "text", header: "header" };
const METHODS = ["get", "post", "patch", "put", "delete"] as const;

export function operationsOf(document: Document): OperationModel[] {
  const resolve = (item: unknown) => {
    const ref = (item as { $ref?: string }).$ref;
    return ref
      ? (ref
          .slice(2)
          .split("/")
          .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document) as Record<string, unknown>)
      : (item as Record<string, unknown>);
  };
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item?.[method]).map((method) => {
      const operation = item![method]!;
      const parameters = [...(item!.parameters ?? []), ...(operation.parameters ?? [])]
        .map(resolve)
        .map((parameter) => ({
          name: parameter.name as string,
          in: parameter.in as Location,
          required: Boolean(parameter.required),
          schema: parameter.schema as JsonSchema,
        }));
      const requestBody = operation.requestBody ? resolve(operation.requestBody) : undefined;
      const content = requestBody?.content as Record<string, { schema: JsonSchema }> | undefined;
      const mediaType = content ? Object.keys(content)[0] : undefined;
      return {
        operationId: operation.operationId!,
        method,
        path,
        parameters,
        body: content
          ? { schema: content[mediaType!].schema, required: Boolean(requestBody!.required), mediaType: mediaType! }
          : undefined,
      };
    }),
  );
}

export class RequestArbitraries {
  private readonly schemas: SchemaArbitraries;

  constructor(
    document: Document,
    private readonly hints: RequestHints = {},
  ) {
    this.schemas = new SchemaArbitraries(document as unknown as JsonSchema, hints.member);
  }

  /** Requests every parameter and body of which validates against the document. */
  valid(operation: OperationModel): fc.Arbitrary<RequestParts> {
    const group = (location: Location) => {
      const parameters = operation.parameters.filter((parameter) => parameter.in === location);
      const members = Object.fromEntries(
        parameters.map((parameter) => [parameter.name, this.parameterValue(parameter)]),
      );
      return fc.record(members, {
        requiredKeys: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      });
    };
    const known = this.hints.knownPaths?.(operation) ?? [];
    const path = known.length
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: group("path") })
      : group("path");
    let body: fc.Arbitrary<unknown> = fc.constant(undefined);
    if (operation.body) {
      const value = this.schemas.valid(operation.body.schema);
      body = operation.body.required ? value : fc.option(value, { nil: undefined });
    }
    return fc.record({ path, query: group("query"), header: group("header"), body });
  }

  /**
   * Valid requests broken at one place each, with the pointer that place has in a problem. A
   * failure shrinks the break only: shrinking the valid request under it would draw the break
   * anew for each of thousands of smaller requests, most of them ending as the same request.
   */
  broken(operation: OperationModel): fc.Arbitrary<BrokenRequest> {
    return fc.noShrink(this.valid(operation)).chain((request) =>
      fc.oneof(...this.mutations(operation, request)).map((mutation) => ({
        request: applyMutation(request, mutation),
        breaks: mutation.breaks,
        pointer: pointerOf([...mutation.at, ...(mutation.inside ?? [])]),
      })),
    );
  }

  private parameterValue(parameter: Parameter): fc.Arbitrary<unknown> {
    const value = this.schemas.valid(parameter.schema, WIRE[parameter.in]);
    // An empty or dot-only path segment would route elsewhere, not to this operation.
    if (parameter.in === "path") return value.filter((v) => String(v) !== "" && !/^\.+$/.test(String(v)));
    return this.hints.member?.(parameter.name, value) ?? value;
  }

  private mutations(operation: OperationModel, request: RequestParts): fc.Arbitrary<Mutation>[] {
    const within = (location: keyof RequestParts) => (mutation: Mutation) => ({
      ...mutation,
      at: [location, ...mutation.at],
    });
    const found: fc.Arbitrary<Mutation>[] = [];
    // Path parameters can only be broken in value (or encoding): a missing or extra one routes elsewhere.
    for (const parameter of operation.parameters.filter((p) => p.in === "path")) {
      const value = request.path[parameter.name];
      const inPath = this.schemas.mutations(parameter.schema, value, [parameter.name], "text");
      const encoding = fc.constantFrom(...MALFORMED_ENCODINGS).map((broken) => ({
        at: [parameter.name],
        breaks: "percent-encoding",
        value: new RawPathSegment(encodeURIComponent(String(value)) + broken),
      }));
      found.push(...[...inPath, encoding].map((mutation) => mutation.map(within("path"))));
    }
    for (const location of ["query", "header"] as const) {
      const members = this.schemas.memberMutations(
        groupSchema(operation, location),
        request[location],
        [],
        WIRE[location],
      );
      found.push(...members.map((mutation) => mutation.map(within(location))));
    }
    if (operation.body && request.body !== undefined) {
      found.push(
        ...this.schemas.mutations(operation.body.schema, request.body).map((mutation) => mutation.map(within("body"))),
      );
      // Only JSON nests; a text body (an import file) is sent as its text.
      if (operation.body.mediaType.endsWith("json"))
        found.push(tooDeep(request.body, MAX_JSON_DEPTH).map(within("body")));
    }
    if (operation.body?.required) found.push(fc.constant({ at: ["body"], breaks: "required", remove: true as const }));
    return found;
  }
}

/** The parameters of one location as the object schema openapi-backend validates them with. */
function groupSchema(operation: OperationModel, location: Location): JsonSchema {
  const parameters = operation.parameters.filter((parameter) => parameter.in === location);
  return {
    type: "object",
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
    required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    // Unknown query parameters are refused; unknown headers are everyday traffic.
    additionalProperties: location === "header",
  };
}

function pointerOf([location, ...at]: string[]): string {
  if (location === "body") return toPointer(at);
  const [name, ...inside] = at;
  return toPointer([location, location === "header" ? name.toLowerCase() : name, ...inside]);
}

export function describeRequest(operation: OperationModel, request: RequestParts): string {
  return `${operation.method.toUpperCase()} ${urlOf(operation, request)}${request.body === undefined ? "" : ` ${JSON.stringify(request.body).slice(0, 500)}`}`;
}

function urlOf(operation: OperationModel, request: RequestParts): string {
  const segment = (value: unknown) =>
    value instanceof RawPathSegment ? value.text : encodeURIComponent(String(value));
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => segment(request.path[name]));
  const query = new URLSearchParams();
  // An array is a repeated parameter (style form, explode: the document's only array parameters).
  for (const [name, value] of Object.entries(request.query))
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  return `${API_ROOT}${path}${query.size ? `?${query}` : ""}`;
}

/** superagent cannot send an empty text (it writes an undefined chunk): no bytes is no body. */
function sendText<Call extends { send(text: string): Call; set(name: string, value: string): Call }>(
  call: Call,
  mediaType: string,
  text: string,
): Call {
  return text === "" ? call : call.set("Content-Type", mediaType).send(text);
}

export async function send(
  t: TestApp,
  operation: OperationModel,
  request: RequestParts,
  key: string,
): Promise<Response> {
  let call = t.http[operation.method](urlOf(operation, request)).set(bearer(key));
  for (const [name, value] of Object.entries(request.header)) call = call.set(name, String(value));
  const mediaType = operation.body?.mediaType ?? "application/json";
  if (request.body !== undefined)
    call = mediaType.endsWith("json")
      ? call.set("Content-Type", mediaType).send(JSON.stringify(request.body))
      : sendText(call, mediaType, String(request.body));
  // An event stream (GET /events/stream) never ends by itself: it is ended once it has begun.
  if (operation.path === "/events/stream") call = call.buffer(true).parse(endingStreams(t.app));
  return await call;
}
