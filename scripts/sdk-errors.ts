// The SDK's error classes from the problem-type catalogue (`x-problem-types` in openapi.yaml):
// scripts/generated-lists.ts writes these into the fenced regions of sdk/src/errors.ts and
// sdk/README.md. Each type maps to a hand-written class (a narrower one from SDK_CLASS_BY_TYPE, else
// the class of its status, else ApiError), and each class carries the members that its types'
// `extensions` name, typed from the `Problem` schema (an interface merged into the class; the
// constructor of ApiError copies them from the problem document). A member the class declares by
// hand (ValidationError's `errors`, always an array) is left to it.
import type { ProblemType } from "./generated-lists.ts";

// A type listed here gets a narrower hand-written class than its status's (it carries extra members).
const SDK_CLASS_BY_TYPE: Record<string, string> = { "not-steward": "NotStewardError" };

interface ClassOfType {
  type: ProblemType;
  errorClass: string;
}

function classesOf(types: ProblemType[], sdkErrorsSource: string): ClassOfType[] {
  const byStatus = new Map(
    [...sdkErrorsSource.matchAll(/^ {2}(\d{3}): (\w+),$/gm)].map(([, status, name]) => [Number(status), name]),
  );
  return types.map((type) => ({
    type,
    errorClass: SDK_CLASS_BY_TYPE[type.slug] ?? byStatus.get(type.status) ?? "ApiError",
  }));
}

/** The members a class declares by hand: `readonly name` in its body. */
function declaredByHand(sdkErrorsSource: string, errorClass: string): Set<string> {
  const start = sdkErrorsSource.indexOf(`export class ${errorClass} `);
  if (start < 0) throw new Error(`sdk/src/errors.ts: no class ${errorClass}`);
  const end = sdkErrorsSource.indexOf("\n}\n", start);
  return new Set([...sdkErrorsSource.slice(start, end).matchAll(/^ {2}readonly (\w+)/gm)].map(([, name]) => name));
}

/** The extension members of each class, in catalogue order, without those it declares by hand. */
function membersByClass(classes: ClassOfType[], sdkErrorsSource: string): Map<string, string[]> {
  const members = new Map<string, string[]>();
  for (const { type, errorClass } of classes) {
    const own = members.get(errorClass) ?? [];
    const byHand = declaredByHand(sdkErrorsSource, errorClass);
    for (const name of type.extensions ?? []) if (!own.includes(name) && !byHand.has(name)) own.push(name);
    members.set(errorClass, own);
  }
  return members;
}

const slugList = (slugs: string[]) => slugs.map((slug) => `\`${slug}\``).join(", ");

/** The region of sdk/src/errors.ts: ProblemCode, the class of each code, the extensions, the merged members. */
export function sdkErrorsRegion(
  types: ProblemType[],
  sdkErrorsSource: string,
  problemProperties: Record<string, { description?: string }>,
): string {
  const classes = classesOf(types, sdkErrorsSource);
  const lines = [
    "/** Every problem type of the contract, from `x-problem-types` in openapi.yaml. */",
    `export type ProblemCode = ${types.map((t) => JSON.stringify(t.slug)).join(" | ")};`,
    "",
    "/** The error class of each problem type. */",
    "const BY_CODE: Record<ProblemCode, ErrorClass> = {",
    ...classes.map(({ type, errorClass }) => `  ${JSON.stringify(type.slug)}: ${errorClass},`),
    "};",
    "",
    "/** The members of `Problem` each problem type adds to its document (`extensions` in x-problem-types). */",
    "const EXTENSIONS: Partial<Record<ProblemCode, readonly (keyof Problem)[]>> = {",
    ...types
      .filter((t) => t.extensions?.length)
      .map((t) => `  ${JSON.stringify(t.slug)}: [${t.extensions!.map((e) => JSON.stringify(e)).join(", ")}],`),
    "};",
  ];
  for (const [errorClass, members] of membersByClass(classes, sdkErrorsSource)) {
    if (!members.length) continue;
    const slugs = (name: string) =>
      classes.filter((c) => c.errorClass === errorClass && c.type.extensions?.includes(name)).map((c) => c.type.slug);
    // The class itself carries `biome-ignore lint/suspicious/noUnsafeDeclarationMerging` (its members are set by ApiError).
    lines.push(
      "",
      `/** The extension members of ${errorClass}'s problem types, present when the problem document carries them. */`,
      `export interface ${errorClass} {`,
      ...members.flatMap((name) => [
        `  /** ${problemProperties[name]?.description ?? `For ${slugList(slugs(name))}.`} */`,
        `  readonly ${name}?: Problem[${JSON.stringify(name)}];`,
      ]),
      "}",
    );
  }
  return lines.join("\n");
}

/** The table of sdk/README.md: each class, its problem types, the members their documents add. */
export function sdkErrorsTable(types: ProblemType[], sdkErrorsSource: string): string {
  const classes = classesOf(types, sdkErrorsSource);
  const order = [...new Set(classes.map((c) => c.errorClass))];
  const rows = order.map((errorClass) => {
    const own = classes.filter((c) => c.errorClass === errorClass);
    const statuses = [...new Set(own.map((c) => c.type.status))].join(", ");
    const members = [...new Set(own.flatMap((c) => c.type.extensions ?? []))];
    return `| \`${errorClass}\` | ${statuses} | ${slugList(own.map((c) => c.type.slug))} | ${members.map((m) => `\`${m}\``).join(", ")} |`;
  });
  return [
    "| Class | Status | `code` (problem types) | Members of the problem document |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}
