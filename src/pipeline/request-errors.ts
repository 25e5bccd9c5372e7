// A request off the contract becomes one 400 problem with a JSON pointer per offending value:
// Ajv's errors, as openapi-backend reports them, in the words a client reads.
import fs from "node:fs";
import type { ErrorObject } from "ajv";
import { BOUNDED_DATE_MESSAGE, BOUNDED_DATE_TIME_MESSAGE } from "../kernel/bounded-dates.ts";
import { SPEC_PATH } from "../kernel/document.ts";
import { ValidationError, escapePointer, type FieldError } from "../kernel/errors.ts";

/**
 * An example of a value that matches each pattern of the contract, where the schema gives one
 * (`x-pattern-example`): a registrar reads `like 27.0101` more easily than the expression.
 */
export function patternExamples(document: unknown): Map<string, string> {
  const examples = new Map<string, string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node && typeof node === "object") {
      const { pattern, "x-pattern-example": example } = node as Record<string, unknown>;
      if (typeof pattern === "string" && typeof example === "string") examples.set(pattern, example);
      for (const value of Object.values(node)) visit(value);
    }
  };
  visit(document);
  return examples;
}

const PATTERN_EXAMPLES = patternExamples(JSON.parse(fs.readFileSync(SPEC_PATH, "utf8")));

/** Ajv errors become one problem with a JSON pointer per offending value. */
export function requestValidationError(errors: ErrorObject[], more: FieldError[] = []): ValidationError {
  const fieldErrors = [...requestFieldErrors(errors), ...more];
  return ValidationError.of(fieldErrors.length ? fieldErrors : [{ pointer: "", message: "the request is not valid" }]);
}

/** Ajv errors as one field error per offending value. */
export function requestFieldErrors(errors: ErrorObject[]): FieldError[] {
  const specific = errors
    .filter((e) => e.keyword !== "oneOf" && e.keyword !== "anyOf")
    .map((error) => ({ error, field: toFieldError(error) }));
  // A failed oneOf (one object or an array of them) also reports the branch of
  // the wrong shape; keep the errors that point inside the value instead. Compared
  // by the pointers the client reads: a missing member points inside the object.
  const relevant = specific.filter(
    ({ error, field }) =>
      error.keyword !== "type" ||
      !specific.some(({ field: other }) => other !== field && other.pointer.startsWith(`${field.pointer}/`)),
  );
  return dedupe(relevant.map(({ field }) => field));
}

function toFieldError(error: ErrorObject): FieldError {
  // openapi-backend validates {query, path, header, requestBody} as one object.
  let pointer = error.instancePath.replace(/^\/requestBody/, "");
  if (error.keyword === "required") {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    // No body at all: openapi-backend misses its "requestBody" member; body pointers start at the body.
    if (error.instancePath === "" && missing === "requestBody")
      return { pointer: "", message: "a request body is required" };
    pointer += `/${escapePointer(missing)}`;
  }
  if (error.keyword === "additionalProperties")
    pointer += `/${escapePointer((error.params as { additionalProperty: string }).additionalProperty)}`;
  if (pointer.startsWith("/headers/")) pointer = pointer.replace(/^\/headers\//, "/header/");
  return { pointer, message: describe(error) };
}

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not a known field";
    case "enum":
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map(String).join(", ")}`;
    case "format": {
      const { format } = error.params as { format: string };
      if (format === "date") return BOUNDED_DATE_MESSAGE;
      if (format === "date-time") return BOUNDED_DATE_TIME_MESSAGE;
      return error.message ?? "is not valid";
    }
    case "pattern": {
      const { pattern } = error.params as { pattern: string };
      const example = PATTERN_EXAMPLES.get(pattern);
      return `must match the pattern ${pattern}${example ? `, like ${example}` : ""}`;
    }
    default:
      return error.message ?? "is not valid";
  }
}

/** The written form a format expects, with an example (Ajv says only `must match format "date"`). */
/** The values an enum allows. */
function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.pointer}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
