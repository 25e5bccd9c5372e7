// Ajv's type coercion reads an integer parameter with Number(), which also takes
// "0x10", "1e1", "+5", " 5" and "5.0", and rounds beyond 2^53 ("9007199254740993"
// would be served as ...992; "1e20" overflowed the database as a 500). The
// contract's integers are written in decimal digits and are safe integers:
// anything else is refused here, with a pointer at the parameter, before validation.
import type { Operation } from "openapi-backend";
import { ValidationError, escapePointer, type FieldError } from "../kernel/errors.ts";
import { pathParameterSegments } from "./path-encoding.ts";

const DECIMAL = /^-?[0-9]+$/;

interface IntegerParameter {
  name: string;
  in: "query" | "path";
}

/** Operations are the router's, built once: their integer parameters are found once too. */
const integersOf = new WeakMap<Operation, IntegerParameter[]>();

function integerParameters(operation: Operation): IntegerParameter[] {
  let found = integersOf.get(operation);
  if (!found) {
    found = [];
    for (const parameter of operation.parameters ?? []) {
      if ("$ref" in parameter || !isIntegerSchema(parameter.schema)) continue;
      if (parameter.in === "query" || parameter.in === "path") found.push({ name: parameter.name, in: parameter.in });
    }
    integersOf.set(operation, found);
  }
  return found;
}

/** `path` is the request's path below the API root, `querystring` its raw query (without "?"). */
export function rejectNonDecimalIntegers(operation: Operation, path: string, querystring: string): void {
  const integers = integerParameters(operation);
  if (integers.length === 0) return;
  const query = querystring === "" ? null : new URLSearchParams(querystring);
  const segments = integers.some((parameter) => parameter.in === "path")
    ? pathParameterSegments(operation.path, path)
    : null;
  const errors: FieldError[] = [];
  for (const parameter of integers) {
    let values: string[] = [];
    if (parameter.in === "query") values = query ? query.getAll(parameter.name) : [];
    else if (segments?.has(parameter.name)) values = [decodeURIComponent(segments.get(parameter.name)!)];
    const message = values.map(flaw).find((found) => found !== undefined);
    if (message) errors.push({ pointer: `/${parameter.in}/${escapePointer(parameter.name)}`, message });
  }
  if (errors.length) throw ValidationError.of(errors);
}

function isIntegerSchema(schema: unknown): boolean {
  const type = (schema as { type?: unknown } | undefined)?.type;
  return type === "integer" || (Array.isArray(type) && type.includes("integer") && !type.includes("number"));
}

function flaw(text: string): string | undefined {
  if (!DECIMAL.test(text)) return "must be an integer written in decimal digits";
  if (!Number.isSafeInteger(Number(text)))
    return `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
  return undefined;
}
