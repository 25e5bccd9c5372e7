// A request's parameters, parsed once and validated by the Ajv functions openapi-backend compiled
// for the matched operation. openapi-backend's own validateRequest parses the request again
// (and handleRequest parses it twice more), compiling each path template into a regular
// expression every time; here the template's expression is built once per operation, the query
// string is read by the library's own parser, and the validators are called directly. The result
// is what validateRequest gives: the same coerced path and query, the same errors
// (test/unit/request-parameters.test.ts compares the two over every operation).
import type { ErrorObject } from "ajv";
import type { OpenAPIBackend, Operation, Request } from "openapi-backend";

/** What the operation's validators read, and coerce in place. */
export interface RequestParameters {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  cookie: Record<string, unknown>;
  requestBody?: unknown;
}

interface OperationShape {
  /** The template as an expression, one group per path parameter, in order. */
  pattern: RegExp;
  names: string[];
  /** Query parameters whose schema is an array: a lone value is read as a list of one. */
  arrays: Set<string>;
}

const shapes = new WeakMap<Operation, OperationShape>();

function shapeOf(operation: Operation): OperationShape {
  let shape = shapes.get(operation);
  if (!shape) {
    const names: string[] = [];
    const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const source = operation.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (!name) return literal(part);
        names.push(name);
        return "([^/]*)";
      })
      .join("");
    const arrays = new Set(
      (operation.parameters ?? [])
        .filter((p) => !("$ref" in p) && p.in === "query" && (p.schema as { type?: unknown })?.type === "array")
        .map((p) => (p as { name: string }).name),
    );
    shape = { pattern: new RegExp(`^${source}$`), names, arrays };
    shapes.set(operation, shape);
  }
  return shape;
}

/** The media type of the request's body, without parameters, lower-case ("" without a Content-Type). */
function contentTypeOf(request: Request): string {
  const header = request.headers["content-type"];
  if (header === undefined || header === "") return "";
  return String(header).split(";")[0].trim().toLowerCase();
}

export interface ValidatedRequest {
  parameters: RequestParameters;
  errors: ErrorObject[] | null;
}

export function validateParameters(
  contract: OpenAPIBackend,
  operation: Operation,
  request: Request & { body?: unknown },
): ValidatedRequest {
  const { pattern, names, arrays } = shapeOf(operation);
  const path: Record<string, unknown> = {};
  const values = pattern.exec(contract.router.normalizePath(request.path));
  if (values)
    for (let index = 0; index < names.length; index++) path[names[index]] = decodeURIComponent(values[index + 1]);
  const query = contract.router.parseRequestQuery(request) as Record<string, unknown>;
  for (const name of arrays) if (typeof query[name] === "string") query[name] = [query[name]];
  const parameters: RequestParameters = { path, query, header: { ...request.headers }, cookie: {} };
  if (typeof request.body === "object" || contentTypeOf(request) === "application/json")
    parameters.requestBody = request.body;

  let errors: ErrorObject[] | null = null;
  for (const validate of contract.validator.getRequestValidatorsForOperation(operation.operationId as string) ?? []) {
    if (!validate(parameters)) errors = [...(errors ?? []), ...(validate.errors ?? [])];
  }
  return { parameters, errors };
}
