// How each generated client's models are read (scripts/partners/checks.ts): where its model
// sources are, how a class, its fields (by JSON name), their types and nullability, and its enums
// are written, and which types are free-form. One entry per language of docs/partners.md.
import fs from "node:fs";
import path from "node:path";
import type { EnumConstant, GeneratedField, GeneratedModels, LanguageRules } from "./checks.ts";

export const LANGUAGES = ["java", "python", "csharp", "go", "typescript-fetch"] as const;
export type Language = (typeof LANGUAGES)[number];

function filesUnder(dir: string, test: (file: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => path.join(dir, f))
    .filter(test);
}

/** The text of a brace-delimited block that starts at `start` (the index of its `{`). */
function block(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start);
}

function collect(
  files: { path: string; text: string }[],
  each: (text: string, models: GeneratedModels["models"], enums: Set<string>, constants: EnumConstant[]) => void,
): GeneratedModels {
  const models = new Map<string, Map<string, GeneratedField>>();
  const enumTypes = new Set<string>();
  const constants: EnumConstant[] = [];
  for (const { text } of files) each(text, models, enumTypes, constants);
  return { models, enumTypes, constants };
}

const java: LanguageRules = {
  modelFiles: (dir) => filesUnder(path.join(dir, "src/main/java"), (f) => /\/model\/\w+\.java$/.test(f)),
  read: (files) =>
    collect(files, (text, models, enums, constants) => {
      for (const match of text.matchAll(/\bpublic enum (\w+) \{/g)) {
        enums.add(match[1]);
        // The constants up to the first `;`: NAME("value") or NAME(1.5), NAME(true).
        const end = text.indexOf(";", match.index);
        const body = text.slice(match.index + match[0].length, end < 0 ? undefined : end);
        for (const [, name, quoted, bare] of body.matchAll(/^\s*(\S+?)\((?:"((?:[^"\\]|\\.)*)"|([^)]*))\)/gm))
          constants.push({ enum: match[1], name, value: quoted ?? bare });
      }
      const declared = /^public class (\w+)/m.exec(text);
      if (!declared) return;
      const fields = new Map<string, GeneratedField>();
      // okhttp-gson: SERIALIZED_NAME_X = "json"; native (Jackson): JSON_PROPERTY_X = "json"; then the field.
      const declaration =
        /(?:SERIALIZED_NAME|JSON_PROPERTY)_\w+ = "([^"]+)";\s*((?:@[\w.]+(?:\([^)]*\))?\s*)*)private (.+?) (\w+)(?: = [^;]+)?;/g;
      for (const [, json, annotations, type, field] of text.matchAll(declaration)) {
        const getter = new RegExp(
          `((?:@[\\w.]+(?:\\([^)]*\\))?\\s*)+)public \\S+ get${field[0].toUpperCase()}${field.slice(1)}\\(\\)`,
        ).exec(text);
        const nullable =
          type.startsWith("JsonNullable<") || /annotation\.Nullable/.test(`${annotations} ${getter?.[1] ?? ""}`);
        fields.set(json, { type, nullable });
      }
      models.set(declared[1], fields);
    }),
  isAny: (type) => /^(JsonNullable<)?(Object|Map<String, Object>|List<Object>)>?$/.test(type),
};

const python: LanguageRules = {
  modelFiles: (dir) => filesUnder(dir, (f) => /\/models\/\w+\.py$/.test(f) && !f.endsWith("__init__.py")),
  read: (files) =>
    collect(files, (text, models, enums, constants) => {
      for (const match of text.matchAll(/^class (\w+)\((?:str|int), Enum\):/gm)) {
        enums.add(match[1]);
        const body = text.slice(match.index).split(/^ {4}@classmethod/m)[0];
        for (const [, name, , value] of body.matchAll(/^ {4}(\S+) = (['"])(.*)\2$/gm))
          constants.push({ enum: match[1], name, value });
      }
      const declared = /^class (\w+)\(BaseModel\):/m.exec(text);
      if (!declared) return;
      const fields = new Map<string, GeneratedField>();
      const validated = new Set([...text.matchAll(/@field_validator\('(\w+)'\)/g)].map(([, attr]) => attr));
      for (const [, attr, type, rest] of text.matchAll(/^ {4}(\w+): (.+?)(?: = (Field\(.*\)|None))?$/gm)) {
        if (attr === "model_config" || attr.startsWith("__")) continue;
        const json = /alias="([^"]+)"/.exec(rest ?? "")?.[1] ?? attr;
        fields.set(json, { type, nullable: type.startsWith("Optional["), validated: validated.has(attr) });
      }
      models.set(declared[1], fields);
    }),
  isAny: (type) => /^(Optional\[)?(Any|object|Dict\[str, Any\]|List\[Any\])\]?$/.test(type),
};

const csharp: LanguageRules = {
  modelFiles: (dir) => filesUnder(path.join(dir, "src"), (f) => /\/Model\/\w+\.cs$/.test(f)),
  read: (files) =>
    collect(files, (text, models, enums, constants) => {
      for (const [, name] of text.matchAll(/\bpublic enum (\w+)/g)) enums.add(name);
      // The JSON value of each constant, from its converter: if (value == Type.Name) return "value";
      for (const [, type, name, value] of text.matchAll(/if \(value == (\w+)\.(\w+)\)\s*return "((?:[^"\\]|\\.)*)";/g))
        constants.push({ enum: type, name, value });
      const declared = /public partial class (\w+)/.exec(text);
      if (!declared) return;
      const fields = new Map<string, GeneratedField>();
      for (const [, json, type] of text.matchAll(
        /\[JsonPropertyName\("([^"]+)"\)\]\s*(?:\[[^\]]*\]\s*)*public (.+?) \w+ \{ get/g,
      ))
        fields.set(json, { type, nullable: type.endsWith("?") });
      models.set(declared[1], fields);
    }),
  isAny: (type) => /^(Object|object|Dictionary<string, Object>|List<Object>)\??$/.test(type),
  aliases: (name) => [`Model${name}`],
};

const go: LanguageRules = {
  modelFiles: (dir) => filesUnder(dir, (f) => /\/model_\w+\.go$/.test(f)),
  read: (files) =>
    collect(files, (text, models, enums, constants) => {
      for (const [, name] of text.matchAll(/^type (\w+) (?:string|int32|int64)$/gm)) enums.add(name);
      // enumClassPrefix: LETTERGRADE_A_PLUS LetterGrade = "A+"; the type's name is the prefix.
      for (const [, name, type, value] of text.matchAll(/^\t(\w+) (\w+) = "((?:[^"\\]|\\.)*)"$/gm)) {
        const prefix = `${type.toUpperCase()}_`;
        constants.push({ enum: type, name: name.startsWith(prefix) ? name.slice(prefix.length) : name, value });
      }
      for (const match of text.matchAll(/^type (\w+) struct \{/gm)) {
        if (match[1].startsWith("Nullable") || match[1].startsWith("_")) continue;
        const body = block(text, match.index + match[0].length - 1);
        const fields = new Map<string, GeneratedField>();
        // Maps, slices and pointers are nil-able in Go, and nil is written as null.
        for (const [, type, json] of body.matchAll(/^\t\w+ (\S+) `json:"([^",]+)/gm))
          fields.set(json, { type, nullable: /^(Nullable|\*|map\[|\[\])/.test(type) });
        models.set(match[1], fields);
      }
    }),
  isAny: (type) => /^(\*)?(interface\{\}|map\[string\]interface\{\}|\[\]interface\{\})$/.test(type),
};

const typescriptFetch: LanguageRules = {
  // With withoutRuntimeChecks (partners/typescript-fetch.yaml) every model is in models/index.ts.
  modelFiles: (dir) => filesUnder(dir, (f) => /\/models\/\w+\.ts$/.test(f)),
  read: (files) =>
    collect(files, (text, models, enums, constants) => {
      for (const [, name, body] of text.matchAll(/^export const (\w+) = \{([^}]*)\} as const;/gm)) {
        enums.add(name);
        for (const [, key, value] of body.matchAll(/^\s+'?([^':\s]+)'?: '((?:[^'\\]|\\.)*)',?$/gm))
          constants.push({ enum: name, name: key, value });
      }
      for (const [, name] of text.matchAll(/^export enum (\w+)/gm)) enums.add(name);
      const jsonOf = new Map(
        [...text.matchAll(/^\s+'(\w+)': .*?json\['([^']+)'\]/gm)].map(([, ts, json]) => [ts, json]),
      );
      for (const declared of text.matchAll(/^export interface (\w+) \{/gm)) {
        const body = block(text, declared.index + declared[0].length - 1);
        const fields = new Map<string, GeneratedField>();
        for (const [, name, type] of body.matchAll(/^ {4}'?([\w@:]+)'?\??: (.+);$/gm))
          fields.set(jsonOf.get(name) ?? name, { type, nullable: /\| null\b/.test(type) });
        models.set(declared[1], fields);
      }
    }),
  isAny: (type) => /^(any|object|\{ \[key: string\]: any; \})( \| null)?$/.test(type),
};

export const RULES: Record<Language, LanguageRules> = {
  java,
  python,
  csharp,
  go,
  "typescript-fetch": typescriptFetch,
};

/** The generated models of the client in `dir`, read with its language's rules. */
export function readModels(language: Language, dir: string): GeneratedModels {
  const rules = RULES[language];
  return rules.read(rules.modelFiles(dir).map((file) => ({ path: file, text: fs.readFileSync(file, "utf8") })));
}
