// Routing is openapi-backend's own: the app answers 404 and 405 from its
// notFound and methodNotAllowed hooks, and lists the methods of a 405 from the
// document's operations.
import { expect } from "chai";
import { API_ROOT, allowedMethods, createBackend, loadSpec } from "../../src/api.ts";

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
