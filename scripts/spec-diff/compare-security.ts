// Security: the requirements an operation (or the document) lists, and the
// schemes under components. A requirement list is a choice of alternatives,
// each a set of schemes with scopes; a client holding what an old alternative
// asked for must still satisfy some new one.
import { isDeepStrictEqual } from "node:util";
import type { ChangeLog, Context } from "./changes.ts";
import { isObject, type Json } from "./load.ts";

type Alternative = Map<string, string[]>;

function alternatives(value: unknown): Alternative[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isObject)
    .map(
      (requirement) =>
        new Map(
          Object.entries(requirement).map(([scheme, scopes]) => [
            scheme,
            Array.isArray(scopes) ? scopes.map(String) : [],
          ]),
        ),
    );
}

/** Whether a client that satisfies `held` also satisfies `asked`. */
function satisfies(held: Alternative, asked: Alternative): boolean {
  return [...asked].every(
    ([scheme, scopes]) => held.has(scheme) && scopes.every((scope) => held.get(scheme)!.includes(scope)),
  );
}

const describe = (alternative: Alternative) =>
  alternative.size === 0
    ? "no credentials"
    : [...alternative]
        .map(([scheme, scopes]) => (scopes.length ? `${scheme} [${scopes.join(", ")}]` : scheme))
        .join(" + ");

export function compareSecurity(log: ChangeLog, context: Context, before: unknown, after: unknown): void {
  const [was, is] = [alternatives(before), alternatives(after)];
  // No requirement at all means no credentials are needed: one empty alternative.
  if (!was.length) was.push(new Map());
  if (!is.length) is.push(new Map());
  const at = { ...context, location: `${context.location} › security` };
  for (const held of was)
    if (!is.some((asked) => satisfies(held, asked)))
      log.add("security-narrowed", at, `${describe(held)} is no longer enough`);
  for (const asked of is)
    if (!was.some((held) => satisfies(held, asked)))
      log.add("security-relaxed", at, `${describe(asked)} is now accepted`);
}

export function compareSecuritySchemes(log: ChangeLog, before: unknown, after: unknown): void {
  const [was, is] = [isObject(before) ? before : {}, isObject(after) ? after : {}];
  for (const [name, scheme] of Object.entries(was)) {
    const context = { operation: "", location: `security scheme ${name}` };
    if (!isObject(is[name])) {
      log.add("security-scheme-removed", context, "security scheme removed");
      continue;
    }
    compareScheme(log, context, scheme as Json, is[name] as Json);
  }
  for (const name of Object.keys(is))
    if (!(name in was))
      log.add("security-scheme-added", { operation: "", location: `security scheme ${name}` }, "security scheme added");
}

function compareScheme(log: ChangeLog, context: Context, was: Json, is: Json): void {
  for (const key of ["type", "scheme", "in", "name", "bearerFormat", "openIdConnectUrl"]) {
    if (!isDeepStrictEqual(was[key], is[key]))
      log.add(
        "security-scheme-changed",
        context,
        `${key} ${JSON.stringify(was[key]) ?? "none"} → ${JSON.stringify(is[key]) ?? "none"}`,
      );
  }
  if (!isDeepStrictEqual(was.description, is.description)) log.add("documentation", context, "description changed");
  const flowsBefore = isObject(was.flows) ? was.flows : {};
  const flowsAfter = isObject(is.flows) ? is.flows : {};
  for (const [flowName, flow] of Object.entries(flowsBefore)) {
    const other = flowsAfter[flowName];
    if (!isObject(flow)) continue;
    if (!isObject(other)) {
      log.add("security-scheme-changed", context, `${flowName} flow removed`);
      continue;
    }
    for (const url of ["authorizationUrl", "tokenUrl", "refreshUrl"]) {
      if (flow[url] !== other[url])
        log.add(
          "security-scheme-changed",
          context,
          `${flowName} ${url} ${flow[url] ?? "none"} → ${other[url] ?? "none"}`,
        );
    }
    const scopesBefore = Object.keys(isObject(flow.scopes) ? flow.scopes : {});
    const scopesAfter = Object.keys(isObject(other.scopes) ? other.scopes : {});
    for (const scope of scopesBefore)
      if (!scopesAfter.includes(scope)) log.add("scope-removed", context, `${flowName} scope ${scope} removed`);
    for (const scope of scopesAfter)
      if (!scopesBefore.includes(scope)) log.add("scope-added", context, `${flowName} scope ${scope} added`);
  }
  for (const flowName of Object.keys(flowsAfter))
    if (!(flowName in flowsBefore)) log.add("security-scheme-added", context, `${flowName} flow added`);
}
