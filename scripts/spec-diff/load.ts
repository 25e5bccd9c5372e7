// Reading an OpenAPI document (JSON or YAML) and following its local $refs.
import fs from "node:fs";
import YAML from "yaml";

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function loadDocument(file: string): Json {
  const text = fs.readFileSync(file, "utf8");
  const document: unknown = file.endsWith(".json") ? JSON.parse(text) : YAML.parse(text, { maxAliasCount: -1 });
  if (!isObject(document) || typeof document.openapi !== "string")
    throw new Error(`${file} is not an OpenAPI document`);
  return document;
}

export interface Resolved {
  node: unknown;
  /** The last `$ref` followed to reach the node, e.g. "#/components/schemas/Course". */
  ref?: string;
}

/** Follows `$ref`s inside one document; a reference to another file is an error. */
export class Resolver {
  constructor(readonly document: Json) {}

  resolve(value: unknown): Resolved {
    let node = value;
    let ref: string | undefined;
    const seen = new Set<string>();
    while (isObject(node) && typeof node.$ref === "string") {
      const target: string = node.$ref;
      if (!target.startsWith("#/")) throw new Error(`only local references are supported, found ${target}`);
      if (seen.has(target)) throw new Error(`circular reference ${target}`);
      seen.add(target);
      ref = target;
      node = this.pointer(target);
      if (node === undefined) throw new Error(`unresolved reference ${target}`);
    }
    return { node, ref };
  }

  /** The resolved node as an object, or an empty one. */
  object(value: unknown): Json {
    const { node } = this.resolve(value);
    return isObject(node) ? node : {};
  }

  private pointer(ref: string): unknown {
    const segments = ref
      .slice(2)
      .split("/")
      .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
    return segments.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), this.document);
  }
}

/** "#/components/schemas/Course" → "Course". */
export function componentName(ref: string | undefined): string | undefined {
  return ref?.split("/").pop();
}
