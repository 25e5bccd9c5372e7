// The operations of the document as tests need them: method, path template,
// documented response keys and success media types, scopes, parameters with their schemas resolved,
// and the first example of the JSON request body.
import { loadSpec } from "../../src/pipeline/contract.ts";
import { operationRules } from "../../src/auth/authorize.ts";
import type { Operation } from "openapi-backend";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
}

export interface SpecParameter {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  schema: Schema;
}

export interface SpecOperation {
  operationId: string;
  method: (typeof METHODS)[number];
  /** As written in the document, relative to the API root: "/courses/{id}". */
  path: string;
  /** Response keys in document order: "200", "404", "default". */
  responses: string[];
  /** Media types of its success responses; empty when it answers without content (204). */
  successTypes: string[];
  scopes: string[];
  parameters: SpecParameter[];
  hasBody: boolean;
  /** The media type of its request body (`application/json`, or `text/csv` for a file's text). */
  bodyMediaType?: string;
  exampleBody?: unknown;
  /** `x-credential-kinds`: the only credential kinds the operation serves (members, audit: users). */
  credentialKinds?: string[];
}

type Node = Record<string, unknown>;
export type Document = { paths?: Record<string, Node> } & Node;

/** Follows local $refs ("#/components/...") until it reaches a value. */
function resolve<T>(document: Document, node: unknown): T {
  let current = node as Node;
  while (typeof current?.$ref === "string") {
    current = (current.$ref as string)
      .slice(2)
      .split("/")
      .reduce((at: Node, key) => at[key] as Node, document);
  }
  return current as T;
}

function successTypes(document: Document, responses: object): string[] {
  const types = Object.entries(responses)
    .filter(([status]) => status.startsWith("2"))
    .flatMap(([, response]) => Object.keys(resolve<{ content?: object }>(document, response).content ?? {}));
  return [...new Set(types)];
}

export function specOperations(document: Document = loadSpec() as Document): SpecOperation[] {
  const operations: SpecOperation[] = [];
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = pathItem[method] as (Operation & Node) | undefined;
      if (!operation?.operationId) continue;
      const parameters = [
        ...((pathItem.parameters as unknown[]) ?? []),
        ...((operation.parameters as unknown[]) ?? []),
      ].map((p) => {
        const parameter = resolve<SpecParameter>(document, p);
        return { ...parameter, schema: resolve<Schema>(document, parameter.schema ?? {}) };
      });
      const content = resolve<{ content?: Record<string, { examples?: Record<string, unknown> }> }>(
        document,
        operation.requestBody ?? {},
      ).content;
      const bodyMediaType = Object.keys(content ?? {})[0];
      const firstExample = Object.values(content?.[bodyMediaType]?.examples ?? {})[0];
      operations.push({
        operationId: operation.operationId,
        method,
        path,
        responses: Object.keys(operation.responses ?? {}),
        successTypes: successTypes(document, operation.responses ?? {}),
        scopes: operationRules(operation as never).scopes,
        parameters,
        hasBody: Boolean(operation.requestBody),
        bodyMediaType,
        exampleBody:
          firstExample === undefined ? undefined : resolve<{ value?: unknown }>(document, firstExample).value,
        credentialKinds: operation["x-credential-kinds"] as string[] | undefined,
      });
    }
  }
  return operations;
}
