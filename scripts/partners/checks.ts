// The mis-generation detector of `npm run clients:partners` (docs/partners.md, "What the checks
// catch"). OpenAPI Generator rarely fails outright on a construct it does not understand: it
// warns, or says nothing, and writes a field typed `Object`/`any`, drops a `null` or an enum.
// So a client passes only when (1) its generator's log has no warning outside ACCEPTED_WARNINGS
// and (2) its model sources say what the document says, property by property.
//
// THE CHECK LIST (one place; each finding names its check):
export const CHECKS = {
  // (1) the generator's log
  "generator-failed": "the generator exited non-zero, logged an ERROR, or threw",
  "unsupported-construct":
    "the generator says something is not (yet) supported: OpenAPI 3.1 support, a type, a keyword",
  "unknown-type": "the generator met a type or reference it does not know",
  "any-fallback": "the generator typed a schema as Any/Object because it could not type it",
  "ambiguous-composition": "the generator found several candidate schemas in a oneOf/anyOf or ignored an allOf part",
  "duplicate-file": "two generated files differ only by case (one overwrites the other on some systems)",
  "unexplained-warning": "any other WARN line: each accepted one is listed in ACCEPTED_WARNINGS with its reason",
  // (2) the model sources against the document
  "model-missing": "a component schema (or an inline object of one) has no generated model",
  "property-missing": "a property of a schema is missing from its model",
  "typed-as-any": "a property with a concrete type in the document is Object/any/interface{}/object in the model",
  "lost-null": "a nullable property is not nullable in the model (in a language that says so: all five)",
  "enum-dropped": "an enum of the document is not an enum in the model (a plain string instead)",
  "enum-misnamed":
    'an enum constant\'s name does not read as its value (`LetterGrade.C` must be "C", not "C+"): see enumNameKey',
} as const;
export type CheckId = keyof typeof CHECKS;

/** Log lines that name a problem, by check. A WARN line matching none of these nor an accepted one is unexplained. */
const LOG_PATTERNS: { check: CheckId; pattern: RegExp }[] = [
  { check: "generator-failed", pattern: /\bERROR\b|Exception in thread|^\s+at [\w.$]+\(/ },
  { check: "unsupported-construct", pattern: /not (yet )?supported|unsupported|support is still in beta/i },
  { check: "unknown-type", pattern: /Unknown type|unknown format|Could not find|not found in|Unable to resolve/i },
  {
    check: "any-fallback",
    pattern: /Default to typing\.Any|AnyType|default(s|ing)? to (Object|any\b)|fall(s|ing)? ?back to (Object|any\b)/i,
  },
  { check: "ambiguous-composition", pattern: /Multiple schemas found|allOf.*(ignored|not supported)|oneOf.*ignored/i },
  { check: "duplicate-file", pattern: /Duplicate file path/i },
];

/** WARN lines that signal no mis-generation, each with the reason it is harmless. */
export const ACCEPTED_WARNINGS: { pattern: RegExp; reason: string; onlyIfModelsPass?: boolean }[] = [
  {
    pattern: /Failed to get the schema name: null/,
    reason:
      "logged (once per run) when an allOf or oneOf member is written inline rather than as a $ref, the 3.0 way to extend a model (CourseWithInstitution, EquivalencyExpanded, the events); the model inspection checks those members' properties",
  },
  {
    pattern: /\(reserved word\) cannot be used as (model|parameter|property) name\. Renamed to/,
    reason:
      "an identifier escaped in the target language (Go's `type` parameter as `type_`, C#'s `Environment` model as `ModelEnvironment`, `Version` property as `VarVersion`); types and JSON names are unchanged",
  },
  {
    pattern: /promoted to its own schema due to resolveInlineEnums=true/,
    reason: "partners/go.yaml asks for it (RESOLVE_INLINE_ENUMS): each inline enum becomes a named Go type",
  },
  {
    pattern: /Ignoring complex example on request body/,
    reason: "the Java generator leaves object-valued request examples out of its README and docs; no type is affected",
  },
  {
    pattern: /Codegen property is null \(e\.g\. map\/dict of undefined type\)\. Default to typing\.Any/,
    reason:
      "the Python generator logs it for each free-form object of the document (`metadata`, an event's `data`, JSON-LD nodes); accepted only when the model inspection finds no property with a concrete type typed Any",
    onlyIfModelsPass: true,
  },
];

export interface Finding {
  check: CheckId;
  where: string;
  detail: string;
}

/** The findings in a generator's output (stdout and stderr together). */
export function checkLog(log: string, exitCode: number | null, modelsPass: boolean): Finding[] {
  const findings: Finding[] = [];
  if (exitCode !== 0) findings.push({ check: "generator-failed", where: "generator", detail: `exit code ${exitCode}` });
  const seen = new Set<string>();
  for (const line of log.split("\n")) {
    const isWarning = /\bWARN\b/.test(line);
    const named = LOG_PATTERNS.find(({ pattern }) => pattern.test(line));
    if (!isWarning && !named) continue;
    const accepted = ACCEPTED_WARNINGS.find(({ pattern }) => pattern.test(line));
    if (isWarning && accepted && (!accepted.onlyIfModelsPass || modelsPass)) continue;
    const check: CheckId = named?.check ?? "unexplained-warning";
    const detail = line.replace(/^\[main\]\s*/, "").trim();
    if (seen.has(`${check}:${detail}`)) continue;
    seen.add(`${check}:${detail}`);
    findings.push({ check, where: "generator log", detail });
  }
  return findings;
}

// --- (2) the models ------------------------------------------------------------------------

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const SCALARS = new Set(["string", "integer", "number", "boolean"]);
const COMPONENT = "#/components/schemas/";

/** What the document says of one property, in what a generated model must keep. */
interface ExpectedProperty {
  json: string;
  /** A type a generator can spell: a scalar, a $ref, an array of such, an object with properties, a map of such. */
  concrete: boolean;
  nullable: boolean;
  /** An enum of two or more values, inline or by $ref, on the property, its items or its map values. */
  enumerated: boolean;
}
interface ExpectedModel {
  name: string;
  /** Where in the document, for the report. */
  pointer: string;
  properties: ExpectedProperty[];
}
interface ExpectedEnum {
  name: string;
  values: string[];
}

const pascal = (name: string) => name.replace(/(^|[_\-\s.]+)(\w)/g, (_, __, c: string) => c.toUpperCase());
const refName = (schema: Json): string | undefined => {
  if (typeof schema.$ref === "string") return schema.$ref.slice(COMPONENT.length);
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1 && isObject(schema.allOf[0]))
    return refName(schema.allOf[0]);
  return undefined;
};

/** The models and enums a document asks for, from its component schemas and their inline objects. */
export function expectations(document: Json): { models: ExpectedModel[]; enums: ExpectedEnum[] } {
  const schemas = ((document.components as Json)?.schemas ?? {}) as Record<string, Json>;
  const isEnumSchema = (schema: Json | undefined) =>
    isObject(schema) && Array.isArray(schema.enum) && schema.enum.filter((v) => v !== null).length > 1;
  const models: ExpectedModel[] = [];
  const enums: ExpectedEnum[] = [];

  const flatten = (schema: Json): [string, Json][] => {
    const own = Object.entries((schema.properties ?? {}) as Json) as [string, Json][];
    const inherited = ((schema.allOf ?? []) as Json[]).flatMap((member) => {
      const name = refName(member);
      return name ? flatten(schemas[name] ?? {}) : flatten(member);
    });
    const merged = new Map([...inherited, ...own]);
    return [...merged];
  };
  const concrete = (schema: Json): boolean => {
    const ref = refName(schema);
    if (ref) return true;
    if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) return true;
    if (typeof schema.type === "string" && SCALARS.has(schema.type)) return true;
    if (schema.type === "array") return isObject(schema.items) && concrete(schema.items);
    if (schema.type === "object" || schema.properties) {
      if (schema.properties && Object.keys(schema.properties).length) return true;
      return isObject(schema.additionalProperties) && concrete(schema.additionalProperties);
    }
    return false;
  };
  const enumerated = (schema: Json): boolean => {
    const ref = refName(schema);
    if (ref) return isEnumSchema(schemas[ref]);
    if (isEnumSchema(schema)) return true;
    if (schema.type === "array" && isObject(schema.items)) return enumerated(schema.items);
    if (isObject(schema.additionalProperties)) return enumerated(schema.additionalProperties);
    return false;
  };
  const visit = (name: string, schema: Json, pointer: string) => {
    const properties = flatten(schema);
    if (!properties.length) return;
    models.push({
      name,
      pointer,
      properties: properties.map(([json, property]) => ({
        json,
        concrete: concrete(property),
        nullable: property.nullable === true,
        enumerated: enumerated(property),
      })),
    });
    // Inline objects get models of their own, named as OpenAPI Generator names them.
    for (const [json, property] of properties) {
      if (refName(property)) continue;
      if (property.properties && Object.keys(property.properties as Json).length)
        visit(`${name}${pascal(json)}`, property, `${pointer}/properties/${json}`);
      else if (isObject(property.items) && property.items.properties && !refName(property.items))
        visit(`${name}${pascal(json)}Inner`, property.items, `${pointer}/properties/${json}/items`);
    }
  };
  for (const [name, schema] of Object.entries(schemas)) {
    if (isEnumSchema(schema))
      enums.push({ name, values: (schema.enum as unknown[]).filter((v): v is string => typeof v === "string") });
    else visit(name, schema, `${COMPONENT}${name}`);
  }
  return { models, enums };
}

/** A generated model as read from its source. */
export interface GeneratedField {
  type: string;
  nullable: boolean;
  /** Python: the enum is a field validator rather than a type. */
  validated?: boolean;
}
export interface GeneratedModels {
  /** Model name → JSON property name → field. */
  models: Map<string, Map<string, GeneratedField>>;
  /** Every enum type the sources declare (nested ones included). */
  enumTypes: Set<string>;
  /** Every constant of those enums, with its name as written (the type's prefix removed) and its value. */
  constants?: EnumConstant[];
}
export interface EnumConstant {
  enum: string;
  name: string;
  value: string;
}

/**
 * The normalisation an enum constant's name and value are compared under: lower case, `+` read as
 * "plus" and `-` as "minus" (in the value; names spell them out), every other character that is
 * not a letter or a digit dropped. So `A_PLUS`, `APlus` and `A+` agree, `READ_PUBLIC` and
 * `read:public`, `ClockHour` and `clock_hour`; `C` and `C+` do not.
 */
export function enumNameKey(text: string, side: "name" | "value"): string {
  const spelled = side === "value" ? text.replace(/\+/g, "plus").replace(/-/g, "minus") : text;
  return spelled.toLowerCase().replace(/[^a-z0-9]/g, "");
}
/** The constant a generator adds for values the client does not know (enumUnknownDefaultCase). */
const UNKNOWN_DEFAULT = /^unknown_?default_?open_?api$/i;

/** Enum constants whose name does not read as their value. */
export function checkEnumNames(constants: EnumConstant[]): Finding[] {
  const findings: Finding[] = [];
  for (const { enum: type, name, value } of constants) {
    if (UNKNOWN_DEFAULT.test(name)) continue;
    if (/^[A-Za-z_]\w*$/.test(name) && enumNameKey(name, "name") === enumNameKey(value, "value")) continue;
    findings.push({ check: "enum-misnamed", where: `${type}.${name}`, detail: `stands for ${JSON.stringify(value)}` });
  }
  return findings;
}

export interface LanguageRules {
  /** Where the model sources are, under the client's folder. */
  modelFiles(dir: string): string[];
  read(files: { path: string; text: string }[]): GeneratedModels;
  /** True when a field's type, as written, is a free-form Object/any. */
  isAny(type: string): boolean;
  /** Other names a model may get (reserved words). */
  aliases?(name: string): string[];
}

/** The findings of one client's models against the document. */
export function checkModels(document: Json, generated: GeneratedModels, rules: LanguageRules): Finding[] {
  const findings: Finding[] = [];
  const { models, enums } = expectations(document);
  const find = (name: string) =>
    [name, ...(rules.aliases?.(name) ?? [])].map((n) => generated.models.get(n)).find(Boolean);
  const declaresEnum = (type: string) =>
    [...type.matchAll(/[A-Za-z_][\w.]*/g)].some(([word]) => {
      const name = word.split(".").pop()!;
      // Go wraps a nullable type: NullableEquivalencyProvenance holds an EquivalencyProvenance.
      return generated.enumTypes.has(name) || generated.enumTypes.has(name.replace(/^Nullable/, ""));
    });
  for (const model of models) {
    const fields = find(model.name);
    if (!fields) {
      findings.push({ check: "model-missing", where: model.pointer, detail: `no model ${model.name}` });
      continue;
    }
    for (const property of model.properties) {
      const where = `${model.name}.${property.json}`;
      const field = fields.get(property.json);
      if (!field) {
        findings.push({ check: "property-missing", where, detail: `no field for "${property.json}"` });
        continue;
      }
      if (property.concrete && rules.isAny(field.type))
        findings.push({ check: "typed-as-any", where, detail: `typed ${field.type}` });
      if (property.nullable && !field.nullable)
        findings.push({ check: "lost-null", where, detail: `nullable in the document, ${field.type} in the model` });
      if (property.enumerated && !field.validated && !declaresEnum(field.type))
        findings.push({ check: "enum-dropped", where, detail: `an enum in the document, ${field.type} in the model` });
    }
  }
  for (const expected of enums) {
    const names = [expected.name, ...(rules.aliases?.(expected.name) ?? [])];
    if (!names.some((name) => generated.enumTypes.has(name)))
      findings.push({ check: "enum-dropped", where: `${COMPONENT}${expected.name}`, detail: "no enum type" });
  }
  findings.push(...checkEnumNames(generated.constants ?? []));
  return findings;
}
