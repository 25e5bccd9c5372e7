// The lists that openapi.yaml states once and other files repeat: the problem-type catalogue
// (`x-problem-types`) and the operations. scripts/generate.ts writes generated/problem-types.ts
// and rewrites the fenced regions of hand-written files (the SDK's error mapping, the problem-type
// table of docs/api-guide.md); --check fails when any of them is stale.
import fs from "node:fs";
import path from "node:path";
import { sdkErrorsRegion, sdkErrorsTable } from "./sdk-errors.ts";

export interface ProblemType {
  slug: string;
  status: number;
  title: string;
  description: string;
  /** The members of `Problem` the type adds to its document (the SDK's error class carries them). */
  extensions?: string[];
}

interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary?: string;
}

export function problemTypesOf(document: Record<string, unknown>): ProblemType[] {
  const catalogue = document["x-problem-types"];
  if (!Array.isArray(catalogue) || !catalogue.length) throw new Error("openapi.yaml has no x-problem-types catalogue.");
  for (const entry of catalogue as ProblemType[]) {
    const valid =
      /^[a-z]+(-[a-z]+)*$/.test(entry.slug) && Number.isInteger(entry.status) && entry.title && entry.description;
    if (!valid) throw new Error(`x-problem-types: incomplete entry ${JSON.stringify(entry)}`);
    const problem = ((document.components as { schemas?: Record<string, { properties?: object }> })?.schemas?.Problem
      ?.properties ?? {}) as Record<string, unknown>;
    for (const name of entry.extensions ?? [])
      if (!(name in problem))
        throw new Error(`x-problem-types: ${entry.slug} names ${name}, which Problem does not have`);
  }
  return catalogue as ProblemType[];
}

export function operationsOf(document: Record<string, unknown>): Operation[] {
  const paths = document.paths as Record<string, Record<string, { operationId?: string; summary?: string }>>;
  return Object.entries(paths).flatMap(([route, item]) =>
    ["get", "put", "post", "delete", "patch"].flatMap((method) => {
      const operationId = item[method]?.operationId;
      const summary = item[method]?.summary;
      return operationId ? [{ operationId, method: method.toUpperCase(), path: route, summary }] : [];
    }),
  );
}

/** generated/problem-types.ts: the server's table. */
export function problemTypesModule(types: ProblemType[], header: string): string {
  const rows = types.map(
    (t) => `  ${JSON.stringify(t.slug)}: { status: ${t.status}, title: ${JSON.stringify(t.title)} },`,
  );
  return [
    `// ${header}`,
    "/** Every problem type the service answers with, from `x-problem-types` in openapi.yaml. */",
    "export const PROBLEM_TYPES = {",
    ...rows,
    "} as const;",
    "",
    "export type ProblemSlug = keyof typeof PROBLEM_TYPES;",
    "",
  ].join("\n");
}

/** generated/operation-summaries.ts: each operation's summary, so people read "Create an API key", not `createKey`. */
export function operationSummariesModule(document: Record<string, unknown>, header: string): string {
  const rows = operationsOf(document).map(
    (operation) =>
      `  ${JSON.stringify(operation.operationId)}: ${JSON.stringify(operation.summary ?? operation.operationId)},`,
  );
  return [
    `// ${header}`,
    "/** The summary of every operation of openapi.yaml, by operationId. */",
    "export const OPERATION_SUMMARIES: Readonly<Record<string, string>> = {",
    ...rows,
    "};",
    "",
  ].join("\n");
}

/** The Markdown table of the problem types, as written in info.description (indented there). */
function descriptionTable(types: ProblemType[]): string {
  return [
    "| Type | Status | Meaning |",
    "|---|---|---|",
    ...types.map((t) => `| \`${t.slug}\` | ${t.status} | ${t.description} |`),
  ].join("\n");
}

/** Fails when the table in info.description does not list exactly the catalogue. */
export function checkDescriptionTable(document: Record<string, unknown>, types: ProblemType[]): void {
  const description = String((document.info as { description?: string }).description ?? "");
  if (!description.includes(descriptionTable(types))) {
    throw new Error(
      `openapi.yaml: the problem-type table in info.description differs from x-problem-types; it must read:\n${descriptionTable(types)}`,
    );
  }
}

function docsTable(types: ProblemType[]): string {
  return [
    "| `type` (under `https://course-equivalency.org/problems/`) | Status | When |",
    "|---|---|---|",
    ...types.map((t) => `| \`${t.slug}\` | ${t.status} | ${t.description} |`),
  ].join("\n");
}

/** Replaces the text between the named markers; fails when the markers are missing. */
export function replaceFenced(text: string, file: string, begin: string, end: string, body: string): string {
  const start = text.indexOf(begin);
  const stop = text.indexOf(end, start);
  if (start < 0 || stop < 0) throw new Error(`${file}: missing the markers ${begin} … ${end}`);
  return `${text.slice(0, start + begin.length)}\n${body}\n${text.slice(stop)}`;
}

/** The hand-written files with generated regions, by path from the repository root. */
export function fencedOutputs(root: string, document: Record<string, unknown>): Map<string, string> {
  const types = problemTypesOf(document);
  checkDescriptionTable(document, types);
  const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
  const outputs = new Map<string, string>();
  const code = (name: string) =>
    [
      `// @generated begin ${name} (scripts/generate.ts from openapi.yaml; run \`npm run generate\`)`,
      "// @generated end",
    ] as const;

  const errors = read("sdk/src/errors.ts");
  const problemProperties = ((document.components as { schemas: Record<string, { properties?: object }> }).schemas
    .Problem?.properties ?? {}) as Record<string, { description?: string }>;
  outputs.set(
    "sdk/src/errors.ts",
    replaceFenced(
      errors,
      "sdk/src/errors.ts",
      ...code("problem-types"),
      sdkErrorsRegion(types, errors, problemProperties),
    ),
  );
  outputs.set(
    "sdk/README.md",
    replaceFenced(
      read("sdk/README.md"),
      "sdk/README.md",
      "<!-- @generated sdk-errors begin -->",
      "<!-- @generated sdk-errors end -->",
      sdkErrorsTable(types, errors),
    ),
  );
  outputs.set(
    "docs/api-guide.md",
    replaceFenced(
      read("docs/api-guide.md"),
      "docs/api-guide.md",
      "<!-- @generated problem-types begin -->",
      "<!-- @generated problem-types end -->",
      docsTable(types),
    ),
  );
  return outputs;
}
