// The summary a reviewer reads: breaking changes first, then the rest, then
// whether info.version follows the rule. Text for the terminal and CI logs,
// Markdown for a pull-request comment, JSON for tools.
import type { Change } from "./changes.ts";
import type { Direction } from "./classify.ts";
import type { VersionVerdict } from "./version-rule.ts";

export type Format = "text" | "markdown" | "json";

export interface Comparison {
  base: { file: string; version: string };
  head: { file: string; version: string };
  changes: Change[];
  verdict: VersionVerdict;
}

const SIDE: Record<Direction, string> = { input: "sent by clients", output: "received by clients" };
const MAX_USERS = 4;

export function render(comparison: Comparison, format: Format): string {
  if (format === "json") return `${JSON.stringify(comparison, null, 2)}\n`;
  return format === "markdown" ? markdown(comparison) : text(comparison);
}

function groups(changes: Change[]): [string, Change[]][] {
  return [
    ["Breaking changes", changes.filter((c) => c.severity === "breaking")],
    ["Non-breaking changes", changes.filter((c) => c.severity !== "breaking")],
  ];
}

function headline({ base, head, changes }: Comparison): string {
  const against = `${head.file} (${head.version}) against ${base.file} (${base.version})`;
  if (!changes.length) return `No changes: ${against}.`;
  const breaking = changes.filter((c) => c.severity === "breaking").length;
  return `${against}: ${breaking} breaking, ${changes.length - breaking} non-breaking change(s).`;
}

/** The operations through which a change inside a component reaches clients. */
function users(change: Change): string {
  if (!change.usedBy.length || (change.usedBy.length === 1 && change.location.startsWith(change.usedBy[0]))) return "";
  const shown = change.usedBy.slice(0, MAX_USERS).join(", ");
  const more = change.usedBy.length > MAX_USERS ? ` and ${change.usedBy.length - MAX_USERS} more` : "";
  return `used by ${shown}${more}`;
}

function text(comparison: Comparison): string {
  const lines = [headline(comparison)];
  for (const [title, changes] of groups(comparison.changes)) {
    if (!changes.length) continue;
    lines.push("", `${title} (${changes.length}):`);
    for (const change of changes) {
      const side = change.direction ? ` [${SIDE[change.direction]}]` : "";
      lines.push(`  - ${change.location}${side}: ${change.message}`);
      const usedBy = users(change);
      if (usedBy) lines.push(`      ${usedBy}`);
    }
  }
  lines.push("", `Version rule: ${comparison.verdict.ok ? "ok" : "FAILED"}: ${comparison.verdict.message}`);
  return `${lines.join("\n")}\n`;
}

function markdown(comparison: Comparison): string {
  const lines = ["### OpenAPI changes", "", headline(comparison)];
  for (const [title, changes] of groups(comparison.changes)) {
    if (!changes.length) continue;
    lines.push("", `**${title} (${changes.length})**`, "");
    for (const change of changes) {
      const side = change.direction ? ` _(${SIDE[change.direction]})_` : "";
      const usedBy = users(change);
      lines.push(`- \`${change.location}\`${side}: ${change.message}${usedBy ? ` — ${usedBy}` : ""}`);
    }
  }
  lines.push("", `${comparison.verdict.ok ? "✅" : "❌"} **Version rule:** ${comparison.verdict.message}`);
  return `${lines.join("\n")}\n`;
}
