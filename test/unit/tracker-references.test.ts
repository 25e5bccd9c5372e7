// Docs, code and comments explain themselves: a reader of the tree has no access to the
// project's tracker, so "issue 28" or "finding 10" tells them nothing. Commit messages may
// name them; the tree does not. Migrations are left alone (their checksums are applied).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TRACKER_REFERENCE = /\b(?:issues?|findings?) #?\d+\b|\bthis round\b|\b(?:first|second) round\b/i;
const SKIPPED = [
  /^prisma\/migrations\//,
  /^generated\//,
  /\.(png|jpg|ico|tar|gz|jar)$/,
  /^test\/unit\/tracker-references\.test\.ts$/,
];

describe("tracker references", () => {
  it("no tracked file outside the migrations names an issue, a finding or a round", () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((file) => file && !SKIPPED.some((pattern) => pattern.test(file)));
    const found: string[] = [];
    for (const file of files) {
      const full = path.join(ROOT, file);
      if (!fs.existsSync(full) || fs.statSync(full).size > 2_000_000) continue;
      fs.readFileSync(full, "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (TRACKER_REFERENCE.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found, found.join("\n")).to.deep.equal([]);
  });
});
