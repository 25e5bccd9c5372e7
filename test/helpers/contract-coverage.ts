// The contract coverage gate: every (operationId, documented status) pair of
// the document must have been produced by a real request and validated by
// expectContract during the run, or be waived with a reason in
// test/contract/coverage-waivers.yaml. A waiver that names a covered or
// undocumented pair is stale and fails the gate too, so the file stays honest.
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { specOperations, type Document } from "./spec-operations.ts";
import { pairKey, recordedPairKeys, type ContractPair } from "./contract-recorder.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const WAIVERS_PATH = path.join(ROOT, "test/contract/coverage-waivers.yaml");
export const REPORT_PATH = path.join(ROOT, "coverage/contract-coverage.md");

export interface Waiver extends ContractPair {
  reason: string;
}

export interface OperationCoverage {
  operationId: string;
  covered: string[];
  waived: Waiver[];
  missing: string[];
}

export interface CoverageResult {
  operations: OperationCoverage[];
  staleWaivers: { waiver: Waiver; why: string }[];
  documented: number;
  covered: number;
  waived: number;
  missing: number;
  passed: boolean;
}

/** The pairs the document promises, in document order. */
export function documentedPairs(document?: Document): ContractPair[] {
  return specOperations(document).flatMap((o) => o.responses.map((status) => ({ operationId: o.operationId, status })));
}

/** Reads the waiver file; an entry without an operationId, a status or a reason is an error. */
export function parseWaivers(text: string, source = WAIVERS_PATH): Waiver[] {
  const parsed = (YAML.parse(text) ?? {}) as { waivers?: unknown };
  const entries = parsed.waivers ?? [];
  if (!Array.isArray(entries)) throw new Error(`${source}: "waivers" must be a list`);
  const seen = new Set<string>();
  return entries.map((entry: Record<string, unknown>, index) => {
    const waiver = {
      operationId: entry?.operationId,
      status: entry?.status === undefined ? undefined : String(entry.status),
      reason: entry?.reason,
    };
    for (const field of ["operationId", "status", "reason"] as const) {
      if (typeof waiver[field] !== "string" || !(waiver[field] as string).trim()) {
        throw new Error(`${source}: waiver ${index + 1} needs a non-empty ${field}`);
      }
    }
    const key = pairKey(waiver as Waiver);
    if (seen.has(key)) throw new Error(`${source}: ${key} is waived twice`);
    seen.add(key);
    return waiver as Waiver;
  });
}

export function evaluateCoverage(
  documented: ContractPair[],
  recorded: ReadonlySet<string>,
  waivers: Waiver[],
): CoverageResult {
  const waiverByKey = new Map(waivers.map((w) => [pairKey(w), w]));
  const documentedKeys = new Set(documented.map(pairKey));
  const operations = new Map<string, OperationCoverage>();
  for (const pair of documented) {
    const operation = operations.get(pair.operationId) ?? {
      operationId: pair.operationId,
      covered: [],
      waived: [],
      missing: [],
    };
    operations.set(pair.operationId, operation);
    const waiver = waiverByKey.get(pairKey(pair));
    if (recorded.has(pairKey(pair))) operation.covered.push(pair.status);
    else if (waiver) operation.waived.push(waiver);
    else operation.missing.push(pair.status);
  }
  const staleWaivers = waivers.flatMap((waiver) => {
    if (!documentedKeys.has(pairKey(waiver))) return [{ waiver, why: "the document does not list this pair" }];
    if (recorded.has(pairKey(waiver))) return [{ waiver, why: "a test now produces this pair" }];
    return [];
  });
  const all = [...operations.values()];
  const count = (pick: (o: OperationCoverage) => unknown[]) => all.reduce((sum, o) => sum + pick(o).length, 0);
  const missing = count((o) => o.missing);
  return {
    operations: all,
    staleWaivers,
    documented: documented.length,
    covered: count((o) => o.covered),
    waived: count((o) => o.waived),
    missing,
    passed: missing === 0 && staleWaivers.length === 0,
  };
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "100.0%" : `${(Math.floor((part / whole) * 1000) / 10).toFixed(1)}%`;
}

export function summaryLine(result: CoverageResult): string {
  return (
    `${result.passed ? "PASS" : "FAIL"}: ${result.covered} of ${result.documented} documented pairs covered ` +
    `(${percent(result.covered, result.documented)}; ${percent(result.covered + result.waived, result.documented)} with waivers), ` +
    `${result.waived} waived, ${result.missing} missing, ${result.staleWaivers.length} stale waivers`
  );
}

/** One line per operation, with the details that need attention. */
export function renderConsoleReport(result: CoverageResult): string {
  const width = Math.max(...result.operations.map((o) => o.operationId.length));
  const lines = result.operations.map((o) => {
    const total = o.covered.length + o.waived.length + o.missing.length;
    const notes = [
      o.missing.length ? `MISSING ${o.missing.join(", ")}` : "",
      ...o.waived.map((w) => `waived ${w.status} (${w.reason.trim()})`),
    ].filter(Boolean);
    return `  ${o.operationId.padEnd(width)}  ${String(o.covered.length).padStart(2)}/${total}${notes.length ? `  ${notes.join("; ")}` : ""}`;
  });
  const stale = result.staleWaivers.map(({ waiver, why }) => `  STALE waiver ${pairKey(waiver)}: ${why}`);
  return [`Contract coverage ${summaryLine(result)}`, ...lines, ...stale].join("\n");
}

export function renderMarkdownReport(result: CoverageResult): string {
  const cell = (items: string[]) => items.join(", ") || "—";
  const rows = result.operations.map(
    (o) =>
      `| \`${o.operationId}\` | ${cell(o.covered)} | ${cell(o.waived.map((w) => w.status))} | ${cell(o.missing)} |`,
  );
  const waived = result.operations.flatMap((o) => o.waived.map((w) => `- \`${pairKey(w)}\`: ${w.reason.trim()}`));
  const stale = result.staleWaivers.map(({ waiver, why }) => `- \`${pairKey(waiver)}\`: ${why}`);
  return [
    "# Contract coverage",
    "",
    `${summaryLine(result)}.`,
    "",
    "A pair is covered when a test's real request produced that documented status (or one under `default`)",
    "and `expectContract` validated it. Waivers: `test/contract/coverage-waivers.yaml`.",
    "",
    "| Operation | Covered | Waived | Missing |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "## Waived pairs",
    "",
    ...(waived.length ? waived : ["None."]),
    "",
    "## Stale waivers",
    "",
    ...(stale.length ? stale : ["None."]),
    "",
  ].join("\n");
}

/** Run after the whole suite: writes the report and throws when the gate fails. */
export function enforceContractCoverage(): void {
  const waivers = parseWaivers(fs.readFileSync(WAIVERS_PATH, "utf8"));
  const result = evaluateCoverage(documentedPairs(), recordedPairKeys(), waivers);
  fs.mkdirSync(path.dirname(REPORT_PATH), { recursive: true });
  fs.writeFileSync(REPORT_PATH, renderMarkdownReport(result));
  console.log(`\n${renderConsoleReport(result)}\nReport: ${path.relative(ROOT, REPORT_PATH)}\n`);
  if (!result.passed) {
    throw new Error(
      `Contract coverage gate: ${result.missing} documented pairs are neither covered nor waived and ` +
        `${result.staleWaivers.length} waivers are stale; see ${path.relative(ROOT, REPORT_PATH)}.`,
    );
  }
}

// Test titles name their operation, so `grep -rn <operationId> test/` finds every test of it. Titles are read
// from the source as written (the text grep sees): interpolated parts of a template title do not count, so a
// suite that loops over every operation does not stand in for a test of each.
const TITLE_CALL = /\b(?:describe|context|it|specify)(?:\.only)?\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;

/** The literal text of every describe/it title in one test file's source. */
export function literalTitles(source: string): string[] {
  return [...source.matchAll(TITLE_CALL)].map(([, quote, title]) =>
    quote === "`" ? title.replace(/\$\{[^}]*\}/g, " ") : title,
  );
}

/** Every test file under a directory, recursively. */
export function testFiles(directory = path.join(ROOT, "test")): string[] {
  return fs
    .readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The operationIds that no literal test title names, as a whole word, in document order. */
export function operationsWithoutTitledTest(operationIds: string[], titles: string[]): string[] {
  const words = new Set(titles.flatMap((title) => title.split(/[^A-Za-z0-9_]+/)));
  return operationIds.filter((operationId) => !words.has(operationId));
}
