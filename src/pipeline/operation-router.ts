// openapi-backend's router, with its answers computed once. The library's
// router flattens every path of the document into a new list of operations on
// each call (with lodash), and matchOperation calls it twice per request and
// compiles one regular expression per path template each time; with ~70
// operations that was a quarter of the CPU a read by id costs (profile in
// docs/benchmarks.md). The document does not change once the backend is
// initialised, so the flattened operations, the exact paths and the compiled
// templates are built once, here, and matching keeps the library's rules:
// an exact path first, then templates by specificity (the longest literal
// part), the method last, 404 before 405. test/unit/routing.test.ts checks
// that both routers give the same answer for every path of the document.
import { OpenAPIRouter, type Operation, type Request } from "openapi-backend";

interface Template {
  pattern: RegExp;
  /** The template's length without its {parameters}: the library's specificity. */
  literalLength: number;
  operations: Map<string, Operation>;
}

interface Index {
  operations: Operation[];
  byId: Map<string, Operation>;
  exact: Map<string, Map<string, Operation>>;
  /** Most specific first. */
  templates: Template[];
}

/** `/equivalencies/{id}/versions` as `^/equivalencies/[^/]+/versions$`. */
export function templatePattern(template: string): RegExp {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${template
      .replace(/\{[^}]+\}/g, "\0")
      .split("\0")
      .map(literal)
      .join("[^/]+")}$`,
  );
}

export class OperationRouter extends OpenAPIRouter {
  private index?: Index;
  private indexedDefinition?: unknown;

  private indexed(): Index {
    if (this.index && this.indexedDefinition === this.definition) return this.index;
    const operations = super.getOperations();
    const byPath = new Map<string, Map<string, Operation>>();
    for (const operation of operations) {
      const methods = byPath.get(operation.path) ?? new Map<string, Operation>();
      methods.set(operation.method, operation);
      byPath.set(operation.path, methods);
    }
    const templates = [...byPath]
      .map(([path, methods], order) => ({
        pattern: templatePattern(path),
        literalLength: path.replace(/\{.*?\}/g, "").length,
        operations: methods,
        order,
      }))
      // Stable: among templates of the same specificity, the document's order (as lodash's orderBy).
      .sort((a, b) => b.literalLength - a.literalLength || a.order - b.order);
    this.index = {
      operations,
      byId: new Map(operations.filter((o) => o.operationId).map((o) => [o.operationId as string, o])),
      exact: byPath,
      templates,
    };
    this.indexedDefinition = this.definition;
    return this.index;
  }

  /** The library's segment-boundary rule (its own method is private). */
  private underApiRoot(path: string): boolean {
    if (this.apiRoot === "/") return path.startsWith("/");
    const root = this.apiRoot.replace(/\/$/, "");
    return path === root || path.startsWith(`${root}/`);
  }

  override getOperations(): Operation[] {
    return this.indexed().operations;
  }

  override getOperation(operationId: string): Operation | undefined {
    return this.indexed().byId.get(operationId);
  }

  override matchOperation(req: Request): Operation | undefined;
  override matchOperation(req: Request, strict: boolean): Operation;
  override matchOperation(req: Request, strict?: boolean): Operation | undefined {
    const fail = (message: string) => {
      if (strict) throw new Error(message);
      return undefined;
    };
    const normalized = this.normalizeRequest(req);
    if (!this.underApiRoot(normalized.path)) return fail("404-notFound: no route matches request");
    const path = this.normalizePath(normalized.path);
    const { exact, templates } = this.indexed();
    const exactMatch = exact.get(path)?.get(normalized.method);
    if (exactMatch) return exactMatch;
    const matching = templates.filter((template) => template.pattern.test(path));
    if (!matching.length) return fail("404-notFound: no route matches request");
    for (const template of matching) {
      const operation = template.operations.get(normalized.method);
      if (operation) return operation;
    }
    return fail("405-methodNotAllowed: this method is not registered for the route");
  }
}
