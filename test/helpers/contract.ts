// Checks a real response against the public document: the status must be
// documented for the operation (or fall under `default`), the media type must
// match, and the body and headers must validate. Each response that passes is
// recorded as an (operationId, documented status) pair for the coverage gate.
import { expect } from "chai";
import type { Response } from "supertest";
import type { OpenAPIBackend, Operation } from "openapi-backend";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { loadContract } from "../../src/pipeline/contract.ts";
import { recordContractPair } from "./contract-recorder.ts";

const ready = loadContract();
// openapi-backend validates response bodies against the application/json schema only; this
// validates the body against the schema of the media type actually sent (problem+json, ld+json).
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const bodyValidators = new WeakMap<object, ValidateFunction>();

export async function expectContract(response: Response, expectedStatus?: number): Promise<void> {
  const backend = await ready;
  const request = (response as unknown as { req: { method: string; path: string } }).req;
  const path = new URL(request.path, "http://localhost").pathname;
  if (expectedStatus !== undefined) {
    expect(response.status, `status of ${request.method} ${path}: ${JSON.stringify(response.body)}`).to.equal(
      expectedStatus,
    );
  }
  expect(response.headers["x-request-id"], "X-Request-Id").to.be.a("string").and.not.empty;
  const operation = backend.router.matchOperation({ method: request.method, path, headers: {} } as never);
  if (!operation) return expectProblem(response);

  const status = String(response.status);
  const documentedKey = operation.responses?.[status] ? status : "default";
  const documented = operation.responses?.[documentedKey];
  expect(documented, `${operation.operationId} does not document status ${response.status}`).to.exist;
  expectDocumentedResponse(backend, response, operation, documented as DocumentedResponse);
  // Only a response that passed every check counts towards contract coverage.
  recordContractPair({ operationId: operation.operationId!, status: documentedKey });
}

interface DocumentedResponse {
  content?: Record<string, { schema?: object }>;
  headers?: Record<string, { required?: boolean }>;
}

function expectDocumentedResponse(
  backend: OpenAPIBackend,
  response: Response,
  operation: Operation,
  documented: DocumentedResponse,
): void {
  if (response.status >= 400) expectProblem(response);
  if (response.status === 204) return;
  const mediaTypes = Object.keys(documented.content ?? {});
  const actualType = String(response.headers["content-type"] ?? "").split(";")[0];
  expect(mediaTypes, `${operation.operationId} ${response.status} media type`).to.include(actualType);
  if (actualType.endsWith("json")) {
    const errors = bodyErrors(documented.content?.[actualType]?.schema, response.body);
    expect(errors, `${operation.operationId} ${response.status} body: ${JSON.stringify(errors)}`).to.deep.equal([]);
  }
  // Headers that are present must validate; those marked required must be present.
  const headers = backend.validateResponseHeaders(response.headers, operation, {
    statusCode: response.status,
    setMatchType: "any" as never,
  });
  expect(
    headers.errors ?? [],
    `${operation.operationId} ${response.status} headers: ${JSON.stringify(headers.errors)}`,
  ).to.deep.equal([]);
  const declared = documented.headers ?? {};
  for (const [name, header] of Object.entries(declared)) {
    if (header.required)
      expect(response.headers, `${operation.operationId} ${response.status} must send ${name}`).to.have.property(
        name.toLowerCase(),
      );
  }
}

/** The document is dereferenced, so each media type's schema object compiles on its own (once). */
function bodyErrors(schema: object | undefined, body: unknown): object[] {
  if (!schema) return [];
  let validate = bodyValidators.get(schema);
  if (!validate) bodyValidators.set(schema, (validate = ajv.compile(schema)));
  return validate(body) ? [] : (validate.errors ?? []);
}

export function expectProblem(response: Response, slug?: string): void {
  expect(response.headers["content-type"]).to.match(/^application\/problem\+json/);
  expect(response.body).to.include.keys("type", "title", "status", "detail", "requestId");
  expect(response.body.status).to.equal(response.status);
  expect(response.body.requestId).to.equal(response.headers["x-request-id"]);
  if (slug) expect(response.body.type).to.equal(`https://course-equivalency.org/problems/${slug}`);
}
