// Checks a real response against the public document: the status must be
// documented for the operation (or fall under `default`), the media type must
// match, and the body and headers must validate.
import { expect } from "chai";
import type { Response } from "supertest";
import { createBackend } from "../../src/api.ts";

const backend = createBackend(() => undefined);
const ready = backend.init();

export async function expectContract(response: Response, expectedStatus?: number): Promise<void> {
  await ready;
  const request = (response as unknown as { req: { method: string; path: string } }).req;
  const path = new URL(request.path, "http://localhost").pathname;
  if (expectedStatus !== undefined) {
    expect(response.status, `status of ${request.method} ${path}: ${JSON.stringify(response.body)}`).to.equal(expectedStatus);
  }
  expect(response.headers["x-request-id"], "X-Request-Id").to.be.a("string").and.not.empty;
  const operation = backend.router.matchOperation({ method: request.method, path, headers: {} } as never);
  if (!operation) return expectProblem(response);

  const documented = operation.responses?.[String(response.status)] ?? operation.responses?.default;
  expect(documented, `${operation.operationId} does not document status ${response.status}`).to.exist;
  if (response.status >= 400) expectProblem(response);
  if (response.status === 204) return;
  const mediaTypes = Object.keys((documented as { content?: object }).content ?? {});
  const actualType = String(response.headers["content-type"] ?? "").split(";")[0];
  expect(mediaTypes, `${operation.operationId} ${response.status} media type`).to.include(actualType);
  if (actualType.endsWith("json")) {
    const result = backend.validateResponse(response.body, operation, response.status);
    expect(result.errors ?? [], `${operation.operationId} ${response.status} body: ${JSON.stringify(result.errors)}`).to.deep.equal([]);
  }
  // Headers that are present must validate; those marked required must be present.
  const headers = backend.validateResponseHeaders(response.headers, operation, { statusCode: response.status, setMatchType: "any" as never });
  expect(headers.errors ?? [], `${operation.operationId} ${response.status} headers: ${JSON.stringify(headers.errors)}`).to.deep.equal([]);
  const declared = (documented as { headers?: Record<string, { required?: boolean }> }).headers ?? {};
  for (const [name, header] of Object.entries(declared)) {
    if (header.required) expect(response.headers, `${operation.operationId} ${response.status} must send ${name}`).to.have.property(name.toLowerCase());
  }
}

export function expectProblem(response: Response, slug?: string): void {
  expect(response.headers["content-type"]).to.match(/^application\/problem\+json/);
  expect(response.body).to.include.keys("type", "title", "status", "detail", "requestId");
  expect(response.body.status).to.equal(response.status);
  expect(response.body.requestId).to.equal(response.headers["x-request-id"]);
  if (slug) expect(response.body.type).to.equal(`https://course-equivalency.org/problems/${slug}`);
}
