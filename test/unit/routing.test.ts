// Routing follows openapi-backend's rules (its router, indexed once): the app answers 404 and 405 from its
// notFound and methodNotAllowed hooks, and lists the methods of a 405 from the
// document's operations.
import { expect } from "chai";
import { OpenAPIRouter, type Request } from "openapi-backend";
import { API_ROOT, allowedMethods, createBackend, loadSpec } from "../../src/pipeline/contract.ts";
import { OperationRouter } from "../../src/pipeline/operation-router.ts";

describe("routing", () => {
  const outcomes: string[] = [];
  const record = (outcome: string) => (context: { operation?: { operationId?: string } }) => {
    outcomes.push(outcome === "operation" ? (context.operation?.operationId ?? "none") : outcome);
    return { status: 200 };
  };
  const backend = createBackend(record("notImplemented") as never, {
    notFound: record("notFound") as never,
    methodNotAllowed: record("methodNotAllowed") as never,
    // Also called, without an operation, before notFound and methodNotAllowed.
    postRoutingHandler: ((context: { operation?: unknown }) =>
      context.operation ? record("operation")(context as never) : undefined) as never,
  });
  before(() => backend.init());

  it("answers the library's 404 and 405 outcomes through its hooks", async () => {
    const cases: [string, string, string][] = [
      ["get", "/nowhere", "notFound"],
      ["get", "/", "notFound"],
      ["put", "/institutions", "methodNotAllowed"],
      ["delete", "/equivalencies/eq_1", "methodNotAllowed"],
      ["get", "/equivalencies/eq_1", "getEquivalency"],
    ];
    for (const [method, path, expected] of cases) {
      outcomes.length = 0;
      await backend.handleRequest({ method, path: `${API_ROOT}${path}`, headers: {} } as never, {
        state: { credential: {} },
      });
      expect(outcomes[0], `${method} ${path}`).to.equal(expected);
    }
  });

  it("lists the methods the document defines for a path", () => {
    expect(allowedMethods(backend, `${API_ROOT}/equivalencies/eq_1`)).to.deep.equal(["GET", "PATCH"]);
    expect(allowedMethods(backend, `${API_ROOT}/nowhere`)).to.deep.equal([]);
  });

  it("lists, for every path template, every method the document gives it", () => {
    const document = loadSpec();
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      const defined = ["get", "post", "put", "patch", "delete"]
        .filter((method) => method in (item ?? {}))
        .map((m) => m.toUpperCase());
      const concrete = template.replace(/\{[^}]+\}/g, "x_1");
      expect(allowedMethods(backend, `${API_ROOT}${concrete}`), template).to.include.members(defined);
    }
  });
});

describe("OperationRouter (the indexed router the backend uses)", () => {
  const document = loadSpec();
  const backend = createBackend((() => ({ status: 200 })) as never);
  before(() => backend.init());

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
