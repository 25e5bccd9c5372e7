// The project's own rules for openapi.yaml, beyond what Redocly checks
// (`npx tsx scripts/lint-spec.ts [file]`). Each violation is printed as
// `openapi.yaml:<line>:<column> <json-pointer>: <message>`; the exit code is 1
// when there is any.
//
// Rules:
//  1. every operation (under `paths` and `webhooks`) has an operationId, exactly
//     one tag, a summary and a description;
//  2. every request body and every 2xx JSON response has at least one example;
//  3. every example validates against its schema: media-type `example`/`examples`,
//     parameter and header `example`/`examples`, and schema `examples`/`example`;
//  4. every operation under `paths` documents at least one 4xx response with
//     `application/problem+json`, and a `default` response;
//  5. every request body schema under `paths` is closed (`additionalProperties:
//     false` or `unevaluatedProperties: false`; every oneOf/anyOf branch and
//     array item too). Webhook payloads are sent by the service, not to it, and
//     stay open so receivers tolerate new fields;
//  6. every operation under `paths` accepts both schemes, with scope
//     `read:public` for GET and `write:contribute` for POST/PATCH/PUT/DELETE;
//  7. no schema uses the OpenAPI 3.0 `nullable` keyword (3.1 uses type arrays);
//  8. no schema puts keywords beside `$ref` (wrap it: `allOf: [{$ref}]` plus the
//     keywords). openapi-backend dereferences such a ref into a shallow copy that
//     shares its children with the target, and its decycle step then turns those
//     shared children into `{$ref}` objects where Ajv expects `properties` or
//     `required`, so the response validators fail to compile.
import fs from "node:fs";
import path from "node:path";
import { parseDocument, LineCounter, isNode } from "yaml";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ErrorObject, ValidateFunction } from "ajv";

type Json = Record<string, unknown>;
type Segment = string | number;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const WRITE_METHODS = new Set(["post", "put", "patch", "delete"]);
const SPEC_ID = "openapi.json";

const file = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "../openapi.yaml"));
const source = fs.readFileSync(file, "utf8");
const lineCounter = new LineCounter();
const yamlDoc = parseDocument(source, { lineCounter });
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

// --- Ajv over the whole document: a schema at any location is "openapi.json#<pointer>".
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(doc, SPEC_ID);

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .filter((e) => e.keyword !== "oneOf" && e.keyword !== "anyOf" && e.keyword !== "if")
    .map(
      (e) =>
        `${e.instancePath || "(root)"} ${e.message}${e.keyword === "additionalProperties" ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ""}`,
    )
    .join("; ");
}

function checkExample(schemaAt: Segment[], example: unknown, exampleAt: Segment[]): void {
  let validate: ValidateFunction;
  try {
    validate =
      ajv.getSchema(`${SPEC_ID}${pointer(schemaAt)}`) ?? ajv.compile({ $ref: `${SPEC_ID}${pointer(schemaAt)}` });
  } catch (error) {
    report(schemaAt, `schema does not compile: ${(error as Error).message}`);
    return;
  }
  if (!validate(example)) report(exampleAt, `example does not match its schema: ${describeErrors(validate.errors)}`);
}

/** `example` and `examples` (a map of Example Objects) of a media type, parameter or header. */
function checkExampleHolder(holder: Json, at: Segment[]): number {
  if (!isObject(holder.schema)) return 0;
  const schemaAt = [...at, "schema"];
  let count = 0;
  if ("example" in holder) {
    count++;
    checkExample(schemaAt, holder.example, [...at, "example"]);
  }
  if (isObject(holder.examples)) {
    for (const [name, raw] of Object.entries(holder.examples)) {
      const { value: example, at: exampleAt } = deref(raw, [...at, "examples", name]);
      if (!isObject(example)) continue;
      if ("value" in example) {
        count++;
        checkExample(schemaAt, example.value, [...exampleAt, "value"]);
      } else if (typeof example.externalValue === "string") {
        count++;
      } else {
        report(exampleAt, "example has neither value nor externalValue");
      }
    }
  }
  return count;
}

// --- Schemas: every schema node, wherever it is, for `examples` and `nullable`.
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
  if ("nullable" in schema)
    report([...at, "nullable"], '`nullable` is OpenAPI 3.0; use a type array such as [string, "null"]');
  if ("$ref" in schema && Object.keys(schema).length > 1) {
    report(
      at,
      `keywords beside $ref (${Object.keys(schema)
        .filter((k) => k !== "$ref")
        .join(", ")}); use allOf: [{$ref}] with them instead`,
    );
  }
  if (Array.isArray(schema.examples))
    schema.examples.forEach((example, i) => checkExample(at, example, [...at, "examples", i]));
  if ("example" in schema) checkExample(at, schema.example, [...at, "example"]);
  for (const k of SCHEMA_MAPS)
    if (isObject(schema[k]))
      for (const [name, sub] of Object.entries(schema[k] as Json)) walkSchema(sub, [...at, k, name]);
  for (const k of SCHEMA_LISTS)
    if (Array.isArray(schema[k])) (schema[k] as unknown[]).forEach((sub, i) => walkSchema(sub, [...at, k, i]));
  for (const k of SCHEMA_SINGLES) walkSchema(schema[k], [...at, k]);
}

function walkParameterOrHeader(raw: unknown, at: Segment[]): void {
  const { value, at: resolvedAt } = deref(raw, at);
  if (!isObject(value)) return;
  walkSchema(value.schema, [...resolvedAt, "schema"]);
  checkExampleHolder(value, resolvedAt);
}

// --- Request bodies must be closed.
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

// --- Operations.
function checkOperation(operation: Json, at: Segment[], inPaths: boolean, method: string): void {
  if (typeof operation.operationId !== "string" || !operation.operationId) report(at, "operation has no operationId");
  if (!Array.isArray(operation.tags) || operation.tags.length !== 1)
    report(
      at,
      `operation must have exactly one tag (has ${Array.isArray(operation.tags) ? operation.tags.length : 0})`,
    );
  if (typeof operation.summary !== "string" || !operation.summary.trim()) report(at, "operation has no summary");
  if (typeof operation.description !== "string" || !operation.description.trim())
    report(at, "operation has no description");

  if (Array.isArray(operation.parameters))
    operation.parameters.forEach((p, i) => walkParameterOrHeader(p, [...at, "parameters", i]));

  if (operation.requestBody !== undefined) {
    const { value: body, at: bodyAt } = deref(operation.requestBody, [...at, "requestBody"]);
    if (isObject(body) && isObject(body.content)) {
      for (const [mediaType, media] of Object.entries(body.content)) {
        if (!isObject(media)) continue;
        const mediaAt = [...bodyAt, "content", mediaType];
        walkSchema(media.schema, [...mediaAt, "schema"]);
        if (checkExampleHolder(media, mediaAt) === 0) report(mediaAt, "request body has no example");
        if (inPaths)
          for (const problem of closedProblems(media.schema, [...mediaAt, "schema"]))
            report([...mediaAt, "schema"], `request body schema ${problem}`);
      }
    }
  }

  const responses = isObject(operation.responses) ? operation.responses : {};
  let problem4xx = false;
  for (const [status, raw] of Object.entries(responses)) {
    const { value: response, at: responseAt } = deref(raw, [...at, "responses", status]);
    if (!isObject(response)) continue;
    if (isObject(response.headers))
      for (const [name, header] of Object.entries(response.headers))
        walkParameterOrHeader(header, [...responseAt, "headers", name]);
    const content = isObject(response.content) ? response.content : {};
    if (/^4(\d\d|XX)$/i.test(status) && isObject(content["application/problem+json"])) problem4xx = true;
    for (const [mediaType, media] of Object.entries(content)) {
      if (!isObject(media)) continue;
      const mediaAt = [...responseAt, "content", mediaType];
      walkSchema(media.schema, [...mediaAt, "schema"]);
      const examples = checkExampleHolder(media, mediaAt);
      if (/^2/.test(status) && /[/+]json$/.test(mediaType) && examples === 0)
        report(mediaAt, `${status} response has no example`);
    }
  }
  if (inPaths) {
    if (!problem4xx) report([...at, "responses"], "operation documents no 4xx response with application/problem+json");
    if (!("default" in responses)) report([...at, "responses"], "operation has no default response");
    const scope = WRITE_METHODS.has(method) ? "write:contribute" : "read:public";
    const expected = JSON.stringify([{ ApiKeyAuth: [] }, { OAuth2: [scope] }]);
    if (JSON.stringify(operation.security) !== expected) report([...at, "security"], `security must be ${expected}`);
  }
}

function checkPathItems(items: unknown, base: Segment[], inPaths: boolean): number {
  let count = 0;
  if (!isObject(items)) return 0;
  for (const [name, rawItem] of Object.entries(items)) {
    const { value: item, at: itemAt } = deref(rawItem, [...base, name]);
    if (!isObject(item)) continue;
    if (Array.isArray(item.parameters))
      item.parameters.forEach((p, i) => walkParameterOrHeader(p, [...itemAt, "parameters", i]));
    for (const method of METHODS) {
      if (!isObject(item[method])) continue;
      count++;
      checkOperation(item[method] as Json, [...itemAt, method], inPaths, method);
    }
  }
  return count;
}

const operationCount = checkPathItems(doc.paths, ["paths"], true) + checkPathItems(doc.webhooks, ["webhooks"], false);

// Components not reached from an operation are checked too.
const components = isObject(doc.components) ? doc.components : {};
for (const [name, schema] of Object.entries(isObject(components.schemas) ? components.schemas : {}))
  walkSchema(schema, ["components", "schemas", name]);
for (const kind of ["parameters", "headers"]) {
  for (const name of Object.keys(isObject(components[kind]) ? (components[kind] as Json) : {}))
    walkParameterOrHeader({ $ref: `#/components/${kind}/${name}` }, ["components", kind, name]);
}

const unique = [...new Set(violations)];
for (const violation of unique) console.log(violation);
if (unique.length) {
  console.log(`\n${unique.length} violation(s) in ${path.basename(file)}.`);
  process.exit(1);
}
console.log(
  `${path.basename(file)}: ${operationCount} operations, ${visitedSchemas.size} schemas checked; no violations.`,
);
