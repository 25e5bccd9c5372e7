// The OpenAPI 3.0.3 rendition of openapi.yaml, for tools that read 3.0 better than 3.1
// (OpenAPI Generator's Java, Python, C#, Go and TypeScript clients: docs/partners.md).
// `npm run generate` writes it into generated/openapi-3.0.{json,yaml}; the service
// serves it at /api/v1/openapi-3.0.json and .yaml. The contract is the same: only its
// spelling changes, and what 3.0 cannot say is carried in `x-` extensions, never lost.
//
// What is converted (each also in docs/partners.md):
//   openapi: 3.1.x                     → 3.0.3
//   jsonSchemaDialect, $schema, $id, $anchor, $dynamicAnchor, $comment  → removed
//   webhooks                           → x-webhooks (Redocly's 3.0 spelling; generators skip it)
//   info.summary, license.identifier   → x-summary, x-identifier
//   components.pathItems               → x-pathItems
//   type: [T, "null"]                  → type: T, nullable: true
//   type: [T1, T2, …]                  → oneOf: [{type: T1}, {type: T2}, …] (nullable if "null" was one)
//   type: "null" alone                 → nullable: true, enum: [null]
//   oneOf/anyOf: [X, {type: "null"}]   → X (a $ref as allOf: [X], with the referenced schema's
//                                        type when it is a scalar) with nullable: true
//   const: v                           → enum: [v], with the type v implies when none is given
//   enum with null                     → nullable: true, null left out of the enum (generators
//                                        otherwise emit a NULL member or refuse the enum)
//   examples: [a, …] (schema)          → example: a
//   exclusiveMinimum/Maximum: n        → minimum/maximum: n, exclusiveMinimum/Maximum: true
//   prefixItems: [A, B]                → items: {anyOf: [A, B]}, minItems/maxItems, x-prefixItems
//   $defs, contentMediaType, contentEncoding, contentSchema, patternProperties,
//   propertyNames, unevaluatedProperties/Items, dependentRequired/Schemas, if/then/else,
//   contains/minContains/maxContains   → x-<keyword> (kept for readers, not enforced)
//   true / false as a schema           → {} / {not: {}}
//   $ref beside other keywords         → allOf: [{$ref}] plus the keywords (schemas);
//                                        summary/description dropped (other references)
import YAML from "yaml";

type Json = Record<string, unknown>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** JSON Schema 2020-12 keywords with no OpenAPI 3.0 counterpart: kept as `x-<keyword>`. */
export const CARRIED = [
  "$defs",
  "contentMediaType",
  "contentEncoding",
  "contentSchema",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "contains",
  "minContains",
  "maxContains",
];
const DROPPED = ["$schema", "$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$comment"];

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isNullSchema = (schema: unknown) =>
  isObject(schema) &&
  (schema.type === "null" || (Array.isArray(schema.type) && schema.type.length === 1 && schema.type[0] === "null"));

function typeOfValue(value: unknown): string | undefined {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (Array.isArray(value)) return "array";
  if (isObject(value)) return "object";
  return undefined;
}

/** What the conversion needs to know of the rest of the document. */
export interface Context {
  /** The `type` of the schema a `$ref` points to, if it states one. */
  typeOfRef?: (ref: string) => string | undefined;
}

/** A Schema Object, converted. */
export function convertSchema(input: unknown, context: Context = {}): Json {
  const convert = (value: unknown) => convertSchema(value, context);
  if (input === true) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return input as Json;
  const schema: Json = {};
  let nullable = false;
  for (const [key, value] of Object.entries(input)) {
    if (DROPPED.includes(key)) continue;
    if (CARRIED.includes(key)) {
      schema[`x-${key}`] = value;
      continue;
    }
    switch (key) {
      case "properties":
        schema.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, convert(v)]));
        break;
      case "items":
      case "not":
        schema[key] = convert(value);
        break;
      case "additionalProperties":
        schema[key] = typeof value === "boolean" ? value : convert(value);
        break;
      case "allOf":
        schema[key] = (value as unknown[]).map(convert);
        break;
      case "examples":
        if (Array.isArray(value) && value.length) schema.example = value[0];
        break;
      case "const":
        schema.enum = [value];
        break;
      default:
        schema[key] = value;
    }
  }
  // type arrays
  if (Array.isArray(input.type)) {
    const types = (input.type as string[]).filter((t) => t !== "null");
    nullable = types.length < input.type.length;
    delete schema.type;
    if (types.length === 1) schema.type = types[0];
    else if (types.length > 1) schema.oneOf = types.map((t) => (t === "array" ? { type: t, items: {} } : { type: t }));
    else schema.enum = [null];
  } else if (input.type === "null") {
    delete schema.type;
    nullable = true;
    schema.enum = [null];
  }
  // oneOf/anyOf with null branches
  for (const key of ["oneOf", "anyOf"] as const) {
    if (!Array.isArray(input[key])) continue;
    const branches = input[key] as unknown[];
    const rest = branches.filter((branch) => !isNullSchema(branch)).map(convert);
    if (rest.length < branches.length) nullable = true;
    delete schema[key];
    if (rest.length === 1 && rest.length < branches.length) {
      const only = rest[0];
      if (typeof only.$ref === "string") {
        // 3.0.3 reads `nullable` only beside a `type`: state the referenced schema's when it is a scalar.
        schema.allOf = [...((schema.allOf as Json[]) ?? []), only];
        const type = context.typeOfRef?.(only.$ref);
        if (type && !("type" in schema)) schema.type = type;
      } else for (const [k, v] of Object.entries(only)) if (!(k in schema)) schema[k] = v;
    } else if (rest.length) schema[key] = rest;
  }
  // const without a type: the type its value implies
  if ("const" in input && !("type" in input) && !schema.oneOf) {
    const implied = typeOfValue(input.const);
    if (implied) schema.type = implied;
  }
  // null inside enum: nullable instead
  if (Array.isArray(schema.enum) && schema.enum.includes(null) && schema.enum.length > 1) {
    nullable = true;
    schema.enum = schema.enum.filter((value) => value !== null);
  }
  if (nullable) schema.nullable = true;
  // numeric exclusive bounds
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof input[exclusive] === "number") {
      schema[bound] = input[exclusive];
      schema[exclusive] = true;
    }
  }
  // tuples
  if (Array.isArray(input.prefixItems)) {
    const tuple = (input.prefixItems as unknown[]).map(convert);
    delete schema.prefixItems;
    schema["x-prefixItems"] = tuple;
    schema.items =
      input.items === false || !("items" in input) ? { anyOf: tuple } : { anyOf: [...tuple, schema.items] };
    schema.minItems ??= tuple.length;
    if (input.items === false) schema.maxItems ??= tuple.length;
  }
  // a $ref beside other keywords: 3.0 ignores the siblings
  if (typeof schema.$ref === "string" && Object.keys(schema).length > 1) {
    const { $ref, ...siblings } = schema;
    return { allOf: [{ $ref }, ...((siblings.allOf as Json[]) ?? [])], ...withoutKey(siblings, "allOf") };
  }
  return schema;
}

function withoutKey(object: Json, key: string): Json {
  const { [key]: _, ...rest } = object;
  return rest;
}

/** A Reference Object keeps only `$ref` in 3.0 (3.1 allows summary and description beside it). */
function reference(object: Json): Json | null {
  return typeof object.$ref === "string" ? { $ref: object.$ref } : null;
}

function mapValues(object: unknown, fn: (value: Json) => Json): Json | undefined {
  if (!isObject(object)) return undefined;
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, fn(value as Json)]));
}

/** The converters of the objects that hold schemas, over one document. */
function objectConverters(context: Context) {
  const convertContent = (content: unknown) =>
    mapValues(content, (media) => ({
      ...media,
      ...(media.schema !== undefined ? { schema: convertSchema(media.schema, context) } : {}),
    }));
  const convertParameter = (parameter: Json): Json => {
    const ref = reference(parameter);
    if (ref) return ref;
    const converted: Json = { ...parameter };
    if (parameter.schema !== undefined) converted.schema = convertSchema(parameter.schema, context);
    if (parameter.content !== undefined) converted.content = convertContent(parameter.content);
    return converted;
  };
  const convertWithContent = (object: Json): Json => {
    const ref = reference(object);
    if (ref) return ref;
    const converted: Json = { ...object };
    if (object.content !== undefined) converted.content = convertContent(object.content);
    if (object.headers !== undefined) converted.headers = mapValues(object.headers, convertParameter);
    return converted;
  };
  const convertOperation = (operation: Json): Json => {
    const converted: Json = { ...operation };
    if (Array.isArray(operation.parameters)) converted.parameters = operation.parameters.map(convertParameter);
    if (operation.requestBody !== undefined) converted.requestBody = convertWithContent(operation.requestBody as Json);
    if (operation.responses !== undefined) converted.responses = mapValues(operation.responses, convertWithContent);
    if (operation.callbacks !== undefined)
      converted.callbacks = mapValues(
        operation.callbacks,
        (callback) => reference(callback) ?? (mapValues(callback, convertPathItem) as Json),
      );
    return converted;
  };
  const convertPathItem = (item: Json): Json => {
    const converted: Json = { ...item };
    if (Array.isArray(item.parameters)) converted.parameters = item.parameters.map(convertParameter);
    for (const method of METHODS) if (isObject(item[method])) converted[method] = convertOperation(item[method]);
    return converted;
  };
  return { convertParameter, convertWithContent, convertPathItem };
}

/**
 * The scalar type a component schema states (string, integer, number, boolean), if any. Only
 * those are written beside a nullable `allOf: [$ref]`: with `type: object` there, OpenAPI
 * Generator types a property of an inline `allOf` member as a free-form object (`Object`,
 * `Dict[str, Any]`, `map[string]interface{}`) instead of the referenced model.
 */
function componentTypes(document: Json): Context["typeOfRef"] {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const prefix = "#/components/schemas/";
  const scalar = (type: unknown) =>
    typeof type === "string" && ["string", "integer", "number", "boolean"].includes(type) ? type : undefined;
  return (ref) => {
    const schema = ref.startsWith(prefix) ? schemas[ref.slice(prefix.length)] : undefined;
    if (!isObject(schema)) return undefined;
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t) => t !== "null");
      return types.length === 1 ? scalar(types[0]) : undefined;
    }
    return scalar(schema.type);
  };
}

/** The whole document, converted; the input is not modified. */
export function toOpenApi30(document: Json): Json {
  const { jsonSchemaDialect: _dialect, webhooks, $schema: _schema, ...rest } = document;
  const info = { ...(document.info as Json) };
  if (info.summary !== undefined) {
    info["x-summary"] = info.summary;
    delete info.summary;
  }
  if (isObject(info.license) && info.license.identifier !== undefined) {
    const { identifier, ...license } = info.license;
    info.license = { ...license, "x-identifier": identifier };
  }
  const context: Context = { typeOfRef: componentTypes(document) };
  const { convertParameter, convertWithContent, convertPathItem } = objectConverters(context);
  const components = { ...((document.components as Json) ?? {}) };
  const { pathItems, ...componentsRest } = components;
  const converted: Json = {
    ...rest,
    openapi: "3.0.3",
    info,
    paths: mapValues(document.paths, convertPathItem) ?? {},
    components: {
      ...componentsRest,
      ...(components.schemas
        ? { schemas: mapValues(components.schemas, (schema) => convertSchema(schema, context)) }
        : {}),
      ...(components.parameters ? { parameters: mapValues(components.parameters, convertParameter) } : {}),
      ...(components.headers ? { headers: mapValues(components.headers, convertParameter) } : {}),
      ...(components.responses ? { responses: mapValues(components.responses, convertWithContent) } : {}),
      ...(components.requestBodies ? { requestBodies: mapValues(components.requestBodies, convertWithContent) } : {}),
      ...(pathItems ? { "x-pathItems": mapValues(pathItems, convertPathItem) } : {}),
    },
  };
  if (webhooks !== undefined) converted["x-webhooks"] = mapValues(webhooks, convertPathItem);
  return converted;
}

/** generated/openapi-3.0.json and generated/openapi-3.0.yaml, each headed by `header`. */
export function renditionOutputs(document: Json, header: string): Map<string, string> {
  const rendition = toOpenApi30(structuredClone(document));
  return new Map([
    ["openapi-3.0.json", `${JSON.stringify({ "x-generated": header, ...rendition }, null, 2)}\n`],
    ["openapi-3.0.yaml", `# ${header}\n${YAML.stringify(rendition, { aliasDuplicateObjects: false, lineWidth: 0 })}`],
  ]);
}
