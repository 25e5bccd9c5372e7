// The precompiled router (src/api.ts) must route exactly as openapi-backend's
// own matcher does: the same operation for every path the document defines,
// and the same 404 or 405 outcome for everything else.
import { expect } from "chai";
import { OpenAPIRouter, type Document } from "openapi-backend";
import { API_ROOT, allowedMethods, createBackend, loadSpec } from "../../src/api.ts";

const METHODS = ["get", "post", "put", "patch", "delete"];

describe("routing", () => {
  const document = loadSpec();
  const backend = createBackend(() => undefined);
  const library = new OpenAPIRouter({ definition: document as Document, apiRoot: API_ROOT });
  before(() => backend.init());

  const templates = Object.keys(document.paths ?? {});
  const concretePaths = templates.flatMap((template) => [
    template.replace(/\{[^}]+\}/g, "x_1"),
    template.replace(/\{[^}]+\}/g, "versions"),
    `${template.replace(/\{[^}]+\}/g, "eq_01")}/`,
  ]);
  const otherPaths = ["/", "/nothing", "/equivalencies/a/b/c", "/courses/x/versions", "//institutions", "/institutions/x/y"];

  it("matches the operation the library matches, for every method on every path", () => {
    let matched = 0;
    for (const path of [...concretePaths, ...otherPaths]) {
      for (const method of METHODS) {
        const request = { method, path: `${API_ROOT}${path}?limit=5`, headers: {} } as never;
        const ours = backend.router.matchOperation(request)?.operationId;
        expect(ours, `${method.toUpperCase()} ${path}`).to.equal(library.matchOperation(request)?.operationId);
        if (ours) matched += 1;
      }
    }
    expect(matched, "requests that name an operation").to.be.at.least(templates.length * 3);
  });

  it("answers the library's 404 and 405 outcomes in strict mode", () => {
    const strictOutcome = (router: { matchOperation(request: never, strict: true): unknown }, method: string, path: string) => {
      try {
        return (router.matchOperation({ method, path: `${API_ROOT}${path}`, headers: {} } as never, true) as { operationId: string }).operationId;
      } catch (error) {
        return (error as Error).message.split(":")[0];
      }
    };
    const cases: [string, string, string][] = [
      ["get", "/nowhere", "404-notFound"],
      ["put", "/institutions", "405-methodNotAllowed"],
      ["delete", "/equivalencies/eq_1", "405-methodNotAllowed"],
      ["get", "/equivalencies/eq_1", "getEquivalency"],
    ];
    for (const [method, path, expected] of cases) {
      expect(strictOutcome(backend.router as never, method, path), `${method} ${path}`).to.equal(expected);
      expect(strictOutcome(library as never, method, path), `${method} ${path} (library)`).to.equal(expected);
    }
  });

  it("still lists the allowed methods of a known path", () => {
    expect(allowedMethods(backend, `${API_ROOT}/equivalencies/eq_1`)).to.deep.equal(["GET", "PATCH"]);
    expect(allowedMethods(backend, `${API_ROOT}/nowhere`)).to.deep.equal([]);
  });
});
