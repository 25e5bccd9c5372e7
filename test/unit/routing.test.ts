// Routing follows openapi-backend's rules (its router, indexed once): the pipeline answers 404 and
// 405 from the router's outcome, and lists the methods of a 405 from the document's operations.
import { expect } from "chai";
import { OpenAPIRouter, type OpenAPIBackend, type Request } from "openapi-backend";
import { API_ROOT, allowedMethods, loadContract, loadSpec, routeRequest } from "../../src/pipeline/contract.ts";
import { OperationRouter } from "../../src/pipeline/operation-router.ts";
import type { ProblemError } from "../../src/kernel/errors.ts";

describe("routing", () => {
  let contract: OpenAPIBackend;
  before(async () => {
    contract = await loadContract();
  });

  const outcome = (method: string, path: string) => {
    try {
      return routeRequest(contract, { method, path: `${API_ROOT}${path}`, headers: {} }).operationId;
    } catch (error) {
      const problem = error as ProblemError;
      return `${problem.slug} ${problem.headers.Allow ?? ""}`.trim();
    }
  };

  it("answers 404 for an unknown path, 405 with Allow for a known path's other method, else the operation", () => {
    expect(outcome("get", "/nowhere")).to.equal("not-found");
    expect(outcome("get", "/")).to.equal("not-found");
    expect(outcome("put", "/institutions")).to.equal("method-not-allowed GET");
    expect(outcome("delete", "/equivalencies/eq_1")).to.equal("method-not-allowed GET, PATCH");
    expect(outcome("get", "/equivalencies/eq_1")).to.equal("getEquivalency");
  });

  it("lists the methods the document defines for a path", () => {
    expect(allowedMethods(contract, `${API_ROOT}/equivalencies/eq_1`)).to.deep.equal(["GET", "PATCH"]);
    expect(allowedMethods(contract, `${API_ROOT}/nowhere`)).to.deep.equal([]);
  });

  it("lists, for every path template, every method the document gives it", () => {
    const document = loadSpec();
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      const defined = ["get", "post", "put", "patch", "delete"]
        .filter((method) => method in (item ?? {}))
        .map((m) => m.toUpperCase());
      const concrete = template.replace(/\{[^}]+\}/g, "x_1");
      expect(allowedMethods(contract, `${API_ROOT}${concrete}`), template).to.include.members(defined);
    }
  });
});

describe("OperationRouter (the indexed router the backend uses)", () => {
  const document = loadSpec();
  let backend: OpenAPIBackend;
  before(async () => {
    backend = await loadContract();
  });

  it("replaces openapi-backend's router in the backend and in its validator", () => {
    expect(backend.router).to.be.instanceOf(OperationRouter);
    expect(backend.validator.router).to.equal(backend.router);
  });

  it("matches every request exactly as openapi-backend's own router does", () => {
    const reference = new OpenAPIRouter({ definition: backend.definition, apiRoot: API_ROOT });
    const paths = Object.keys(document.paths ?? {}).flatMap((template) => {
      const concrete = template.replace(/\{[^}]+\}/g, "x_1");
      return [template, concrete, `${concrete}/`, `${concrete}/extra`, `${concrete}.json`, concrete.toUpperCase()];
    });
    const requests = [...paths, "", "/", "/nowhere", "//institutions", "/institutions?limit=1"].flatMap((path) =>
      ["get", "post", "put", "patch", "delete", "HEAD"].flatMap((method) => [
        { method, path: `${API_ROOT}${path}`, headers: {} },
        { method, path: `/api/v1x${path}`, headers: {} },
      ]),
    );
    const outcome = (router: OpenAPIRouter, request: Request) => {
      try {
        return router.matchOperation(request, true).operationId;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(requests.length).to.be.greaterThan(1000);
    for (const request of requests) {
      expect(outcome(backend.router, request), `${request.method} ${request.path}`).to.equal(
        outcome(reference, request),
      );
      expect(backend.router.matchOperation(request)?.operationId).to.equal(
        reference.matchOperation(request)?.operationId,
      );
    }
  });

  it("answers the same operations, by list and by id, as openapi-backend's router", () => {
    const reference = new OpenAPIRouter({ definition: backend.definition, apiRoot: API_ROOT });
    expect(backend.router.getOperations()).to.deep.equal(reference.getOperations());
    for (const operation of reference.getOperations())
      expect(backend.router.getOperation(operation.operationId as string)).to.deep.equal(operation);
    expect(backend.router.getOperation("noSuchOperation")).to.equal(undefined);
  });
});
