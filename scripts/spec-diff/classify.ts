// Which changes break existing clients. A change is judged from the side of
// the data it touches: "input" is what clients send (requests, and a webhook
// receiver's answer), "output" is what clients receive (responses, and the
// webhook deliveries the service sends). Narrowing what the service accepts
// breaks senders; widening what it returns breaks readers. Two tolerances are
// promised by the document's Versioning section and so are not breaking:
// clients ignore unknown response properties, and new enum values and event
// types may appear in what they receive.
export type Direction = "input" | "output";
export type Severity = "breaking" | "non-breaking";

type Rule = Severity | { input: Severity; output: Severity };

const B = "breaking";
const N = "non-breaking";
const NARROWING: Rule = { input: B, output: N };
const WIDENING: Rule = { input: N, output: B };

export const RULES = {
  "operation-removed": B,
  "operation-moved": B,
  "operation-added": N,
  "component-removed": B, // the SDK exports component schemas as named types
  "component-added": N,
  "server-removed": B,
  "server-added": N,
  "security-narrowed": B, // a credential that was enough no longer is
  "security-relaxed": N,
  "security-scheme-removed": B,
  "security-scheme-changed": B,
  "security-scheme-added": N,
  "scope-removed": B,
  "scope-added": N,
  "parameter-removed": B,
  "parameter-added-required": NARROWING,
  "parameter-added-optional": N,
  "parameter-now-required": NARROWING,
  "parameter-now-optional": WIDENING,
  "parameter-serialization-changed": B,
  "body-removed": B,
  "body-added-required": NARROWING,
  "body-added-optional": N,
  "body-now-required": NARROWING,
  "body-now-optional": WIDENING,
  "media-type-removed": B,
  "media-type-added": N,
  "response-removed": B,
  "response-added": N,
  "header-removed": B,
  "header-added": N,
  "header-now-required": NARROWING,
  "header-now-optional": WIDENING,
  "type-narrowed": NARROWING,
  "type-widened": WIDENING,
  "type-changed": B,
  "enum-values-removed": B,
  "enum-values-added": N,
  "enum-introduced": NARROWING,
  "enum-dropped": WIDENING,
  "constraint-narrowed": NARROWING,
  "constraint-widened": WIDENING,
  "constraint-changed": B,
  "default-changed": NARROWING, // a client relying on the old default now gets other behaviour
  "property-removed": B,
  "property-added-required": NARROWING,
  "property-added-optional": N,
  "property-now-required": NARROWING,
  "property-now-optional": WIDENING,
  "properties-closed": NARROWING,
  "properties-opened": N,
  "variant-added": WIDENING,
  "tagged-variant-added": N, // a new member of a discriminated union, like a new event type
  "variant-removed": B,
  "reference-changed": N,
  deprecated: N,
  documentation: N,
  version: N,
} satisfies Record<string, Rule>;

export type ChangeKind = keyof typeof RULES;

export function classify(kind: ChangeKind, direction?: Direction): Severity {
  const rule: Rule = RULES[kind];
  if (typeof rule === "string") return rule;
  if (!direction) throw new Error(`${kind} needs a direction`);
  return rule[direction];
}
