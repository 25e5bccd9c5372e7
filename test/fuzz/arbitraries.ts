// Turns the JSON Schemas of the OpenAPI document into fast-check arbitraries:
// values that satisfy a schema, and mutations of such a value that each break
// one constraint at a known place, so a test knows which pointer a 400 must name.
import fc from "fast-check";

export type JsonSchema = { [keyword: string]: unknown };

/**
 * How a value travels: inside a JSON body, as text in the path or query string
 * (the server coerces it), or as a header value (printable ASCII only).
 */
export type Wire = "json" | "text" | "header";

/** One broken constraint: where (path segments inside the value) and how. */
export interface Mutation {
  at: string[];
  breaks: string;
  /** The replacement value, or `remove` to delete the member. */
  value?: unknown;
  remove?: true;
  /** Where inside the replacement the 400 points, when not at the replacement itself. */
  inside?: string[];
}

// Keywords the generator understands; any other one in the document stops the
// fuzzer loudly instead of silently generating values it cannot vouch for.
const UNDERSTOOD = new Set([
  "type",
  "enum",
  "pattern",
  // An example of the pattern for error messages (request-errors.ts): no constraint of its own.
  "x-pattern-example",
  // The constant names generated clients give an enum's values (docs/partners.md): no constraint.
  "x-enum-varnames",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "oneOf",
  "anyOf",
  "allOf",
  "$ref",
  "default",
  "description",
  "examples",
  "example",
  "title",
]);

/** Generated strings and arrays stay this much above their minimum, except at the maximum boundary. */
const TYPICAL_EXTRA_LENGTH = 40;
const TYPICAL_EXTRA_ITEMS = 4;

/** Printable ASCII mostly; any code point (NUL, controls, astral) sometimes. */
const textCharacter = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
);
/** JSON strings may also escape a lone surrogate ("\ud800"), which no URL can carry. */
const jsonCharacter = fc.oneof(
  { weight: 20, arbitrary: textCharacter },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);
/** What an HTTP header value may carry without being trimmed or refused by the client. */
const headerCharacter = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
const CHARACTER: Record<Wire, fc.Arbitrary<string>> = {
  json: jsonCharacter,
  text: textCharacter,
  header: headerCharacter,
};

/** Text Number() reads as an integer, but not written in decimal digits or not a safe integer. */
const NOT_DECIMAL_INTEGERS = [
  "0x10",
  "1e1",
  "+5",
  " 5",
  "5 ",
  "5.0",
  "0b1",
  "9007199254740992",
  "99999999999999999999",
  "-99999999999999999999",
];

const SAMPLE_OF_TYPE: Record<string, unknown> = {
  string: "x",
  integer: 7,
  number: 1.5,
  boolean: true,
  null: null,
  object: {},
  array: [],
};

export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function allows(types: string[], value: unknown): boolean {
  const type = jsonType(value);
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

function withinLength(text: string, schema: JsonSchema): boolean {
  const length = [...text].length; // JSON Schema counts code points
  return length >= ((schema.minLength as number) ?? 0) && length <= ((schema.maxLength as number) ?? Infinity);
}

export class SchemaArbitraries {
  /**
   * @param hint may replace the generated values of a named object member (ids
   * of records that exist, say); it receives the values the schema alone gives.
   */
  constructor(
    private readonly document: JsonSchema,
    private readonly hint: (name: string, fromSchema: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown> = (
      _name,
      fromSchema,
    ) => fromSchema,
  ) {}

  /** Follows `$ref` and folds `allOf` into one schema (the document uses allOf to annotate a $ref). */
  resolve(schema: JsonSchema): JsonSchema {
    if (typeof schema.$ref === "string") {
      const { $ref, ...siblings } = schema;
      return this.resolve({ ...this.lookup($ref as string), ...siblings });
    }
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...siblings } = schema;
      return (allOf as JsonSchema[]).map((member) => this.resolve(member)).reduce(mergeSchemas, siblings);
    }
    const unknown = Object.keys(schema).filter((keyword) => !UNDERSTOOD.has(keyword));
    if (unknown.length)
      throw new Error(
        `The fuzzer does not understand the keyword(s) ${unknown.join(", ")} in ${JSON.stringify(schema)}`,
      );
    return schema;
  }

  /** The JSON types a schema admits. */
  typesOf(schema: JsonSchema): string[] {
    if (Array.isArray(schema.type)) return schema.type as string[];
    if (typeof schema.type === "string") return [schema.type];
    if (Array.isArray(schema.enum)) return [...new Set((schema.enum as unknown[]).map(jsonType))];
    if (schema.properties) return ["object"];
    if (schema.items) return ["array"];
    throw new Error(`The fuzzer cannot tell the type of ${JSON.stringify(schema)}`);
  }

  /** Values that validate against the schema. */
  valid(raw: JsonSchema, wire: Wire = "json"): fc.Arbitrary<unknown> {
    const schema = this.resolve(raw);
    const branches = branchesOf(schema);
    if (branches) return fc.oneof(...branches.map((branch) => this.valid(branch, wire)));
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    return fc.oneof(...this.typesOf(schema).map((type) => this.validOfType(schema, type, wire)));
  }

  private validOfType(schema: JsonSchema, type: string, wire: Wire): fc.Arbitrary<unknown> {
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return fc.integer({
          min: Math.ceil((schema.minimum as number) ?? Number.MIN_SAFE_INTEGER),
          max: Math.floor((schema.maximum as number) ?? Number.MAX_SAFE_INTEGER),
        });
      case "number":
        return fc.double({
          min: schema.minimum as number,
          max: schema.maximum as number,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case "string":
        return this.validString(schema, wire);
      case "array":
        return this.validArray(schema, wire);
      case "object":
        return this.validObject(schema, wire);
      default:
        throw new Error(`The fuzzer does not know the type ${type}`);
    }
  }

  private validString(schema: JsonSchema, wire: Wire): fc.Arbitrary<string> {
    if (typeof schema.pattern === "string") {
      return fc.stringMatching(new RegExp(schema.pattern, "u")).filter((text) => withinLength(text, schema));
    }
    if (schema.format === "uri") {
      return fc.webUrl({ withQueryParameters: true, withFragments: true }).filter((text) => withinLength(text, schema));
    }
    if (schema.format === "date-time") {
      return fc
        .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
        .map((date) => date.toISOString());
    }
    if (schema.format === "date") {
      return fc
        .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    }
    if (schema.format !== undefined)
      throw new Error(`The fuzzer does not generate the format ${String(schema.format)}`);
    const unit = CHARACTER[wire];
    const min = (schema.minLength as number) ?? 0;
    const max = schema.maxLength as number | undefined;
    const typical = fc.string({
      unit,
      minLength: min,
      maxLength: Math.min(max ?? Infinity, min + TYPICAL_EXTRA_LENGTH),
    });
    const atMaximum = max === undefined ? typical : fc.string({ unit, minLength: max, maxLength: max });
    // A lone high and a lone low surrogate side by side make one code point: recount.
    return fc
      .oneof({ weight: 9, arbitrary: typical }, { weight: 1, arbitrary: atMaximum })
      .filter((text) => withinLength(text, schema));
  }

  private validArray(schema: JsonSchema, wire: Wire): fc.Arbitrary<unknown[]> {
    const items = this.valid(schema.items as JsonSchema, wire);
    const minLength = (schema.minItems as number) ?? 0;
    const maxLength = Math.min((schema.maxItems as number) ?? Infinity, minLength + TYPICAL_EXTRA_ITEMS);
    return schema.uniqueItems
      ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
      : fc.array(items, { minLength, maxLength });
  }

  private validObject(schema: JsonSchema, wire: Wire): fc.Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    if (Object.keys(properties).length === 0 && schema.additionalProperties !== false) {
      // A free-form object (metadata): any JSON members.
      return fc.dictionary(
        fc.string({ unit: jsonCharacter, maxLength: 20 }),
        fc.jsonValue({ maxDepth: 2, stringUnit: jsonCharacter }),
        { maxKeys: 5 },
      );
    }
    const members = Object.fromEntries(
      Object.entries(properties).map(([name, member]) => [name, this.hint(name, this.valid(member, wire))]),
    );
    const minProperties = (schema.minProperties as number) ?? 0;
    return fc
      .record(members, { requiredKeys: (schema.required as string[]) ?? [] })
      .filter((value) => Object.keys(value).length >= minProperties);
  }

  /**
   * Ways to break `value` (valid against `raw`) at one place each: a wrong type,
   * a value outside the enum, a pattern or length or range violation, a missing
   * required member, an unknown member, too few, too many or repeated items.
   * `alsoAdmitted`: the types the sibling branches of a oneOf/anyOf admit, which
   * a replacement of the whole value must not have, or it would be valid there.
   */
  mutations(
    raw: JsonSchema,
    value: unknown,
    at: string[] = [],
    wire: Wire = "json",
    alsoAdmitted: string[] = [],
  ): fc.Arbitrary<Mutation>[] {
    const schema = this.resolve(raw);
    if (branchesOf(schema)) return this.branchMutations(schema, value, at, wire);
    const found: fc.Arbitrary<Mutation>[] = [];
    const breaking = (breaks: string, replacement: fc.Arbitrary<unknown>) =>
      found.push(replacement.map((replaced) => ({ at, breaks, value: replaced })));

    const wrongType = this.wrongTypeValues([...this.typesOf(schema), ...alsoAdmitted], wire);
    if (wrongType.length) breaking("type", fc.constantFrom(...wrongType));
    // A value outside the enum is text: a break only where no sibling branch takes text.
    if (Array.isArray(schema.enum) && !alsoAdmitted.includes("string")) {
      const allowed = new Set(schema.enum as unknown[]);
      breaking(
        "enum",
        this.validString({ minLength: 1, maxLength: 30 }, wire).filter((text) => !allowed.has(text)),
      );
    }
    if (typeof value === "string") found.push(...this.stringMutations(schema, at, wire));
    if (typeof value === "number") found.push(...this.numberMutations(schema, at));
    if (Array.isArray(value)) found.push(...this.arrayMutations(schema, value, at, wire));
    if (jsonType(value) === "object")
      found.push(...this.memberMutations(schema, value as Record<string, unknown>, at, wire));
    return found;
  }

  /** Breaks of a oneOf or anyOf: a type no branch admits, or a break inside the one branch of the value's type. */
  private branchMutations(schema: JsonSchema, value: unknown, at: string[], wire: Wire): fc.Arbitrary<Mutation>[] {
    const branches = branchesOf(schema)!.map((branch) => this.resolve(branch));
    const found: fc.Arbitrary<Mutation>[] = [];
    const wrongType = this.wrongTypeValues(
      branches.flatMap((branch) => this.typesOf(branch)),
      wire,
    );
    if (wrongType.length)
      found.push(fc.constantFrom(...wrongType).map((replaced) => ({ at, breaks: "type", value: replaced })));
    // Breaking the value inside the branch of its own type leaves every other branch failing on type,
    // provided a replacement of the whole value takes none of the other branches' types either (an
    // object for an array of objects, null for a nullable enum would be valid, or fail elsewhere).
    const own = branches.filter((branch) => allows(this.typesOf(branch), value));
    if (own.length === 1) {
      const others = branches.filter((branch) => branch !== own[0]).flatMap((branch) => this.typesOf(branch));
      found.push(...this.mutations(own[0], value, at, wire, others));
    }
    return found;
  }

  private wrongTypeValues(types: string[], wire: Wire): unknown[] {
    if (wire === "header") return [];
    if (wire === "text") {
      // On the wire everything is text: only text the server cannot coerce is of a wrong type. A
      // repeated parameter (an array, style form with explode) given once is a list of one value.
      if (types.includes("string") || types.includes("array")) return [];
      // Integers are written in decimal digits and are safe integers: Number() would take the rest.
      return types.includes("integer") && !types.includes("number") ? ["abc", "1.5", ...NOT_DECIMAL_INTEGERS] : ["abc"];
    }
    return Object.values(SAMPLE_OF_TYPE).filter((sample) => !allows(types, sample));
  }

  private stringMutations(schema: JsonSchema, at: string[], wire: Wire): fc.Arbitrary<Mutation>[] {
    const found: fc.Arbitrary<Mutation>[] = [];
    const min = (schema.minLength as number) ?? 0;
    const max = schema.maxLength as number | undefined;
    const unit = CHARACTER[wire];
    if (typeof schema.pattern === "string") {
      const pattern = new RegExp(schema.pattern, "u");
      const text = this.validString({ minLength: min, maxLength: max }, wire).filter(
        (candidate) => !pattern.test(candidate),
      );
      found.push(text.map((value) => ({ at, breaks: "pattern", value })));
    }
    if (max !== undefined) {
      const tooLong = fc
        .string({ unit, minLength: max + 1, maxLength: max + 1 })
        .filter((text) => [...text].length > max);
      found.push(tooLong.map((value) => ({ at, breaks: "maxLength", value })));
    }
    if (min > 0) {
      found.push(fc.string({ unit, maxLength: min - 1 }).map((value) => ({ at, breaks: "minLength", value })));
    }
    return found;
  }

  private numberMutations(schema: JsonSchema, at: string[]): fc.Arbitrary<Mutation>[] {
    const found: fc.Arbitrary<Mutation>[] = [];
    const distance = fc.integer({ min: 1, max: 1_000_000 });
    if (typeof schema.maximum === "number") {
      const maximum = schema.maximum;
      found.push(distance.map((above) => ({ at, breaks: "maximum", value: maximum + above })));
    }
    if (typeof schema.minimum === "number") {
      const minimum = schema.minimum;
      found.push(distance.map((below) => ({ at, breaks: "minimum", value: minimum - below })));
    }
    return found;
  }

  private arrayMutations(schema: JsonSchema, value: unknown[], at: string[], wire: Wire): fc.Arbitrary<Mutation>[] {
    const found: fc.Arbitrary<Mutation>[] = [];
    const minItems = (schema.minItems as number) ?? 0;
    const maxItems = schema.maxItems as number | undefined;
    if (minItems > 0) found.push(fc.constant({ at, breaks: "minItems", value: value.slice(0, minItems - 1) }));
    if (maxItems !== undefined) {
      const extra = fc.array(this.valid(schema.items as JsonSchema, wire), {
        minLength: maxItems + 1 - value.length,
        maxLength: maxItems + 1 - value.length,
      });
      found.push(extra.map((more) => ({ at, breaks: "maxItems", value: [...value, ...more] })));
    }
    if (schema.uniqueItems && value.length > 0 && value.length < (maxItems ?? Infinity)) {
      found.push(fc.constant({ at, breaks: "uniqueItems", value: [...value, value[0]] }));
    }
    value.forEach((item, index) =>
      found.push(...this.mutations(schema.items as JsonSchema, item, [...at, String(index)], wire)),
    );
    return found;
  }

  /** The mutations of an object's members (not of the object as a whole). */
  memberMutations(
    schema: JsonSchema,
    value: Record<string, unknown>,
    at: string[],
    wire: Wire,
  ): fc.Arbitrary<Mutation>[] {
    const found: fc.Arbitrary<Mutation>[] = [];
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = (schema.required as string[]) ?? [];
    for (const name of required)
      found.push(fc.constant({ at: [...at, name], breaks: "required", remove: true as const }));
    if (schema.additionalProperties === false) {
      // Query names stay plain: the query parser reads brackets and dots as structure, and
      // drops names of Object.prototype members ("constructor") rather than passing them on.
      const names =
        wire === "json"
          ? fc.string({ unit: jsonCharacter, minLength: 1, maxLength: 20 })
          : fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,15}$/).filter((name) => !(name in Object.prototype));
      const unknown = names.filter((name) => !Object.hasOwn(properties, name));
      const member =
        wire === "json" ? fc.jsonValue({ maxDepth: 1 }) : fc.string({ unit: headerCharacter, maxLength: 10 });
      found.push(
        fc
          .tuple(unknown, member)
          .map(([name, extra]) => ({ at: [...at, name], breaks: "additionalProperties", value: extra })),
      );
    }
    if (((schema.minProperties as number) ?? 0) > 0 && required.length === 0) {
      found.push(fc.constant({ at, breaks: "minProperties", value: {} }));
    }
    for (const [name, member] of Object.entries(value)) {
      if (Object.hasOwn(properties, name)) found.push(...this.mutations(properties[name], member, [...at, name], wire));
    }
    return found;
  }

  private lookup(ref: string): JsonSchema {
    if (!ref.startsWith("#/")) throw new Error(`The fuzzer resolves local references only, not ${ref}`);
    const segments = ref
      .slice(2)
      .split("/")
      .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
    const target = segments.reduce<unknown>(
      (node, segment) => (node as Record<string, unknown> | undefined)?.[segment],
      this.document,
    );
    if (!target || typeof target !== "object") throw new Error(`Unresolvable reference ${ref}`);
    return target as JsonSchema;
  }
}

/** The branches of a oneOf or an anyOf (a value valid against one branch is valid against both). */
function branchesOf(schema: JsonSchema): JsonSchema[] | undefined {
  const branches = schema.oneOf ?? schema.anyOf;
  return Array.isArray(branches) ? (branches as JsonSchema[]) : undefined;
}

function mergeSchemas(into: JsonSchema, member: JsonSchema): JsonSchema {
  const merged: JsonSchema = { ...member, ...into };
  if (into.required || member.required)
    merged.required = [...((member.required as string[]) ?? []), ...((into.required as string[]) ?? [])];
  if (into.properties || member.properties)
    merged.properties = { ...(member.properties as object), ...(into.properties as object) };
  return merged;
}

/**
 * Replaces one value inside `root` (the root included) with arrays and one-member
 * objects nested past `maxDepth` levels (the root is level 1); the 400 points at
 * the first container beyond the limit.
 */
export function tooDeep(root: unknown, maxDepth: number): fc.Arbitrary<Mutation> {
  const places = containerPaths(root);
  const key = fc.option(fc.string({ unit: "grapheme-ascii", maxLength: 6 }), { nil: null });
  return fc.tuple(fc.constantFrom(...places), fc.integer({ min: 0, max: 3 })).chain(([at, extra]) => {
    // The value at `at` is at level at.length + 1; the container at level maxDepth + 1 is the one pointed at.
    const levels = maxDepth + 1 - at.length + extra;
    return fc.array(key, { minLength: levels, maxLength: levels }).map((keys) => {
      const segments = keys.map((name) => name ?? "0");
      const value = keys.reduceRight<unknown>((inner, name) => (name === null ? [inner] : { [name]: inner }), 1);
      return { at, breaks: "depth", value, inside: segments.slice(0, maxDepth - at.length) };
    });
  });
}

/** The paths of every value inside `root` that a replacement can take the place of, the root itself first. */
function containerPaths(root: unknown, at: string[] = []): string[][] {
  if (root === null || typeof root !== "object") return [at];
  return [at, ...Object.entries(root).flatMap(([name, value]) => containerPaths(value, [...at, name]))];
}

/** RFC 6901: a pointer from path segments. */
export function toPointer(segments: string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

export function applyMutation<T>(root: T, mutation: Mutation): T {
  if (mutation.at.length === 0) return mutation.value as T;
  const copy = structuredClone(root);
  const parent = mutation.at
    .slice(0, -1)
    .reduce<Record<string, unknown>>(
      (node, segment) => node[segment] as Record<string, unknown>,
      copy as Record<string, unknown>,
    );
  const last = mutation.at[mutation.at.length - 1];
  if (mutation.remove) delete parent[last];
  // An own member even when named "__proto__", as JSON.parse on the server will make it.
  else
    Object.defineProperty(parent, last, {
      value: mutation.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}
