// The contract at run time: openapi-backend, over generated/openapi.json, finds the operation a
// request is for (its router, indexed once: operation-router.ts) and validates requests and, in
// tests, responses (Ajv 2020 with formats). The pipeline (pipeline.ts) calls it step by step.
import fs from "node:fs";
import { OpenAPIBackend, type Document, type Operation, type Request } from "openapi-backend";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { OperationRouter, templatePattern } from "./operation-router.ts";
import { isBoundedDate, isBoundedDateTime } from "../kernel/bounded-dates.ts";
import { ProblemError } from "../kernel/errors.ts";
import { API_ROOT, SPEC_PATH } from "../kernel/document.ts";

export { API_ROOT, SPEC_PATH };

export function loadSpec(): Document {
  return JSON.parse(fs.readFileSync(SPEC_PATH, "utf8")) as Document;
}

// openapi-backend checks documents against the OpenAPI 3.0 meta-schema, which a
// 3.1 document fails; Redocly lints the document in CI instead.
// Its router is swapped for one that indexes the document once (operation-router.ts).
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
  // Dates the databases and `new Date` hold, so a value the format lets through is never a 500.
  ajv.addFormat("date", { type: "string", validate: isBoundedDate });
  ajv.addFormat("date-time", { type: "string", validate: isBoundedDateTime });
  return ajv as never;
}

let initialised: Promise<OpenAPIBackend> | null = null;

/**
 * openapi-backend over the document, initialised: its router and validator are ready. The document
 * does not change while the process runs and the contract holds no per-app state, so one is built
 * per process: compiling every operation's validators takes seconds, and the tests build hundreds
 * of apps.
 */
export function loadContract(): Promise<OpenAPIBackend> {
  initialised ??= initialiseContract().catch((error: unknown) => {
    initialised = null;
    throw error;
  });
  return initialised;
}

async function initialiseContract(): Promise<OpenAPIBackend> {
  const backend = new OpenAPI31Backend({
    definition: loadSpec(),
    apiRoot: API_ROOT,
    strict: true,
    coerceTypes: true,
    customizeAjv: createAjv,
  });
  await backend.init();
  return backend;
}

/** The operation a request is for; the 404 or 405 problem when there is none. */
export function routeRequest(contract: OpenAPIBackend, request: Request): Operation {
  try {
    return contract.router.matchOperation(request, true);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("405")) throw unknownPath(request.path);
    const allowed = allowedMethods(contract, request.path);
    throw new ProblemError(
      "method-not-allowed",
      `${request.method.toUpperCase()} is not allowed on ${request.path}; use ${allowed.join(", ")}.`,
      { headers: { Allow: allowed.join(", ") }, extensions: { allowed } },
    );
  }
}

/**
 * The methods the document defines for a path, as openapi-backend's matcher
 * would find them (exact path, or a template of the same shape). Asked only when
 * the router has already decided a request is 405.
 */
export function allowedMethods(contract: OpenAPIBackend, requestPath: string): string[] {
  const path = contract.router.normalizePath(requestPath);
  const methods = ["get", "post", "put", "patch", "delete"];
  const onPath = contract.router
    .getOperations()
    .filter((operation) => operation.path === path || templatePattern(operation.path).test(path));
  return methods
    .filter((method) => onPath.some((operation) => operation.method === method))
    .map((m) => m.toUpperCase());
}

export function unknownPath(requestPath: string): ProblemError {
  return new ProblemError("not-found", `No resource lives at ${requestPath}.`);
}
