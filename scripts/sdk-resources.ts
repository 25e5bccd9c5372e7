// The SDK's resource methods, one for each operation of openapi.yaml. scripts/generate.ts writes
// them into the fenced region of sdk/src/resources.ts; the helpers they call (body, record,
// nothing, page) stay hand-written there. An operation becomes a method this way:
// - group: the first segment of its path in camelCase (`/audit-events` → `auditEvents`),
//   documented by the description of the operation's tag;
// - name: on the collection or one of its items, the verb that starts the operationId (`list`,
//   `get`, `create`, `upsert`, `revoke`…); deeper, the last literal segment of the path
//   (`/webhooks/{id}/rotate-secret` → `rotateSecret`), made singular when an id follows it
//   (`/equivalencies/{id}/versions/{version}` → `version`); SDK_EXCEPTIONS names the rest;
// - arguments: the path parameters in path order; then the request body (a body without a schema
//   of its own and with one member is taken as that member); then, for a GET, its query, and
//   for other methods an options object of its header parameters (`Idempotency-Key` →
//   `idempotencyKey`) and query parameters;
// - answer: nothing for 204; the text for a download offered in a non-JSON format; a ListRequest
//   for a page (`data` array beside `pagination`); the record for a `{ data }` envelope;
//   otherwise the body.
import { operationsOf, replaceFenced } from "./generated-lists.ts";

interface Ref {
  $ref?: string;
}
interface Schema extends Ref {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
}
interface Parameter extends Ref {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
type Content = Record<string, { schema?: Schema }>;
interface Operation {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: Ref & { required?: boolean; content?: Content };
  responses: Record<string, Ref & { content?: Content }>;
}
type Method = "get" | "put" | "post" | "delete" | "patch";
type PathItem = { parameters?: Parameter[] } & { [method in Method]?: Operation };
/** The parts of openapi.yaml that the methods are made from. */
export interface Spec {
  paths: Record<string, PathItem>;
  tags?: { name: string; description?: string }[];
}
type Resolve = <T extends Ref>(node: T | undefined) => T | undefined;

interface Exception {
  /** The method's name, where the path and operationId do not give it. */
  name?: string;
  /** The success status whose answer the method returns, where the statuses answer different shapes. */
  answer?: string;
  /** The record's type where the method's answer is narrower than the document's schema says (a dry run it does not offer). */
  record?: string;
  /** Query parameters the method does not offer. */
  omitQuery?: string[];
  /** A Server-Sent Events stream: the method answers the events as they come (sdk/src/feed.ts, eventStream). */
  stream?: true;
}

/** Where the SDK's method is not what the rules above give. */
const SDK_EXCEPTIONS: Record<string, Exception> = {
  // A whole file of CSV or JSON text, not a list of records.
  exportData: { name: "download" },
  // Without `dryRun` the answer is always the 201's stored record, every field of EquivalencyExpanded
  // (the one schema of 200 and 201 also describes the dry run's preview, whose id is null).
  createEquivalency: { answer: "201", omitQuery: ["dryRun"], record: "EquivalencyExpanded" },
  // Endless: events as they come, reconnecting with Last-Event-ID (sdk/src/feed.ts).
  streamEvents: { stream: true },
  // `import` reads badly as a method; the body is a CSV file's text.
  importEquivalencies: { name: "importCsv" },
};

/** Hand-written option interfaces of sdk/src/resources.ts (they carry the documentation), by the header they set. */
const HEADER_OPTIONS: Record<string, string> = { "Idempotency-Key": "IdempotencyOptions", "If-Match": "UpdateOptions" };

export interface SdkMethod {
  operationId: string;
  group: string;
  tag: string | undefined;
  name: string;
  /** The method as TypeScript source: `name: (arguments): Answer => call`. */
  source: string;
}

const camel = (text: string) => text.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());
const singular = (word: string) => word.replace(/ies$/, "y").replace(/s$/, "");
const refName = (schema: Schema | undefined) => schema?.$ref?.split("/").pop();
/** `Idempotency-Key` → `idempotencyKey`; a query parameter keeps its name. */
const optionName = (p: Parameter) => (p.in === "header" ? camel(p.name.toLowerCase()) : p.name);
const property = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const PRIMITIVES: Record<string, string> = {
  string: "string",
  integer: "number",
  number: "number",
  boolean: "boolean",
};

/** A schema's TypeScript type where it is a primitive or a named schema; `fallback` otherwise. */
function typeOf(schema: Schema | undefined, fallback: string): string {
  const name = refName(schema);
  return name ? `Schemas[${JSON.stringify(name)}]` : (PRIMITIVES[String(schema?.type)] ?? fallback);
}

function resolver(document: Spec): Resolve {
  const resolve: Resolve = (node) => {
    if (!node?.$ref) return node;
    const path = node.$ref.slice(2).split("/");
    return resolve(path.reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], document) as typeof node);
  };
  return resolve;
}

/** The methods of every operation of the document, in the document's order. */
export function sdkMethods(document: Spec): SdkMethod[] {
  const resolve = resolver(document);
  const methods = operationsOf(document as unknown as Record<string, unknown>).map((o) =>
    sdkMethod(o.operationId, o.method, o.path, document.paths[o.path], resolve),
  );
  const seen = new Map<string, string>();
  for (const m of methods) {
    const other = seen.get(`${m.group}.${m.name}`);
    if (other)
      throw new Error(`${other} and ${m.operationId} both become ${m.group}.${m.name}: name one in SDK_EXCEPTIONS.`);
    seen.set(`${m.group}.${m.name}`, m.operationId);
  }
  return methods;
}

/** What one method takes (its arguments) and sends (the members of openapi-fetch's `params`, and the rest). */
interface Call {
  args: string[];
  params: string[];
  init: string[];
}

function sdkMethod(operationId: string, method: string, path: string, item: PathItem, resolve: Resolve): SdkMethod {
  const operation = item[method.toLowerCase() as Method]!;
  const exception = SDK_EXCEPTIONS[operationId] ?? {};
  const segments = path.split("/").filter(Boolean);
  const group = camel(segments[0]);
  const op = JSON.stringify(operationId);
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolve(p)!);
  const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  const call: Call = { args: [], params: [], init: [] };

  for (const name of pathNames) {
    const parameter = parameters.find((p) => p.in === "path" && p.name === name);
    call.args.push(`${name}: ${typeOf(parameter?.schema, "string")}`);
  }
  if (pathNames.length) call.params.push(`path: { ${pathNames.join(", ")} }`);
  addBody(call, operation, op, method === "PATCH" ? "changes" : group, resolve);
  const answer = answerOf(operation, exception, resolve);
  const query = parameters.filter((p) => p.in === "query" && !exception.omitQuery?.includes(p.name));
  if (method === "GET" && query.length) {
    call.args.push(`query: Query<${op}>${query.some((p) => p.required) ? "" : " = {}"}`);
    call.params.push(answer.kind === "page" ? "query: q" : "query");
  } else addOptions(call, [...parameters.filter((p) => p.in === "header"), ...query]);
  if (call.params.length) call.init.unshift(`params: { ${call.params.join(", ")} }`);
  if (answer.kind === "text") call.init.push('parseAs: "text"');

  const request = `raw.${method}(${JSON.stringify(path)}${call.init.length ? `, { ${call.init.join(", ")} }` : ""})`;
  const [signature, implementation] =
    answer.kind === "page"
      ? [`ListRequest<${answer.type}, Query<${op}>>`, `page((q) => ${request}, query)`]
      : [`Promise<${answer.type}>`, `${answer.kind === "text" ? "body" : answer.kind}(${request})`];
  const name = exception.name ?? methodName(operationId, segments);
  if (exception.stream) {
    const open = `raw.${method}(${JSON.stringify(path)}, { params: { query: q, header: { "Last-Event-ID": lastEventId } }, parseAs: "stream", signal })`;
    const source = `${comment(operation)}${name}: (query: Query<${op}> = {}, options: StreamOptions = {}): AsyncGenerator<StreamedEvent, void, undefined> => eventStream((q, lastEventId, signal) => ${open}, query, options)`;
    return { operationId, group, tag: operation.tags?.[0], name, source };
  }
  const source = `${comment(operation)}${name}: (${call.args.join(", ")}): ${signature} => ${implementation}${
    answer.narrowed ? ` as ${signature}` : ""
  }`;
  return { operationId, group, tag: operation.tags?.[0], name, source };
}

/** The request body as an argument: named for what it holds, or its one member when it has no schema of its own. */
function addBody(call: Call, operation: Operation, op: string, name: string, resolve: Resolve): void {
  const requestBody = resolve(operation.requestBody);
  if (!requestBody) return;
  const mediaType = Object.keys(requestBody.content ?? {})[0];
  if (mediaType && !/json$/.test(mediaType)) {
    // A file's text (CSV), sent as it is with its media type.
    call.args.push("text: string");
    call.init.push(
      "body: text",
      "bodySerializer: (text: string) => text",
      `headers: { "Content-Type": "${mediaType}" }`,
    );
    return;
  }
  const schema = requestBody.content?.["application/json"]?.schema;
  const bodyType = `NonNullable<operations[${op}]["requestBody"]>["content"]["application/json"]`;
  const members = Object.entries(schema?.properties ?? {});
  if (schema && !refName(schema) && members.length === 1) {
    const [member, memberSchema] = members[0];
    const optional = schema.required?.includes(member) ? "" : "?";
    call.args.push(`${member}${optional}: ${typeOf(memberSchema, `${bodyType}[${JSON.stringify(member)}]`)}`);
    call.init.push(`body: { ${member} }`);
    return;
  }
  const resolved = resolve(schema);
  const batch = resolved?.type === "array" || resolved?.oneOf?.some((branch) => branch.type === "array");
  const argument = name === "changes" || batch ? name : singular(name);
  call.args.push(`${argument}: ${typeOf(schema, bodyType)}${requestBody.required ? "" : " = {}"}`);
  call.init.push(`body: ${argument}`);
}

/** Header and query parameters of a method other than GET, as one options object. */
function addOptions(call: Call, parameters: Parameter[]): void {
  if (!parameters.length) return;
  const named = parameters.flatMap((p) =>
    p.in === "header" && HEADER_OPTIONS[p.name] ? [HEADER_OPTIONS[p.name]] : [],
  );
  const inline = parameters
    .filter((p) => !(p.in === "header" && HEADER_OPTIONS[p.name]))
    .map((p) => `${optionName(p)}?: ${typeOf(p.schema, "string")}`);
  call.args.push(`options: ${[...named, ...(inline.length ? [`{ ${inline.join("; ")} }`] : [])].join(" & ")} = {}`);
  for (const where of ["header", "query"]) {
    // A flag that is off is not sent: that is the server's default.
    const members = parameters
      .filter((p) => p.in === where)
      .map(
        (p) => `${property(p.name)}: options.${optionName(p)}${p.schema?.type === "boolean" ? " || undefined" : ""}`,
      );
    if (members.length) call.params.push(`${where}: { ${members.join(", ")} }`);
  }
}

/** The method's documentation: the operation's summary and the first paragraph of its description. */
function comment(operation: Operation): string {
  const paragraph = operation.description
    ?.split(/\n\s*\n/)[0]
    .replace(/\s+/g, " ")
    .trim();
  const text = [operation.summary && `${operation.summary}.`, paragraph].filter(Boolean) as string[];
  if (operation.deprecated) text.push("@deprecated");
  if (!text.length) return "";
  const lines = text.flatMap((block, i) => [...(i ? [""] : []), ...wrap(block.replaceAll("*/", "*\\/"), 96)]);
  return `/**\n${lines.map((line) => ` *${line && ` ${line}`}`).join("\n")}\n */\n`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + word.length < width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** The verb of the operationId on a collection or its items; deeper, the last literal segment of the path. */
function methodName(operationId: string, segments: string[]): string {
  const deeper = segments.slice(1).filter((s) => !s.startsWith("{"));
  if (!deeper.length) return operationId.match(/^[a-z]+/)![0];
  const last = camel(deeper.at(-1)!);
  return segments.at(-1)!.startsWith("{") ? singular(last) : last;
}

interface Answer {
  kind: "nothing" | "text" | "page" | "record" | "body";
  type: string;
  /** The method answers one of several success shapes (SDK_EXCEPTIONS says which). */
  narrowed?: boolean;
}

function answerOf(operation: Operation, exception: Exception, resolve: Resolve): Answer {
  const successes = Object.entries(operation.responses)
    .filter(([status]) => /^2/.test(status))
    .map(([status, response]) => [status, resolve(response)?.content ?? {}] as const);
  if (successes.every(([, content]) => !Object.keys(content).length)) return { kind: "nothing", type: "void" };
  if (successes.some(([, content]) => Object.keys(content).some((type) => !/json$/.test(type))))
    return { kind: "text", type: "string" };

  const shapes = new Set(successes.map(([, content]) => JSON.stringify(content["application/json"]?.schema)));
  const chosen = exception.answer ? successes.find(([status]) => status === exception.answer) : successes[0];
  if (!chosen || (shapes.size > 1 && !exception.answer))
    throw new Error(
      `${operation.operationId}: its success statuses answer different shapes; say which one in SDK_EXCEPTIONS.`,
    );
  const [status, content] = chosen;
  const schema = content["application/json"].schema;
  const { properties = {} } = resolve(schema) ?? {};
  const members = Object.keys(properties);
  const data = resolve(properties.data);
  const fallback = `operations[${JSON.stringify(operation.operationId)}]["responses"][${status}]["content"]["application/json"]`;
  const narrowed = shapes.size > 1;
  if (exception.record && data)
    return { kind: "record", type: `Schemas[${JSON.stringify(exception.record)}]`, narrowed: true };
  if (members.length === 2 && members.includes("pagination") && data?.type === "array")
    return { kind: "page", type: typeOf(data.items, `${fallback}["data"][number]`) };
  if (members.length === 1 && data)
    return { kind: "record", type: typeOf(properties.data, `${fallback}["data"]`), narrowed };
  return { kind: "body", type: typeOf(schema, fallback), narrowed };
}

/** The source of the generated region of sdk/src/resources.ts. */
function resourcesRegion(document: Spec): string {
  const methods = sdkMethods(document);
  const tags = new Map((document.tags ?? []).map((t) => [t.name, t.description]));
  const groups = [...new Set(methods.map((m) => m.group))].map((group) => {
    const members = methods.filter((m) => m.group === group);
    const description = tags.get(members[0].tag ?? "");
    return [
      ...(description ? [`/** ${description} */`] : []),
      `${group}: {`,
      ...members.map((m) => `${m.source},`),
      "},",
    ].join("\n");
  });
  return [
    "/** The helpers of each resource: one method for each operation of the contract. */",
    "export function resources(raw: Client<paths>) {",
    "return {",
    ...groups,
    "};",
    "}",
  ].join("\n");
}

/** sdk/src/resources.ts with its generated region rewritten from the document. */
export function resourcesFile(text: string, document: Spec): string {
  return replaceFenced(
    text,
    "sdk/src/resources.ts",
    "// @generated begin resources (scripts/generate.ts from openapi.yaml; run `npm run generate`)",
    "// @generated end",
    resourcesRegion(document),
  );
}
