// The problem-type catalogue lives once, in openapi.yaml's `x-problem-types`: the server's
// table is generated from it, and every slug the server's code can answer with must be in it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import YAML from "yaml";
import { PROBLEM_TYPES, ProblemError, type ProblemSlug } from "../../src/kernel/errors.ts";
import { checkDescriptionTable, problemTypesOf } from "../../scripts/generated-lists.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const document = YAML.parse(fs.readFileSync(path.join(ROOT, "openapi.yaml"), "utf8"));
const catalogue = problemTypesOf(document);
const specSlugs = catalogue.map((type) => type.slug);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : entry.name.endsWith(".ts") ? [file] : [];
  });
}

/** Each slug the server's code passes to a ProblemError (directly or through a subclass's `super`), by file. */
function slugsThrownBy(files: string[]): Map<string, string[]> {
  const slugs = new Map<string, string[]>();
  for (const file of files) {
    for (const [, slug] of fs.readFileSync(file, "utf8").matchAll(/(?:new ProblemError|super)\(\s*"([^"]+)"/g)) {
      slugs.set(slug, [...(slugs.get(slug) ?? []), path.relative(ROOT, file)]);
    }
  }
  return slugs;
}

describe("problem types: one catalogue in openapi.yaml", () => {
  it("the server's table is the spec's catalogue, in order, with each status and title", () => {
    const fromSpec = catalogue.map(({ slug, status, title }) => [slug, status, title]);
    expect(Object.entries(PROBLEM_TYPES).map(([slug, type]) => [slug, type.status, type.title])).to.deep.equal(
      fromSpec,
    );
  });

  it("every problem slug the server's code throws is in the spec's catalogue", () => {
    const thrown = slugsThrownBy(sourceFiles(path.join(ROOT, "src")));
    // The scan sees the throws it is meant to see (so it cannot pass by finding nothing).
    expect([...thrown.keys()]).to.include.members([
      "validation-failed",
      "not-steward",
      "invalid-transition",
      "request-header-too-large",
    ]);
    const missing = [...thrown]
      .filter(([slug]) => !specSlugs.includes(slug))
      .map(([slug, files]) => `${slug} (${files.join(", ")})`);
    expect(missing, "problem slugs thrown but missing from x-problem-types in openapi.yaml").to.deep.equal([]);
  });

  it("the scan reports a slug that the spec does not list", () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "problem-types-"));
    try {
      const file = path.join(scratch, "rogue.ts");
      fs.writeFileSync(file, 'throw new ProblemError(\n  "teapot", "I am a teapot");\n');
      const thrown = slugsThrownBy([file]);
      expect([...thrown.keys()]).to.deep.equal(["teapot"]);
      expect(specSlugs).to.not.include("teapot");
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("a slug outside the catalogue is refused by the type checker and at run time", () => {
    // @ts-expect-error "teapot" is not a ProblemSlug: the generated table does not list it.
    const typed: ProblemSlug = "teapot";
    expect(() => new ProblemError(typed, "I am a teapot")).to.throw(TypeError);
  });
});

describe("generated lists: what `npm run generate:check` refuses", () => {
  it("a problem type added to x-problem-types but not to the table in info.description", () => {
    expect(() => checkDescriptionTable(document, catalogue)).to.not.throw();
    const added = [...catalogue, { slug: "gone", status: 410, title: "Gone", description: "The record was removed." }];
    expect(() => checkDescriptionTable(document, added)).to.throw(/info\.description differs from x-problem-types/);
  });
});
