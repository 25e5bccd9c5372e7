// Compares two OpenAPI 3.1 documents and lists every change, breaking ones
// first (see classify.ts for what breaks a client).
import { isDeepStrictEqual } from "node:util";
import { ChangeLog, type Change } from "./changes.ts";
import { isObject, Resolver, type Json } from "./load.ts";
import { SchemaComparer } from "./compare-schemas.ts";
import { listOperations, OperationComparer } from "./compare-operations.ts";
import { compareSecurity, compareSecuritySchemes } from "./compare-security.ts";
import { checkVersionRule } from "./version-rule.ts";
import type { Comparison } from "./report.ts";

export function diffDocuments(base: Json, head: Json): Change[] {
  const log = new ChangeLog();
  const [baseResolver, headResolver] = [new Resolver(base), new Resolver(head)];
  compareInfo(log, base, head);
  compareServers(log, base.servers, head.servers);
  compareSecurity(log, { operation: "", location: "document" }, base.security, head.security);
  const [baseComponents, headComponents] = [objectAt(base, "components"), objectAt(head, "components")];
  compareSecuritySchemes(log, baseComponents.securitySchemes, headComponents.securitySchemes);
  const schemas = new SchemaComparer(baseResolver, headResolver, log);
  new OperationComparer(baseResolver, headResolver, log, schemas).compareAll(
    listOperations(base, baseResolver),
    listOperations(head, headResolver),
  );
  compareSchemaNames(log, objectAt(baseComponents, "schemas"), objectAt(headComponents, "schemas"));
  return log.sorted();
}

export function versionOf(document: Json): string {
  return String(objectAt(document, "info").version ?? "");
}

const objectAt = (value: Json, key: string): Json => (isObject(value[key]) ? (value[key] as Json) : {});

function compareInfo(log: ChangeLog, base: Json, head: Json): void {
  const context = { operation: "", location: "info" };
  const [was, is] = [objectAt(base, "info"), objectAt(head, "info")];
  if (was.version !== is.version) log.add("version", context, `version ${was.version} → ${is.version}`);
  for (const key of ["title", "summary", "description", "license", "contact", "termsOfService"]) {
    if (!isDeepStrictEqual(was[key], is[key])) log.add("documentation", context, `${key} changed`);
  }
  if (base.openapi !== head.openapi)
    log.add("documentation", { operation: "", location: "document" }, `openapi ${base.openapi} → ${head.openapi}`);
  if (!isDeepStrictEqual(base.tags, head.tags))
    log.add("documentation", { operation: "", location: "tags" }, "tags changed");
}

function compareServers(log: ChangeLog, before: unknown, after: unknown): void {
  const urls = (value: unknown) =>
    Array.isArray(value) ? value.filter(isObject).map((server) => String(server.url)) : [];
  const [was, is] = [urls(before), urls(after)];
  const context = { operation: "", location: "servers" };
  for (const url of was) if (!is.includes(url)) log.add("server-removed", context, `server ${url} removed`);
  for (const url of is) if (!was.includes(url)) log.add("server-added", context, `server ${url} added`);
}

/** The SDK exports every component schema as a named type, so names are part of the surface. */
function compareSchemaNames(log: ChangeLog, before: Json, after: Json): void {
  for (const name of Object.keys(before))
    if (!(name in after)) log.add("component-removed", { operation: "", location: name }, "component schema removed");
  for (const name of Object.keys(after))
    if (!(name in before)) log.add("component-added", { operation: "", location: name }, "component schema added");
}

/** Both documents' changes and the verdict of the versioning rule. */
export function compareDocuments(
  base: { file: string; document: Json },
  head: { file: string; document: Json },
): Comparison {
  const changes = diffDocuments(base.document, head.document);
  const [baseVersion, headVersion] = [versionOf(base.document), versionOf(head.document)];
  const breaking = changes.filter((change) => change.severity === "breaking").length;
  return {
    base: { file: base.file, version: baseVersion },
    head: { file: head.file, version: headVersion },
    changes,
    verdict: checkVersionRule(baseVersion, headVersion, breaking),
  };
}
