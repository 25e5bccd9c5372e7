// Compares the operations of `paths` and of `webhooks`, matched by
// operationId: their parameters, request bodies, responses (statuses, media
// types, headers, schemas) and security. For a webhook the service is the
// sender, so its request (body and headers) is output for clients and its
// responses are input.
import { isDeepStrictEqual } from "node:util";
import type { ChangeLog, Context } from "./changes.ts";
import type { Direction } from "./classify.ts";
import { componentName, isObject, type Json, type Resolver } from "./load.ts";
import type { SchemaComparer } from "./compare-schemas.ts";
import { compareSecurity } from "./compare-security.ts";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface Operation {
  key: string;
  label: string;
  where: string;
  webhook: boolean;
  operation: Json;
  /** Parameters of the path item and the operation, the operation's winning, keyed "in:name". */
  parameters: Map<string, unknown>;
}

export function listOperations(document: Json, resolver: Resolver): Operation[] {
  const operations: Operation[] = [];
  for (const section of ["paths", "webhooks"] as const) {
    const items = isObject(document[section]) ? (document[section] as Json) : {};
    for (const [name, rawItem] of Object.entries(items)) {
      const item = resolver.object(rawItem);
      for (const method of METHODS) {
        if (!isObject(item[method])) continue;
        const operation = item[method] as Json;
        const webhook = section === "webhooks";
        const where = `${method.toUpperCase()} ${webhook ? "webhook " : ""}${name}`;
        const id = typeof operation.operationId === "string" ? operation.operationId : undefined;
        const parameters = new Map<string, unknown>();
        for (const raw of [...asList(item.parameters), ...asList(operation.parameters)]) {
          const parameter = resolver.object(raw);
          parameters.set(
            `${parameter.in}:${parameter.in === "header" ? String(parameter.name).toLowerCase() : parameter.name}`,
            raw,
          );
        }
        operations.push({
          key: id ?? `${section}:${where}`,
          label: id ? `${where} (${id})` : where,
          where,
          webhook,
          operation,
          parameters,
        });
      }
    }
  }
  return operations;
}

const SINGULAR: Record<string, string> = {
  parameters: "parameter",
  requestBodies: "request body",
  responses: "response",
  headers: "header",
};
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const entries = (value: unknown): [string, unknown][] => (isObject(value) ? Object.entries(value) : []);

export class OperationComparer {
  constructor(
    private readonly base: Resolver,
    private readonly head: Resolver,
    private readonly log: ChangeLog,
    private readonly schemas: SchemaComparer,
  ) {}

  compareAll(baseOperations: Operation[], headOperations: Operation[]): void {
    const heads = new Map(headOperations.map((o) => [o.key, o]));
    const bases = new Set(baseOperations.map((o) => o.key));
    for (const before of baseOperations) {
      const after = heads.get(before.key);
      const context = { operation: before.label, location: before.label };
      if (!after)
        this.log.add("operation-removed", context, before.webhook ? "webhook event removed" : "operation removed");
      else this.compareOperation(before, after);
    }
    for (const after of headOperations) {
      if (!bases.has(after.key))
        this.log.add(
          "operation-added",
          { operation: after.label, location: after.label },
          after.webhook ? "webhook event added" : "operation added",
        );
    }
  }

  private compareOperation(before: Operation, after: Operation): void {
    const context: Context = { operation: after.label, location: after.label };
    if (before.where !== after.where) this.log.add("operation-moved", context, `moved from ${before.where}`);
    const [was, is] = [before.operation, after.operation];
    if (Boolean(was.deprecated) !== Boolean(is.deprecated))
      this.log.add("deprecated", context, is.deprecated ? "now deprecated" : "no longer deprecated");
    for (const name of ["summary", "description", "tags"])
      if (!isDeepStrictEqual(was[name], is[name])) this.log.add("documentation", context, `${name} changed`);
    const sent: Direction = after.webhook ? "output" : "input";
    const answered: Direction = after.webhook ? "input" : "output";
    this.compareParameters(before.parameters, after.parameters, { ...context, direction: sent });
    this.compareBody(was.requestBody, is.requestBody, { ...context, direction: sent });
    this.compareResponses(was.responses, is.responses, { ...context, direction: answered });
    // An operation without its own `security` follows the document's, which is compared once.
    if (was.security !== undefined || is.security !== undefined) {
      compareSecurity(
        this.log,
        context,
        was.security ?? this.base.document.security,
        is.security ?? this.head.document.security,
      );
    }
  }

  private compareParameters(before: Map<string, unknown>, after: Map<string, unknown>, context: Context): void {
    for (const [key, rawBefore] of before) {
      const [where, name] = key.split(/:(.*)/s);
      const at = { ...context, location: `${context.location} › ${where} parameter ${name}` };
      const rawAfter = after.get(key);
      if (rawAfter === undefined) {
        this.log.add("parameter-removed", at, "parameter removed");
        continue;
      }
      this.withinSharedComponent(rawBefore, rawAfter, at, (inside) => {
        const [was, is] = [this.base.object(rawBefore), this.head.object(rawAfter)];
        if (Boolean(was.required) !== Boolean(is.required))
          this.log.add(
            is.required ? "parameter-now-required" : "parameter-now-optional",
            inside,
            is.required ? "now required" : "now optional",
          );
        for (const name of ["style", "explode", "allowReserved", "content"]) {
          if (!isDeepStrictEqual(was[name], is[name]))
            this.log.add(
              "parameter-serialization-changed",
              inside,
              `${name} ${JSON.stringify(was[name]) ?? "default"} → ${JSON.stringify(is[name]) ?? "default"}`,
            );
        }
        if (Boolean(was.deprecated) !== Boolean(is.deprecated))
          this.log.add("deprecated", inside, is.deprecated ? "now deprecated" : "no longer deprecated");
        this.compareDocumentation(was, is, inside);
        this.schemas.compare(was.schema, is.schema, inside);
      });
    }
    for (const [key, rawAfter] of after) {
      if (before.has(key)) continue;
      const [where, name] = key.split(/:(.*)/s);
      const required = this.head.object(rawAfter).required === true;
      this.log.add(
        required ? "parameter-added-required" : "parameter-added-optional",
        { ...context, location: `${context.location} › ${where} parameter ${name}` },
        `${required ? "required" : "optional"} parameter added`,
      );
    }
  }

  private compareBody(rawBefore: unknown, rawAfter: unknown, context: Context): void {
    const at = { ...context, location: `${context.location} › request body` };
    if (rawBefore === undefined && rawAfter === undefined) return;
    if (rawAfter === undefined) return this.log.add("body-removed", at, "request body removed");
    if (rawBefore === undefined) {
      const required = this.head.object(rawAfter).required === true;
      return this.log.add(
        required ? "body-added-required" : "body-added-optional",
        at,
        `${required ? "required" : "optional"} request body added`,
      );
    }
    this.withinSharedComponent(rawBefore, rawAfter, at, (inside) => {
      const [was, is] = [this.base.object(rawBefore), this.head.object(rawAfter)];
      if (Boolean(was.required) !== Boolean(is.required))
        this.log.add(
          is.required ? "body-now-required" : "body-now-optional",
          inside,
          is.required ? "now required" : "now optional",
        );
      this.compareDocumentation(was, is, inside);
      this.compareContent(was.content, is.content, inside);
    });
  }

  private compareResponses(rawBefore: unknown, rawAfter: unknown, context: Context): void {
    const after = new Map(entries(rawAfter));
    for (const [status, responseBefore] of entries(rawBefore)) {
      const at = { ...context, location: `${context.location} › ${status}` };
      const responseAfter = after.get(status);
      if (responseAfter === undefined) {
        this.log.add("response-removed", at, "response removed");
        continue;
      }
      this.withinSharedComponent(responseBefore, responseAfter, at, (inside) => {
        const [was, is] = [this.base.object(responseBefore), this.head.object(responseAfter)];
        this.compareDocumentation(was, is, inside);
        this.compareHeaders(was.headers, is.headers, inside);
        this.compareContent(was.content, is.content, inside);
      });
    }
    const before = new Set(entries(rawBefore).map(([status]) => status));
    for (const status of after.keys())
      if (!before.has(status))
        this.log.add("response-added", { ...context, location: `${context.location} › ${status}` }, "response added");
  }

  private compareHeaders(rawBefore: unknown, rawAfter: unknown, context: Context): void {
    const lower = (value: unknown) =>
      new Map(entries(value).map(([name, header]) => [name.toLowerCase(), { name, header }]));
    const [before, after] = [lower(rawBefore), lower(rawAfter)];
    for (const [key, { name, header }] of before) {
      const at = { ...context, location: `${context.location} header ${name}` };
      const found = after.get(key);
      if (!found) {
        this.log.add("header-removed", at, "header removed");
        continue;
      }
      this.withinSharedComponent(header, found.header, at, (inside) => {
        const [was, is] = [this.base.object(header), this.head.object(found.header)];
        if (Boolean(was.required) !== Boolean(is.required))
          this.log.add(
            is.required ? "header-now-required" : "header-now-optional",
            inside,
            is.required ? "now required" : "now optional",
          );
        this.compareDocumentation(was, is, inside);
        this.schemas.compare(was.schema, is.schema, inside);
      });
    }
    for (const [key, { name }] of after)
      if (!before.has(key))
        this.log.add("header-added", { ...context, location: `${context.location} header ${name}` }, "header added");
  }

  private compareContent(rawBefore: unknown, rawAfter: unknown, context: Context): void {
    const after = new Map(entries(rawAfter));
    for (const [mediaType, mediaBefore] of entries(rawBefore)) {
      const at = { ...context, location: `${context.location} (${mediaType})` };
      const mediaAfter = after.get(mediaType);
      if (mediaAfter === undefined) {
        this.log.add("media-type-removed", at, `media type ${mediaType} removed`);
        continue;
      }
      const [was, is] = [this.base.object(mediaBefore), this.head.object(mediaAfter)];
      if (!isDeepStrictEqual(was.example, is.example) || !isDeepStrictEqual(was.examples, is.examples))
        this.log.add("documentation", at, "examples changed");
      this.schemas.compare(was.schema, is.schema, at);
    }
    const before = new Set(entries(rawBefore).map(([mediaType]) => mediaType));
    for (const mediaType of after.keys())
      if (!before.has(mediaType))
        this.log.add(
          "media-type-added",
          { ...context, location: `${context.location} (${mediaType})` },
          `media type ${mediaType} added`,
        );
  }

  private compareDocumentation(was: Json, is: Json, context: Context): void {
    if (!isDeepStrictEqual(was.description, is.description))
      this.log.add("documentation", context, "description changed");
    if (!isDeepStrictEqual(was.example, is.example) || !isDeepStrictEqual(was.examples, is.examples))
      this.log.add("documentation", context, "examples changed");
  }

  /**
   * A parameter, body, response or header that is the same `$ref` on both
   * sides is compared once, at its component, for all operations using it.
   */
  private withinSharedComponent(
    rawBefore: unknown,
    rawAfter: unknown,
    context: Context,
    compare: (context: Context) => void,
  ): void {
    const baseRef = this.base.resolve(rawBefore).ref;
    if (!baseRef || baseRef !== this.head.resolve(rawAfter).ref) return compare(context);
    const kind = baseRef.split("/").slice(-2, -1)[0];
    const inside = { ...context, location: `${SINGULAR[kind] ?? kind} ${componentName(baseRef)}` };
    this.log.withinComponent(baseRef, inside, () => compare(inside));
  }
}
