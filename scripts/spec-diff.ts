// Reviews changes to the contract against the last released document
// (spec/released/openapi.json): `npm run -s spec:diff` prints every change,
// breaking ones first, and exits 1 when info.version does not follow the
// versioning rule (scripts/spec-diff/version-rule.ts); `npm run spec:release`
// records the current document as the released one.
import fs from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import { loadDocument, type Json } from "./spec-diff/load.ts";
import { compareDocuments } from "./spec-diff/compare.ts";
import { render, type Format } from "./spec-diff/report.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const RELEASED = path.join(ROOT, "spec/released/openapi.json");
const CURRENT = path.join(ROOT, "openapi.yaml");
const RELEASED_NOTE =
  "The last released contract, recorded by `npm run spec:release` from openapi.yaml. Do not edit it by hand: `npm run spec:diff` compares openapi.yaml against it.";

const shown = (file: string) => path.relative(process.cwd(), file) || file;
const read = (file: string) => ({ file: shown(file), document: loadDocument(file) });

function compare(options: { base: string; head: string; format: Format }): void {
  const comparison = compareDocuments(read(path.resolve(options.base)), read(path.resolve(options.head)));
  process.stdout.write(render(comparison, options.format));
  if (!comparison.verdict.ok) process.exitCode = 1;
}

function release(options: { head: string; to: string }): void {
  const [target, head] = [path.resolve(options.to), read(path.resolve(options.head))];
  const document: Json = { "x-released": RELEASED_NOTE, ...head.document };
  if (fs.existsSync(target)) {
    const comparison = compareDocuments(read(target), head);
    process.stdout.write(render(comparison, "text"));
    if (!comparison.verdict.ok) {
      console.error("Not released: fix info.version first.");
      process.exitCode = 1;
      return;
    }
    if (!comparison.changes.length)
      return console.log(`Nothing to release: ${shown(target)} is already ${comparison.head.version}.`);
    if (comparison.base.version === comparison.head.version) {
      console.error(
        `Not released: the document changed, so give it a new info.version (now ${comparison.head.version}).`,
      );
      process.exitCode = 1;
      return;
    }
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`Recorded ${head.file} (${String((head.document.info as Json).version)}) as ${shown(target)}.`);
}

const program = new Command("spec-diff").description("Compare openapi.yaml with the last released contract.");
program
  .command("compare", { isDefault: true })
  .description("print every change, breaking ones first; exit 1 when info.version does not follow the rule")
  .option("--base <file>", "the released document (JSON or YAML)", RELEASED)
  .option("--head <file>", "the document under review (JSON or YAML)", CURRENT)
  .addOption(new Option("--format <format>", "output format").choices(["text", "markdown", "json"]).default("text"))
  .action(compare);
program
  .command("release")
  .description("record the document under review as the released one (refused when info.version breaks the rule)")
  .option("--head <file>", "the document to release", CURRENT)
  .option("--to <file>", "where the released document is kept", RELEASED)
  .action(release);

try {
  await program.parseAsync();
} catch (error) {
  // A document that cannot be read or resolved is not a finding: say so plainly.
  console.error(`spec-diff: ${(error as Error).message}`);
  process.exitCode = 2;
}
