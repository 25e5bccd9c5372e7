// The contract at run time: openapi-backend routes requests by operationId and
// validates them (Ajv 2020 with formats) against generated/openapi.json.
import fs from "node:fs";
import { OpenAPIBackend, type Context as BackendContext, type Document, type Operation } from "openapi-backend";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ErrorObject } from "ajv";
import { OperationRouter, templatePattern } from "./operation-router.ts";
import { ProblemError, ValidationError, escapePointer, type FieldError } from "../kernel/errors.ts";
import { projectPath } from "../kernel/project-root.ts";

export const SPEC_PATH = projectPath("generated", "openapi.json");
export const API_ROOT = "/api/v1";

export function loadSpec(): Document {
  return JSON.parse(fs.readFileSync(SPEC_PATH, "utf8")) as Document;
}

// openapi-backend checks documents against the OpenAPI 3.0 meta-schema, which a
// 3.1 document fails; Redocly lints the document in CI instead.
// Its router is swapped for one that indexes the document once (src/http/operation-router.ts).
class OpenAPI31Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.definition;
  }

  override async init() {
    await super.init();
    const router = new OperationRouter({ definition: this.definition, apiRoot: this.apiRoot });
    this.router = router;
    if (this.validator) this.validator.router = router;
    return this;
  }
}

function createAjv(_original: unknown, options: object) {
  const ajv = new Ajv2020({ ...options, strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv as never;
}

export type Dispatch = (context: BackendContext, ...args: unknown[]) => unknown;

/** openapi-backend's hooks the request pipeline (app.ts) fills in; see its handleRequest for the order. */
export interface PipelineHooks {
  /** After a successful match, before security and validation. */
  postRoutingHandler?: Dispatch;
  notFound?: Dispatch;
  methodNotAllowed?: Dispatch;
  /** Sees every handler result; what it returns is the response. */
  postResponseHandler?: Dispatch;
  /**
   * A request off the contract: throws the 400. Without it, the schema errors
   * alone; the pipeline adds the reference errors of a batch (one pass, one problem).
   */
  validationFail?: Dispatch;
}

export function createBackend(dispatch: Dispatch, hooks: PipelineHooks = {}): OpenAPIBackend {
  const backend = new OpenAPI31Backend({
    definition: loadSpec(),
    apiRoot: API_ROOT,
    strict: true,
    coerceTypes: true,
    customizeAjv: createAjv,
    handlers: {
      ...hooks,
      validationFail: (context: BackendContext, ...args: unknown[]) => {
        if (hooks.validationFail) return hooks.validationFail(context, ...args);
        throw requestValidationError(context.validation.errors ?? []);
      },
      notImplemented: dispatch,
    },
  });
  // Credentials are checked before the body is read (see app.ts); these tell
  // openapi-backend the outcome, for either scheme the operation accepts.
  const authenticated = (_context: BackendContext, ctx: { state?: { credential?: unknown } }) =>
    Boolean(ctx?.state?.credential);
  backend.registerSecurityHandler("ApiKeyAuth", authenticated);
  backend.registerSecurityHandler("OAuth2", authenticated);
  return backend;
}

/** Ajv errors become one problem with a JSON pointer per offending value. */
export function requestValidationError(errors: ErrorObject[], more: FieldError[] = []): ValidationError {
  const fieldErrors = [...requestFieldErrors(errors), ...more];
  return ValidationError.of(fieldErrors.length ? fieldErrors : [{ pointer: "", message: "the request is not valid" }]);
}

/** Ajv errors as one field error per offending value. */
export function requestFieldErrors(errors: ErrorObject[]): FieldError[] {
  const specific = errors.filter((e) => e.keyword !== "oneOf" && e.keyword !== "anyOf");
  // A failed oneOf (one object or an array of them) also reports the branch of
  // the wrong shape; keep the errors that point inside the value instead.
  const relevant = specific.filter(
    (e) =>
      e.keyword !== "type" ||
      !specific.some((other) => other !== e && other.instancePath.startsWith(`${e.instancePath}/`)),
  );
  return dedupe(relevant.map(toFieldError));
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
    case "pattern":
      return `must match the pattern ${(error.params as { pattern: string }).pattern}`;
    default:
      return error.message ?? "is not valid";
  }
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.pointer}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The methods the document defines for a path, as openapi-backend's matcher
 * would find them (exact path, or a template of the same shape). Asked only when
 * the library has already decided a request is 405.
 */
export function allowedMethods(backend: OpenAPIBackend, requestPath: string): string[] {
  const path = backend.router.normalizePath(requestPath);
  const methods = ["get", "post", "put", "patch", "delete"];
  const onPath = backend.router
    .getOperations()
    .filter((operation) => operation.path === path || templatePattern(operation.path).test(path));
  return methods
    .filter((method) => onPath.some((operation) => operation.method === method))
    .map((m) => m.toUpperCase());
}

export function operationScopes(operation: Operation): string[] {
  const requirements = (operation.security ?? []) as Record<string, string[]>[];
  return [...new Set(requirements.flatMap((r) => r.OAuth2 ?? []))];
}

export function unknownPath(requestPath: string): ProblemError {
  return new ProblemError("not-found", `No resource lives at ${requestPath}.`);
}
