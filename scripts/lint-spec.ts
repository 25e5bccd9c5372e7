// The project's rules for openapi.yaml that Redocly's rules cannot express; the rest are in
// redocly.yaml (`npx tsx scripts/lint-spec.ts [file]`). Each violation is printed as
// `openapi.yaml:<line>:<column> <json-pointer>: <message>`; the exit code is 1 when there is any.
//
// Rules:
//  1. every request body schema under `paths` is closed (`additionalProperties: false` or
//     `unevaluatedProperties: false`), and so is every oneOf/anyOf branch and array item of it,
//     followed through `$ref`s. Webhook payloads are sent by the service, not to it, and stay
//     open so receivers tolerate new fields. (A Redocly assertion sees one schema level, or a
//     value whose nested `$ref`s it does not follow.)
//  2. no schema puts keywords beside `$ref` (wrap it: `allOf: [{$ref}]` plus the keywords).
//     openapi-backend dereferences such a ref into a shallow copy that shares its children with
//     the target, and its decycle step then turns those shared children into `{$ref}` objects
//     where Ajv expects `properties` or `required`, so the response validators fail to compile.
//     (OpenAPI 3.1 allows the siblings, so Redocly's spec-ref-siblings lets them pass, and its
//     assertions see the resolved node, not the `$ref` beside them.)
//  3. every header's `example`/`examples` validates against its schema (Redocly validates the
//     examples of media types, parameters and schemas, not those of headers).
//  4. an operation under `paths` marked `x-read-only: true` (a question asked in a body, which
//     changes nothing: it is not audited) is a POST needing the read scope, and a POST, PUT,
//     PATCH or DELETE needing only the read scope is marked so. (Redocly's write-security rule
//     accepts either scope; its assertions cannot look at a sibling of the security property.)
//  5. an operation needs no credential (`security: []`) only when it is the public explorer's (tag
//     `Explorer`), and then a POST is `x-read-only`: anonymous callers never change anything.
//  6. the 2xx answers of an operation under `paths` share one JSON schema (a dry run's `200` and
//     a real `201` differ only by an optional `dryRun: true`): OpenAPI Generator types a method
//     by its lowest 2xx status only, so a client reading a `201` with the `200`'s model fails or
//     is mistyped (docs/partners.md). An operation whose single schema would break earlier
//     clients keeps two, saying in `x-2xx-read-by-lowest` how the lowest's model reads the others.
import fs from "node:fs";
import path from "node:path";
import { parseDocument, LineCounter, isNode } from "yaml";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ErrorObject } from "ajv";

type Json = Record<string, unknown>;
type Segment = string | number;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const SPEC_ID = "openapi.json";

const file = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "../openapi.yaml"));
const lineCounter = new LineCounter();
const yamlDoc = parseDocument(fs.readFileSync(file, "utf8"), { lineCounter });
if (yamlDoc.errors.length) {
  for (const error of yamlDoc.errors) console.log(`${path.basename(file)}: ${error.message}`);
  process.exit(1);
}
const doc = yamlDoc.toJS({ maxAliasCount: -1 }) as Json;

const violations: string[] = [];

function pointer(segments: Segment[]): string {
  return `#/${segments.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;
}

function locate(segments: Segment[]): string {
  // The nearest node that exists in the YAML source gives the line.
  for (let n = segments.length; n >= 0; n--) {
    const node = yamlDoc.getIn(segments.slice(0, n), true);
    if (isNode(node) && node.range) {
      const { line, col } = lineCounter.linePos(node.range[0]);
      return `${path.basename(file)}:${line}:${col}`;
    }
  }
  return path.basename(file);
}

function report(segments: Segment[], message: string): void {
  violations.push(`${locate(segments)} ${pointer(segments)}: ${message}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows a local $ref ("#/components/…") to its target and the target's location. */
function deref(value: unknown, at: Segment[]): { value: unknown; at: Segment[] } {
  const seen = new Set<string>();
  while (isObject(value) && typeof value.$ref === "string" && value.$ref.startsWith("#/")) {
    if (seen.has(value.$ref)) break;
    seen.add(value.$ref);
    at = value.$ref
      .slice(2)
      .split("/")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    value = at.reduce<unknown>((node, key) => (isObject(node) ? node[key as string] : undefined), doc);
  }
  return { value, at };
}

// --- Rule 3: header examples, validated by Ajv over the whole document ("openapi.json#<pointer>").
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(doc, SPEC_ID);

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .filter((e) => e.keyword !== "oneOf" && e.keyword !== "anyOf" && e.keyword !== "if")
    .map((e) => `${e.instancePath || "(root)"} ${e.message}`)
    .join("; ");
}

function checkExample(schemaAt: Segment[], example: unknown, exampleAt: Segment[]): void {
  const ref = `${SPEC_ID}${pointer(schemaAt)}`;
  try {
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    if (!validate(example)) report(exampleAt, `example does not match its schema: ${describeErrors(validate.errors)}`);
  } catch (error) {
    report(schemaAt, `schema does not compile: ${(error as Error).message}`);
  }
}

function checkHeader(raw: unknown, at: Segment[]): void {
  const { value: header, at: headerAt } = deref(raw, at);
  if (!isObject(header) || !isObject(header.schema)) return;
  const schemaAt = [...headerAt, "schema"];
  walkSchema(header.schema, schemaAt);
  if ("example" in header) checkExample(schemaAt, header.example, [...headerAt, "example"]);
  for (const [name, rawExample] of Object.entries(isObject(header.examples) ? header.examples : {})) {
    const { value: example, at: exampleAt } = deref(rawExample, [...headerAt, "examples", name]);
    if (isObject(example) && "value" in example) checkExample(schemaAt, example.value, [...exampleAt, "value"]);
  }
}

// --- Rule 2: every schema node, wherever it is.
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_SINGLES = [
  "items",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "contentSchema",
];
const visitedSchemas = new Set<string>();

function walkSchema(schema: unknown, at: Segment[]): void {
  if (!isObject(schema)) return;
  const key = pointer(at);
  if (visitedSchemas.has(key)) return;
  visitedSchemas.add(key);
  const siblings = Object.keys(schema).filter((k) => k !== "$ref");
  if ("$ref" in schema && siblings.length)
    report(at, `keywords beside $ref (${siblings.join(", ")}); use allOf: [{$ref}] with them instead`);
  for (const k of SCHEMA_MAPS)
    if (isObject(schema[k])) for (const [name, sub] of Object.entries(schema[k])) walkSchema(sub, [...at, k, name]);
  for (const k of SCHEMA_LISTS)
    if (Array.isArray(schema[k])) schema[k].forEach((sub, i) => walkSchema(sub, [...at, k, i]));
  for (const k of SCHEMA_SINGLES) walkSchema(schema[k], [...at, k]);
}

// --- Rule 1: request bodies must be closed.
function closedProblems(raw: unknown, at: Segment[], depth = 0): string[] {
  const { value: schema, at: schemaAt } = deref(raw, at);
  if (!isObject(schema) || depth > 20) return [];
  const where = pointer(schemaAt);
  const branches = [...((schema.oneOf as unknown[]) ?? []), ...((schema.anyOf as unknown[]) ?? [])];
  if (branches.length) {
    const key = Array.isArray(schema.oneOf) ? "oneOf" : "anyOf";
    return branches.flatMap((branch, i) => closedProblems(branch, [...schemaAt, key, i], depth + 1));
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("array")) return closedProblems(schema.items, [...schemaAt, "items"], depth + 1);
  const isObjectSchema = types.includes("object") || isObject(schema.properties) || Array.isArray(schema.allOf);
  if (!isObjectSchema) return [];
  if (schema.additionalProperties === false || schema.unevaluatedProperties === false) return [];
  return [`${where} is not closed (add additionalProperties: false)`];
}

// --- Operations: their parameters', bodies' and responses' schemas and headers.
function walkParameters(parameters: unknown, at: Segment[]): void {
  for (const [i, raw] of (Array.isArray(parameters) ? parameters : []).entries()) {
    const { value: parameter, at: parameterAt } = deref(raw, [...at, "parameters", i]);
    if (isObject(parameter)) walkSchema(parameter.schema, [...parameterAt, "schema"]);
  }
}

const READ_ONLY_ALLOWED = new Set(["post"]);

function checkReadOnly(operation: Json, at: Segment[]): void {
  const method = String(at[at.length - 1]);
  if (method === "get" || method === "head" || method === "options" || method === "trace") return;
  const security = Array.isArray(operation.security) ? operation.security : [];
  const scopes = security.flatMap((requirement) =>
    isObject(requirement) && Array.isArray(requirement.OAuth2) ? requirement.OAuth2 : [],
  );
  const anonymous = Array.isArray(operation.security) && operation.security.length === 0;
  const readOnlyScopes = anonymous || (scopes.length > 0 && scopes.every((scope) => scope === "read:public"));
  const marked = operation["x-read-only"] === true;
  if (marked && !READ_ONLY_ALLOWED.has(method)) report([...at, "x-read-only"], "x-read-only is for a POST only");
  if (marked !== readOnlyScopes)
    report([...at, "security"], "a write method needs write:contribute unless it is x-read-only (then read:public)");
}

function checkAnonymous(operation: Json, at: Segment[]): void {
  const anonymous = Array.isArray(operation.security) && operation.security.length === 0;
  const tags = Array.isArray(operation.tags) ? operation.tags : [];
  if (anonymous && !tags.includes("Explorer"))
    report([...at, "security"], "only the public explorer's operations (tag Explorer) need no credential");
  if (!anonymous && tags.includes("Explorer"))
    report([...at, "security"], "the public explorer's operations need no credential (security: [])");
}

function checkOperation(operation: Json, at: Segment[], inPaths: boolean): void {
  walkParameters(operation.parameters, at);
  if (inPaths) checkReadOnly(operation, at);
  if (inPaths) checkAnonymous(operation, at);
  const { value: body, at: bodyAt } = deref(operation.requestBody, [...at, "requestBody"]);
  for (const [mediaType, media] of Object.entries(isObject(body) && isObject(body.content) ? body.content : {})) {
    if (!isObject(media)) continue;
    const schemaAt = [...bodyAt, "content", mediaType, "schema"];
    walkSchema(media.schema, schemaAt);
    if (inPaths)
      for (const problem of closedProblems(media.schema, schemaAt)) report(schemaAt, `request body schema ${problem}`);
  }
  const successSchemas = new Map<string, string>();
  for (const [status, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    const { value: response, at: responseAt } = deref(raw, [...at, "responses", status]);
    if (!isObject(response)) continue;
    const json = isObject(response.content) ? response.content["application/json"] : undefined;
    if (inPaths && /^2\d\d$/.test(status) && isObject(json)) successSchemas.set(status, JSON.stringify(json.schema));
    for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {}))
      checkHeader(header, [...responseAt, "headers", name]);
    for (const [mediaType, media] of Object.entries(isObject(response.content) ? response.content : {}))
      if (isObject(media)) walkSchema(media.schema, [...responseAt, "content", mediaType, "schema"]);
  }
  // An operation may keep distinct 2xx schemas where one schema would break earlier clients, saying
  // in `x-2xx-read-by-lowest` why its other answers are read whole by the lowest one's model.
  const readByLowest = typeof operation["x-2xx-read-by-lowest"] === "string";
  if (new Set(successSchemas.values()).size > 1 && !readByLowest)
    report(
      [...at, "responses"],
      `the 2xx answers (${[...successSchemas.keys()].join(", ")}) have different schemas: give them one $ref (a dry run's flag optional)`,
    );
}

function checkPathItems(items: unknown, base: Segment[], inPaths: boolean): number {
  let count = 0;
  for (const [name, rawItem] of Object.entries(isObject(items) ? items : {})) {
    const { value: item, at: itemAt } = deref(rawItem, [...base, name]);
    if (!isObject(item)) continue;
    walkParameters(item.parameters, itemAt);
    for (const method of METHODS) {
      if (!isObject(item[method])) continue;
      count++;
      checkOperation(item[method], [...itemAt, method], inPaths);
    }
  }
  return count;
}

const operationCount = checkPathItems(doc.paths, ["paths"], true) + checkPathItems(doc.webhooks, ["webhooks"], false);

// Components not reached from an operation are checked too.
const components = isObject(doc.components) ? doc.components : {};
const named = (kind: string) => Object.entries(isObject(components[kind]) ? components[kind] : {});
for (const [name, schema] of named("schemas")) walkSchema(schema, ["components", "schemas", name]);
for (const [name, parameter] of named("parameters"))
  if (isObject(parameter)) walkSchema(parameter.schema, ["components", "parameters", name, "schema"]);
for (const [name, header] of named("headers")) checkHeader(header, ["components", "headers", name]);

const unique = [...new Set(violations)];
for (const violation of unique) console.log(violation);
if (unique.length) {
  console.log(`\n${unique.length} violation(s) in ${path.basename(file)}.`);
  process.exit(1);
}
console.log(
  `${path.basename(file)}: ${operationCount} operations, ${visitedSchemas.size} schemas checked; no violations.`,
);
