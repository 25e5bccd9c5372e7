// The OpenAPI 3.0.3 rendition (scripts/openapi-30.ts → generated/openapi-3.0.json) says what
// openapi.yaml says: every path, operation, parameter, request body, response, header, webhook
// and schema, with the same validation keywords once the spelling differences are undone; and
// it is a valid OpenAPI 3.0.3 document by Redocly's lint.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import YAML from "yaml";
import { CARRIED, convertSchema, toOpenApi30 } from "../../scripts/openapi-30.ts";

type Json = Record<string, unknown>;
const ROOT = path.resolve(import.meta.dirname, "../..");
const source = YAML.parse(fs.readFileSync(path.join(ROOT, "openapi.yaml"), "utf8")) as Json;
const rendition = JSON.parse(fs.readFileSync(path.join(ROOT, "generated/openapi-3.0.json"), "utf8")) as Json;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const ANNOTATIONS = new Set(["description", "title", "example", "examples", "externalDocs", "$comment"]);
/** Content annotations of 2020-12, not assertions: a 3.0 validator would ignore them too. */
const CONTENT_ANNOTATIONS = new Set(["contentMediaType", "contentEncoding", "contentSchema"]);

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const typeOfValue = (value: unknown) =>
  typeof value === "string"
    ? "string"
    : typeof value === "boolean"
      ? "boolean"
      : typeof value === "number"
        ? Number.isInteger(value)
          ? "integer"
          : "number"
        : undefined;
const isNullBranch = (schema: unknown) =>
  isObject(schema) &&
  (schema.type === "null" ||
    (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === "null") ||
    (schema.nullable === true && Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null));

/**
 * One schema in one canonical spelling, whichever version wrote it: types as a sorted list and
 * `nullable` apart, `const` as a one-value enum, null branches and null enum values as
 * `nullable`, exclusive bounds as numbers, and annotations left out.
 */
function canonical(schema: unknown, version: "3.0" | "3.1"): unknown {
  if (schema === true) return {};
  if (schema === false) return { not: {} };
  if (!isObject(schema)) return schema;
  const out: Json = {};
  let nullable = false;
  let types: string[] | undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || CONTENT_ANNOTATIONS.has(key)) continue;
    if (key.startsWith("x-")) {
      const carried = key.slice(2);
      if (version === "3.0" && CARRIED.includes(carried) && !CONTENT_ANNOTATIONS.has(carried))
        out[carried] = sub(carried, value, version);
      continue;
    }
    if (key === "type") types = (Array.isArray(value) ? value : [value]) as string[];
    else if (key === "nullable") nullable = value === true;
    else if (key === "const") out.enum = [value];
    else out[key] = sub(key, value, version);
  }
  if ("const" in schema && !types) types = [typeOfValue(schema.const)].filter((t): t is string => Boolean(t));
  if (types?.includes("null")) {
    nullable = true;
    types = types.filter((t) => t !== "null");
  }
  // a 3.0 multi-type: oneOf of bare types
  if (
    version === "3.0" &&
    Array.isArray(schema.oneOf) &&
    schema.oneOf.every((b) => isObject(b) && Object.keys(b).every((k) => k === "type" || k === "items"))
  ) {
    types = schema.oneOf.map((b) => (b as Json).type as string);
    delete out.oneOf;
  }
  for (const key of ["oneOf", "anyOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const rest = branches.filter((b) => !isNullBranch(b));
    if (rest.length === branches.length) continue;
    nullable = true;
    delete out[key];
    if (rest.length === 1) Object.assign(out, { allOf: [canonical(rest[0], version)] });
    else out[key] = rest.map((b) => canonical(b, version));
  }
  if (Array.isArray(out.enum) && out.enum.includes(null) && out.enum.length > 1) {
    nullable = true;
    out.enum = out.enum.filter((v) => v !== null);
  }
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ]) {
    if (schema[exclusive] === true) {
      out[exclusive] = schema[bound];
      delete out[bound];
    }
  }
  // 3.0: the referenced schema's type stated beside a nullable allOf [$ref]
  const onlyRef = Array.isArray(out.allOf) && out.allOf.length === 1 && isObject(out.allOf[0]) && out.allOf[0].$ref;
  if (version === "3.0" && onlyRef && nullable) types = undefined;
  if (version === "3.1" && onlyRef && nullable && !schema.allOf) types = undefined;
  if (types?.length) out.type = [...types].sort();
  if (nullable) out.nullable = true;
  return out;
}

function sub(key: string, value: unknown, version: "3.0" | "3.1"): unknown {
  if (key === "properties" || key === "$defs" || key === "patternProperties" || key === "dependentSchemas")
    return Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, canonical(v, version)]));
  if (["allOf", "anyOf", "oneOf", "prefixItems"].includes(key))
    return (value as unknown[]).map((v) => canonical(v, version));
  if (["items", "not", "additionalProperties", "if", "then", "else", "contains", "propertyNames"].includes(key))
    return typeof value === "boolean" && key === "additionalProperties" ? value : canonical(value, version);
  return value;
}

function resolve(document: Json, object: unknown): Json {
  let current = object as Json;
  while (isObject(current) && typeof current.$ref === "string") {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>(
        (node, part) => (node as Json)[part.replaceAll("~1", "/").replaceAll("~0", "~")],
        document,
      ) as Json;
  }
  return current;
}

/** Every operation's parts, resolved, with the schemas in canonical form. */
function operations(document: Json, section: Json | undefined, version: "3.0" | "3.1") {
  const result: Record<string, unknown> = {};
  const content = (c: unknown) =>
    isObject(c)
      ? Object.fromEntries(Object.entries(c).map(([type, media]) => [type, canonical((media as Json).schema, version)]))
      : undefined;
  for (const [route, rawItem] of Object.entries(section ?? {})) {
    const item = resolve(document, rawItem);
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const parameters = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])]
        .map((p) => resolve(document, p))
        .map((p) => ({ name: p.name, in: p.in, required: Boolean(p.required), schema: canonical(p.schema, version) }))
        .sort((a, b) => `${a.in}:${a.name}`.localeCompare(`${b.in}:${b.name}`));
      const body = operation.requestBody ? resolve(document, operation.requestBody) : undefined;
      const responses = Object.fromEntries(
        Object.entries((operation.responses as Json) ?? {}).map(([status, raw]) => {
          const response = resolve(document, raw);
          const headers = Object.fromEntries(
            Object.entries((response.headers as Json) ?? {}).map(([name, h]) => [
              name,
              canonical(resolve(document, h).schema, version),
            ]),
          );
          return [status, { content: content(response.content), headers }];
        }),
      );
      result[`${method.toUpperCase()} ${route}`] = {
        operationId: operation.operationId,
        security: operation.security,
        parameters,
        requestBody: body ? { required: Boolean(body.required), content: content(body.content) } : undefined,
        responses,
      };
    }
  }
  return result;
}

const schemasOf = (document: Json, version: "3.0" | "3.1") =>
  Object.fromEntries(
    Object.entries(((document.components as Json).schemas as Json) ?? {}).map(([name, schema]) => [
      name,
      canonical(schema, version),
    ]),
  );

describe("the OpenAPI 3.0.3 rendition of openapi.yaml", () => {
  it("is what scripts/openapi-30.ts makes of openapi.yaml now (npm run generate)", () => {
    const { "x-generated": _, ...generated } = rendition;
    expect(generated).to.deep.equal(JSON.parse(JSON.stringify(toOpenApi30(source))));
  });

  it("is OpenAPI 3.0.3 and keeps info, servers, tags and security", () => {
    expect(rendition.openapi).to.equal("3.0.3");
    for (const key of ["servers", "tags", "security"]) expect(rendition[key], key).to.deep.equal(source[key]);
    expect((rendition.info as Json).version).to.equal((source.info as Json).version);
    expect((rendition.info as Json).description).to.equal((source.info as Json).description);
  });

  it("describes every path and operation with the same parameters, bodies, responses and headers", () => {
    const expected = operations(source, source.paths as Json, "3.1");
    const actual = operations(rendition, rendition.paths as Json, "3.0");
    expect(Object.keys(actual)).to.deep.equal(Object.keys(expected));
    for (const key of Object.keys(expected)) expect(actual[key], key).to.deep.equal(expected[key]);
  });

  it("describes every schema with the same validation keywords", () => {
    const expected = schemasOf(source, "3.1");
    const actual = schemasOf(rendition, "3.0");
    expect(Object.keys(actual)).to.deep.equal(Object.keys(expected));
    for (const name of Object.keys(expected)) expect(actual[name], name).to.deep.equal(expected[name]);
  });

  it("keeps every other component: parameters, headers, responses, security schemes", () => {
    const components = (document: Json) => document.components as Record<string, Json>;
    for (const kind of ["parameters", "headers", "responses", "securitySchemes", "requestBodies", "examples"])
      expect(Object.keys(components(rendition)[kind] ?? {}), kind).to.deep.equal(
        Object.keys(components(source)[kind] ?? {}),
      );
    expect(components(rendition).securitySchemes).to.deep.equal(components(source).securitySchemes);
  });

  it("carries every webhook in x-webhooks, where 3.0 tools skip it", () => {
    expect(rendition.webhooks).to.equal(undefined);
    const expected = operations(source, source.webhooks as Json, "3.1");
    expect(operations(rendition, rendition["x-webhooks"] as Json, "3.0")).to.deep.equal(expected);
    expect(Object.keys(expected)).to.have.length.greaterThan(0);
  });

  it("passes Redocly's lint as OpenAPI 3.0 with no error (partners/redocly.yaml)", function () {
    this.timeout(120_000);
    const redocly = path.join(ROOT, "node_modules/.bin/redocly");
    const output = execFileSync(
      redocly,
      ["lint", "generated/openapi-3.0.json", "--config=partners/redocly.yaml", "--format=json"],
      {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const report = JSON.parse(output.slice(output.indexOf("{"))) as {
      totals: { errors: number };
      problems: { ruleId: string; severity: string; message: string }[];
    };
    expect(report.problems.filter((p) => p.severity === "error")).to.deep.equal([]);
    expect(report.totals.errors).to.equal(0);
  });
});

describe("scripts/openapi-30.ts converts each 3.1 construct", () => {
  const cases: [string, unknown, Json][] = [
    ["a type with null", { type: ["string", "null"], maxLength: 3 }, { type: "string", maxLength: 3, nullable: true }],
    [
      "several types",
      { type: ["string", "object", "array"] },
      { oneOf: [{ type: "string" }, { type: "object" }, { type: "array", items: {} }] },
    ],
    ["a const without a type", { const: "course.updated" }, { enum: ["course.updated"], type: "string" }],
    ["a const with a type", { type: "boolean", const: true }, { type: "boolean", enum: [true] }],
    [
      "an enum with null",
      { type: ["string", "null"], enum: ["a", "b", null] },
      { type: "string", enum: ["a", "b"], nullable: true },
    ],
    ["schema examples", { type: "integer", examples: [3, 4] }, { type: "integer", example: 3 }],
    [
      "exclusive bounds",
      { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 10 },
      { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
    ],
    [
      "a tuple",
      { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
      {
        type: "array",
        "x-prefixItems": [{ type: "string" }, { type: "integer" }],
        items: { anyOf: [{ type: "string" }, { type: "integer" }] },
        minItems: 2,
        maxItems: 2,
      },
    ],
    ["dialect keywords", { $schema: "x", $id: "y", $comment: "z", type: "string" }, { type: "string" }],
    [
      "content keywords",
      { type: "string", contentMediaType: "application/json", contentSchema: { type: "object" } },
      { type: "string", "x-contentMediaType": "application/json", "x-contentSchema": { type: "object" } },
    ],
    [
      "boolean schemas",
      { type: "object", properties: { a: true, b: false } },
      { type: "object", properties: { a: {}, b: { not: {} } } },
    ],
    [
      "a $ref beside other keywords",
      { $ref: "#/components/schemas/A", description: "d" },
      { allOf: [{ $ref: "#/components/schemas/A" }], description: "d" },
    ],
    [
      "oneOf a schema or null",
      { description: "d", oneOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "null" }] },
      { description: "d", nullable: true, type: "object", properties: { a: { type: "string" } } },
    ],
    [
      "anyOf two schemas or null",
      { anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] },
      { anyOf: [{ type: "string" }, { type: "integer" }], nullable: true },
    ],
  ];
  for (const [label, input, expected] of cases) it(label, () => expect(convertSchema(input)).to.deep.equal(expected));

  it("a $ref or null: allOf [$ref], nullable, and the referenced schema's type when it is a scalar", () => {
    const document = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {},
      components: {
        schemas: {
          Level: { type: "string", enum: ["lower", "upper"] },
          Course: {
            type: "object",
            properties: { level: { oneOf: [{ $ref: "#/components/schemas/Level" }, { type: "null" }] } },
          },
        },
      },
    };
    const converted = toOpenApi30(document) as { components: { schemas: Record<string, Json> } };
    expect(converted.components.schemas.Course.properties).to.deep.equal({
      level: { allOf: [{ $ref: "#/components/schemas/Level" }], type: "string", nullable: true },
    });
  });

  it("webhooks, info.summary, license.identifier and jsonSchemaDialect", () => {
    const converted = toOpenApi30({
      openapi: "3.1.0",
      jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
      info: { title: "t", version: "1", summary: "s", license: { name: "MIT", identifier: "MIT" } },
      paths: {},
      webhooks: { ping: { post: { operationId: "onPing", responses: { "200": { description: "ok" } } } } },
    });
    expect(converted).to.deep.equal({
      openapi: "3.0.3",
      info: { title: "t", version: "1", "x-summary": "s", license: { name: "MIT", "x-identifier": "MIT" } },
      paths: {},
      components: {},
      "x-webhooks": { ping: { post: { operationId: "onPing", responses: { "200": { description: "ok" } } } } },
    });
  });
});
