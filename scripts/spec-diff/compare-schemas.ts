// Compares two schemas for one direction of data (see classify.ts) and records
// what changed: types, enums, bounds, patterns and formats, properties and
// their requirement, additional properties, array items, union members, and
// annotations. A referenced component is compared once per direction.
import { isDeepStrictEqual } from "node:util";
import type { ChangeLog, Context } from "./changes.ts";
import type { Resolver } from "./load.ts";
import {
  allOfMembers,
  componentReference,
  LOWER_BOUNDS,
  UPPER_BOUNDS,
  viewSchema,
  type SchemaView,
} from "./schema-view.ts";

const show = (value: unknown) => JSON.stringify(value);

export class SchemaComparer {
  constructor(
    private readonly base: Resolver,
    private readonly head: Resolver,
    private readonly log: ChangeLog,
  ) {}

  compare(baseSchema: unknown, headSchema: unknown, context: Context): void {
    if (baseSchema === undefined && headSchema === undefined) return;
    const baseRef = componentReference(baseSchema, this.base);
    const headRef = componentReference(headSchema, this.head);
    if (baseRef && headRef && baseRef.ref === headRef.ref) {
      this.compareTypes(
        baseRef.nullable ? new Set(["null"]) : new Set(),
        headRef.nullable ? new Set(["null"]) : new Set(),
        context,
        "nullable",
      );
      this.compareAnnotations(baseRef.annotations, headRef.annotations, context);
      const name = baseRef.component;
      const inComponent = { ...context, location: name };
      const target = { $ref: baseRef.ref };
      this.log.withinComponent(baseRef.ref, inComponent, () => this.compareContents(target, target, inComponent));
      return;
    }
    if (baseRef && headRef)
      this.log.add("reference-changed", context, `now ${headRef.component} (was ${baseRef.component})`);
    this.compareContents(baseSchema, headSchema, context);
  }

  private compareContents(baseSchema: unknown, headSchema: unknown, context: Context): void {
    // allOf members that are the same component on both sides are compared as that component, once.
    const headMembers = new Set(allOfMembers(headSchema, this.head).map((member) => member.ref));
    const shared = new Set(
      allOfMembers(baseSchema, this.base).flatMap((member) =>
        member.ref && headMembers.has(member.ref) ? [member.ref] : [],
      ),
    );
    for (const ref of shared) this.compare({ $ref: ref }, { $ref: ref }, context);
    this.compareViews(viewSchema(baseSchema, this.base, shared), viewSchema(headSchema, this.head, shared), context);
  }

  private compareViews(base: SchemaView, head: SchemaView, context: Context): void {
    this.compareTypes(base.types, head.types, context, "type");
    this.compareEnums(base.enum, head.enum, context);
    this.compareConstraints(base, head, context);
    this.compareObjects(base, head, context);
    if (base.items !== undefined || head.items !== undefined)
      this.compare(base.items ?? {}, head.items ?? {}, { ...context, location: `${context.location}[]` });
    this.compareVariants(base, head, context);
    if (base.deprecated !== head.deprecated)
      this.log.add("deprecated", context, head.deprecated ? "now deprecated" : "no longer deprecated");
    this.compareAnnotations(base.annotations, head.annotations, context);
  }

  /** `undefined` means any type; "number" covers "integer". */
  private compareTypes(
    base: Set<string> | undefined,
    head: Set<string> | undefined,
    context: Context,
    what: "type" | "nullable",
  ): void {
    if (!base && !head) return;
    const covers = (set: Set<string> | undefined, type: string) =>
      !set || set.has(type) || (type === "integer" && set.has("number"));
    const added = head ? [...head].filter((t) => !covers(base, t)) : ["any type"];
    const removed = base ? [...base].filter((t) => !covers(head, t)) : ["any type"];
    if (!added.length && !removed.length) return;
    const describe = (set?: Set<string>) => (set ? [...set].join(" | ") || "(none)" : "any");
    if (what === "nullable") {
      this.log.add(
        added.length ? "type-widened" : "type-narrowed",
        context,
        added.length ? "now nullable" : "no longer nullable",
      );
    } else if (added.length && removed.length) {
      this.log.add("type-changed", context, `type ${describe(base)} → ${describe(head)}`);
    } else {
      this.log.add(
        added.length ? "type-widened" : "type-narrowed",
        context,
        `type ${describe(base)} → ${describe(head)}`,
      );
    }
  }

  private compareEnums(base: unknown[] | undefined, head: unknown[] | undefined, context: Context): void {
    if (!base && !head) return;
    if (!base) return this.log.add("enum-introduced", context, `now limited to ${head!.map(show).join(", ")}`);
    if (!head) return this.log.add("enum-dropped", context, `no longer limited to ${base.map(show).join(", ")}`);
    const missing = (from: unknown[], within: unknown[]) =>
      from.filter((value) => !within.some((other) => isDeepStrictEqual(value, other)));
    const removed = missing(base, head);
    const added = missing(head, base);
    if (removed.length)
      this.log.add(
        "enum-values-removed",
        context,
        `value${removed.length > 1 ? "s" : ""} ${removed.map(show).join(", ")} removed`,
      );
    if (added.length)
      this.log.add(
        "enum-values-added",
        context,
        `value${added.length > 1 ? "s" : ""} ${added.map(show).join(", ")} added`,
      );
  }

  private compareConstraints(base: SchemaView, head: SchemaView, context: Context): void {
    const bound = (name: string, before: number | undefined, after: number | undefined, upper: boolean) => {
      if (before === after) return;
      const message = `${name} ${before ?? "none"} → ${after ?? "none"}`;
      const narrower = after !== undefined && (before === undefined || (upper ? after < before : after > before));
      this.log.add(narrower ? "constraint-narrowed" : "constraint-widened", context, message);
    };
    for (const name of UPPER_BOUNDS) bound(name, base.bounds[name], head.bounds[name], true);
    for (const name of LOWER_BOUNDS) bound(name, base.bounds[name], head.bounds[name], false);
    for (const name of ["pattern", "format", "multipleOf"] as const) {
      const before = base[name];
      const after = head[name];
      if (before === after) continue;
      const message = `${name} ${before === undefined ? "none" : show(before)} → ${after === undefined ? "none" : show(after)}`;
      this.log.add(
        before === undefined
          ? "constraint-narrowed"
          : after === undefined
            ? "constraint-widened"
            : "constraint-changed",
        context,
        message,
      );
    }
    if (base.uniqueItems !== head.uniqueItems)
      this.log.add(
        head.uniqueItems ? "constraint-narrowed" : "constraint-widened",
        context,
        head.uniqueItems ? "items must now be unique" : "items need no longer be unique",
      );
    if (!isDeepStrictEqual(base.default, head.default))
      this.log.add(
        "default-changed",
        context,
        `default ${show(base.default) ?? "none"} → ${show(head.default) ?? "none"}`,
      );
  }

  private compareObjects(base: SchemaView, head: SchemaView, context: Context): void {
    for (const [name, schema] of base.properties) {
      const at = { ...context, location: `${context.location}.${name}` };
      if (!head.properties.has(name)) {
        this.log.add("property-removed", at, "property removed");
        continue;
      }
      if (base.required.has(name) !== head.required.has(name))
        this.log.add(
          head.required.has(name) ? "property-now-required" : "property-now-optional",
          at,
          head.required.has(name) ? "now required" : "now optional",
        );
      this.compare(schema, head.properties.get(name), at);
    }
    for (const name of head.properties.keys()) {
      if (base.properties.has(name)) continue;
      const required = head.required.has(name);
      this.log.add(
        required ? "property-added-required" : "property-added-optional",
        { ...context, location: `${context.location}.${name}` },
        `${required ? "required" : "optional"} property added`,
      );
    }
    // A name required without being listed under properties still constrains the object.
    for (const name of head.required)
      if (!base.required.has(name) && !head.properties.has(name))
        this.log.add("property-now-required", { ...context, location: `${context.location}.${name}` }, "now required");

    const closedBefore = base.additionalProperties === false;
    const closedAfter = head.additionalProperties === false;
    if (closedBefore !== closedAfter)
      this.log.add(
        closedAfter ? "properties-closed" : "properties-opened",
        context,
        closedAfter ? "no longer accepts other properties" : "now allows other properties",
      );
    else if (typeof base.additionalProperties === "object" || typeof head.additionalProperties === "object") {
      this.compare(base.additionalProperties ?? {}, head.additionalProperties ?? {}, {
        ...context,
        location: `${context.location}.*`,
      });
    }
  }

  private compareVariants(base: SchemaView, head: SchemaView, context: Context): void {
    if (!base.variants && !head.variants) return;
    const baseList = base.variants?.list ?? [];
    const headList = head.variants?.list ?? [];
    const label = (schema: unknown, resolver: Resolver, index: number) =>
      componentReference(schema, resolver)?.component ?? `#${index + 1}`;
    const headLabels = headList.map((schema, i) => label(schema, this.head, i));
    const matched = new Set<number>();
    baseList.forEach((schema, i) => {
      const name = label(schema, this.base, i);
      const j = headLabels.indexOf(name);
      const at = { ...context, location: `${context.location}<${name}>` };
      if (j < 0) return this.log.add("variant-removed", at, "union member removed");
      matched.add(j);
      this.compare(schema, headList[j], at);
    });
    headList.forEach((_, j) => {
      if (matched.has(j)) return;
      const tagged = head.variants?.tagged ?? false;
      this.log.add(
        tagged ? "tagged-variant-added" : "variant-added",
        { ...context, location: `${context.location}<${headLabels[j]}>` },
        "union member added",
      );
    });
  }

  private compareAnnotations(base: SchemaView["annotations"], head: SchemaView["annotations"], context: Context): void {
    for (const name of ["title", "description", "examples"] as const) {
      if (!isDeepStrictEqual(base[name], head[name])) this.log.add("documentation", context, `${name} changed`);
    }
  }
}
