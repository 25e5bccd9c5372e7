// One flat view of a schema for comparison: `$ref`s followed, `allOf` merged,
// `const` read as a one-value enum, and a `oneOf`/`anyOf` of one schema and
// `{type: "null"}` read as that schema with "null" added to its types (the
// OpenAPI 3.1 spelling of "nullable", compared like `type: [x, "null"]`).
import { componentName, isObject, type Json, type Resolver } from "./load.ts";

export const UPPER_BOUNDS = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"] as const;
export const LOWER_BOUNDS = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"] as const;
type Bound = (typeof UPPER_BOUNDS)[number] | (typeof LOWER_BOUNDS)[number];

export interface SchemaView {
  /** Allowed JSON types; undefined when any type is allowed. */
  types?: Set<string>;
  enum?: unknown[];
  bounds: Partial<Record<Bound, number>>;
  pattern?: string;
  format?: string;
  multipleOf?: number;
  uniqueItems: boolean;
  default?: unknown;
  properties: Map<string, unknown>;
  required: Set<string>;
  /** false when closed; a schema for the values of other properties; undefined when open. */
  additionalProperties?: unknown;
  items?: unknown;
  variants?: { list: unknown[]; tagged: boolean };
  deprecated: boolean;
  annotations: { description?: unknown; title?: unknown; examples?: unknown };
}

const ANNOTATION_ONLY = new Set([
  "description",
  "title",
  "examples",
  "example",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
]);

/** `skipMembers`: references among the schema's allOf members to leave out (compared on their own). */
export function viewSchema(schema: unknown, resolver: Resolver, skipMembers: Set<string> = new Set()): SchemaView {
  const { node } = resolver.resolve(schema);
  const raw: Json = isObject(node) ? node : {};
  const view = ownKeywords(raw);
  for (const member of allOfMembers(raw, resolver))
    if (!skipMembers.has(member.ref ?? "")) mergeInto(view, viewSchema(member.schema, resolver));
  foldUnion(view, raw, resolver);
  return view;
}

/** The allOf members of a schema, each with the component it plainly refers to, if it does. */
export function allOfMembers(schema: unknown, resolver: Resolver): { schema: unknown; ref?: string }[] {
  const raw = resolver.object(schema);
  if (!Array.isArray(raw.allOf)) return [];
  return raw.allOf.map((member) => ({
    schema: member,
    ref: isObject(member) && typeof member.$ref === "string" ? resolver.resolve(member).ref : undefined,
  }));
}

export interface ComponentReference {
  /** "#/components/schemas/Course" */
  ref: string;
  /** "Course" */
  component: string;
  /** The reference is wrapped in a oneOf/anyOf with `{type: "null"}`. */
  nullable: boolean;
  /** Annotations the wrapper puts beside the reference. */
  annotations: SchemaView["annotations"];
}

/**
 * A schema that only points at a component: `{$ref}`, `{allOf: [{$ref}]}` with
 * annotations (how this document describes a referenced property), or either
 * of them in a union with `{type: "null"}`.
 */
export function componentReference(schema: unknown, resolver: Resolver): ComponentReference | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema.$ref === "string") {
    const { ref } = resolver.resolve(schema);
    return ref ? { ref, component: componentName(ref)!, nullable: false, annotations: {} } : undefined;
  }
  const annotations = {
    description: schema.description,
    title: schema.title,
    examples: schema.examples ?? schema.example,
  };
  const wrapperKeys = Object.keys(schema).filter((k) => !ANNOTATION_ONLY.has(k));
  if (wrapperKeys.length !== 1) return undefined;
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) {
    const inner = componentReference(schema.allOf[0], resolver);
    return inner && { ...inner, annotations };
  }
  const union = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (union?.length === 2) {
    const nullIndex = union.findIndex((member) => resolver.object(member).type === "null");
    const inner = nullIndex < 0 ? undefined : componentReference(union[1 - nullIndex], resolver);
    return inner && { ...inner, nullable: true, annotations };
  }
  return undefined;
}

function ownKeywords(raw: Json): SchemaView {
  const types =
    raw.type === undefined ? undefined : new Set<string>(Array.isArray(raw.type) ? raw.type : [raw.type as string]);
  if (types && raw.nullable === true) types.add("null"); // OpenAPI 3.0 documents
  const bounds: SchemaView["bounds"] = {};
  for (const bound of [...UPPER_BOUNDS, ...LOWER_BOUNDS])
    if (typeof raw[bound] === "number") bounds[bound] = raw[bound] as number;
  const closed = raw.additionalProperties === false || raw.unevaluatedProperties === false;
  return {
    types,
    enum: "const" in raw ? [raw.const] : Array.isArray(raw.enum) ? raw.enum : undefined,
    bounds,
    pattern: typeof raw.pattern === "string" ? raw.pattern : undefined,
    format: typeof raw.format === "string" ? raw.format : undefined,
    multipleOf: typeof raw.multipleOf === "number" ? raw.multipleOf : undefined,
    uniqueItems: raw.uniqueItems === true,
    default: raw.default,
    properties: new Map(Object.entries(isObject(raw.properties) ? raw.properties : {})),
    required: new Set(Array.isArray(raw.required) ? (raw.required as string[]) : []),
    additionalProperties: closed ? false : raw.additionalProperties === true ? undefined : raw.additionalProperties,
    items: raw.items,
    deprecated: raw.deprecated === true,
    annotations: { description: raw.description, title: raw.title, examples: raw.examples ?? raw.example },
  };
}

/** allOf: every member applies, so properties and requirements add up. */
function mergeInto(view: SchemaView, member: SchemaView): void {
  if (member.types)
    view.types = view.types ? new Set([...view.types].filter((t) => member.types!.has(t))) : member.types;
  view.enum ??= member.enum;
  for (const [bound, value] of Object.entries(member.bounds) as [Bound, number][]) view.bounds[bound] ??= value;
  view.pattern ??= member.pattern;
  view.format ??= member.format;
  view.multipleOf ??= member.multipleOf;
  view.uniqueItems ||= member.uniqueItems;
  view.default ??= member.default;
  for (const [name, schema] of member.properties) {
    const own = view.properties.get(name);
    view.properties.set(name, own === undefined ? schema : { allOf: [own, schema] });
  }
  for (const name of member.required) view.required.add(name);
  if (member.additionalProperties !== undefined && view.additionalProperties === undefined)
    view.additionalProperties = member.additionalProperties;
  view.items ??= member.items;
  view.variants ??= member.variants;
  view.deprecated ||= member.deprecated;
}

function foldUnion(view: SchemaView, raw: Json, resolver: Resolver): void {
  const list = Array.isArray(raw.oneOf) ? raw.oneOf : Array.isArray(raw.anyOf) ? raw.anyOf : undefined;
  if (!list) return;
  const isNull = (member: unknown) => {
    const node = resolver.object(member);
    return node.type === "null" || (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === "null");
  };
  const others = list.filter((member) => !isNull(member));
  if (others.length === 1 && others.length < list.length) {
    const inner = viewSchema(others[0], resolver);
    const types = inner.types ? new Set([...inner.types, "null"]) : undefined;
    Object.assign(view, { ...inner, types, annotations: view.annotations, default: view.default ?? inner.default });
    return;
  }
  view.variants = { list, tagged: isObject(raw.discriminator) };
}
