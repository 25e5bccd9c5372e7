// spec:diff: changes between the released contract and copies of it changed
// in known ways, classified from the clients' side; the command fails on a
// breaking change unless info.version follows the rule.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import YAML from "yaml";
import { diffDocuments } from "../../scripts/spec-diff/compare.ts";
import { loadDocument, type Json } from "../../scripts/spec-diff/load.ts";
import { checkVersionRule } from "../../scripts/spec-diff/version-rule.ts";
import type { Change } from "../../scripts/spec-diff/changes.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const RELEASED = path.join(ROOT, "spec/released/openapi.json");
const released = loadDocument(RELEASED);

type Mutable = any;

function derive(change: (document: Mutable) => void): Json {
  const copy = structuredClone(released);
  change(copy);
  return copy;
}

const removeOperation = (d: Mutable) => delete d.paths["/keys/{id}"].delete;
const addRequiredBodyProperty = (d: Mutable) => {
  d.components.schemas.EquivalencyCreate.properties.reviewRank = { type: "integer", description: "Review rank." };
  d.components.schemas.EquivalencyCreate.required.push("reviewRank");
};
const narrowEnum = (d: Mutable) => (d.components.schemas.EquivalencyStatus.enum = ["accepted", "pending"]);
const addOptionalResponseProperty = (d: Mutable) =>
  (d.components.schemas.Course.properties.syllabusUrl = { type: "string", format: "uri", description: "Syllabus." });
const addOperation = (d: Mutable) =>
  (d.paths["/courses/{id}"].delete = {
    operationId: "deleteCourse",
    tags: ["Courses"],
    summary: "Delete a course",
    responses: { "204": { description: "Deleted." } },
  });

const summary = (changes: Change[]) => changes.map((c) => [c.severity, c.direction ?? null, c.location, c.message]);

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/spec-diff.ts"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("spec:diff", () => {
  let scratch: string;
  before(() => (scratch = fs.mkdtempSync(path.join(os.tmpdir(), "spec-diff-"))));
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /** Writes a derived document as YAML, like openapi.yaml, with its $refs in place. */
  const writeYaml = (name: string, document: Json) => {
    const file = path.join(scratch, name);
    fs.writeFileSync(file, YAML.stringify(document, { aliasDuplicateObjects: false }));
    return file;
  };

  describe("classification", () => {
    it("finds no change between the released document and itself", () => {
      expect(diffDocuments(released, structuredClone(released))).to.deep.equal([]);
    });

    it("removing an operation is breaking", () => {
      expect(summary(diffDocuments(released, derive(removeOperation)))).to.deep.equal([
        ["breaking", null, "DELETE /keys/{id} (revokeKey)", "operation removed"],
      ]);
    });

    it("a new required request body property is breaking, once, at the component, with the operation using it", () => {
      const [change, ...rest] = diffDocuments(released, derive(addRequiredBodyProperty));
      expect(rest).to.deep.equal([]);
      expect(change).to.deep.include({
        kind: "property-added-required",
        severity: "breaking",
        direction: "input",
        location: "EquivalencyCreate.reviewRank",
      });
      expect(change.usedBy).to.deep.equal(["POST /equivalencies (createEquivalency)"]);
    });

    it("removing an enum value is breaking for what clients send and for what they receive", () => {
      const changes = diffDocuments(released, derive(narrowEnum));
      expect(summary(changes)).to.deep.equal([
        ["breaking", "input", "EquivalencyStatus", 'value "conflict" removed'],
        ["breaking", "output", "EquivalencyStatus", 'value "conflict" removed'],
      ]);
      expect(changes[0].usedBy).to.include.members([
        "GET /equivalencies (listEquivalencies)",
        "PATCH /equivalencies/{id} (updateEquivalency)",
      ]);
      expect(changes[1].usedBy).to.include("GET /equivalencies/{id} (getEquivalency)");
    });

    it("a new optional response property is not breaking, and is reported once for every schema embedding it", () => {
      const [change, ...rest] = diffDocuments(released, derive(addOptionalResponseProperty));
      expect(rest).to.deep.equal([]);
      expect(change).to.deep.include({
        kind: "property-added-optional",
        severity: "non-breaking",
        direction: "output",
        location: "Course.syllabusUrl",
      });
      expect(change.usedBy).to.include.members([
        "GET /courses (listCourses)",
        "GET /courses/{id} (getCourse)",
        "GET /equivalencies/{id} (getEquivalency)",
      ]);
    });

    it("a new operation is not breaking", () => {
      expect(summary(diffDocuments(released, derive(addOperation)))).to.deep.equal([
        ["non-breaking", null, "DELETE /courses/{id} (deleteCourse)", "operation added"],
      ]);
    });

    it("lists breaking changes first, whatever order they were made in", () => {
      const changes = diffDocuments(
        released,
        derive((d) =>
          [addOptionalResponseProperty, addOperation, removeOperation, narrowEnum, addRequiredBodyProperty].forEach(
            (f) => f(d),
          ),
        ),
      );
      const severities = changes.map((c) => c.severity);
      expect(severities).to.deep.equal([...Array(4).fill("breaking"), ...Array(2).fill("non-breaking")]);
    });

    it("judges constraints by direction: narrowing what clients send or widening what they receive breaks", () => {
      const changes = diffDocuments(
        released,
        derive((d) => {
          d.components.schemas.CourseUpsert.properties.title.maxLength = 50; // narrower request
          d.components.schemas.CourseUpsert.properties.code.maxLength = 100; // wider request
          d.components.schemas.Institution.properties.city = { description: "City.", type: ["string", "null"] }; // response may now be null
          d.components.schemas.Course.properties.credits.maximum = 10; // narrower response
        }),
      );
      expect(summary(changes)).to.deep.equal([
        ["breaking", "output", "Institution.city", "type string → string | null"],
        ["breaking", "input", "CourseUpsert.title", "maxLength 300 → 50"],
        ["non-breaking", "output", "Course.credits", "maximum none → 10"],
        ["non-breaking", "input", "CourseUpsert.code", "maxLength 50 → 100"],
      ]);
    });

    it("removing a webhook event or a payload property breaks receivers; a new event type does not", () => {
      const removed = diffDocuments(
        released,
        derive((d) => {
          delete d.webhooks["dataset.published"];
          delete d.components.schemas.CourseUpdatedData.properties.changedFields;
        }),
      );
      expect(summary(removed)).to.deep.equal([
        ["breaking", "output", "CourseUpdatedData.changedFields", "property removed"],
        ["breaking", null, "POST webhook dataset.published (onDatasetPublished)", "webhook event removed"],
      ]);
      const added = diffDocuments(
        released,
        derive((d) => d.components.schemas.EventType.enum.push("course.deleted")),
      );
      expect(added.map((c) => [c.severity, c.direction])).to.deep.equal([
        ["non-breaking", "output"],
        ["non-breaking", "input"],
      ]);
    });
  });

  describe("the versioning rule", () => {
    it("lets non-breaking changes keep the version, never go backwards, and asks a breaking change for a new major or prerelease", () => {
      const cases: [string, string, number, boolean][] = [
        ["1.0.0-pilot", "1.0.0-pilot", 0, true],
        ["1.0.0-pilot", "1.0.0-alpha", 0, false], // backwards
        ["1.0.0-pilot", "1.0.0-pilot", 1, false],
        ["1.0.0-pilot", "1.0.0-pilot.2", 1, true],
        ["1.0.0-pilot", "1.0.0", 1, true],
        ["1.0.0-pilot", "1.1.0", 1, false],
        ["1.0.0-pilot", "2.0.0", 1, true],
        ["1.4.2", "1.5.0", 1, false],
        ["1.4.2", "2.0.0", 1, true],
        ["0.3.1", "0.4.0", 1, true],
        ["1.0.0", "v2", 0, false],
      ];
      for (const [base, head, breaking, ok] of cases)
        expect(checkVersionRule(base, head, breaking).ok, `${base} → ${head} with ${breaking} breaking`).to.equal(ok);
    });
  });

  describe("the command", () => {
    it("passes for openapi.yaml against the released copy (what CI runs)", () => {
      const run = runCli([]);
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout).to.match(/Version rule: ok/);
    });

    it("fails on a breaking change without a version change, listing breaking changes first", () => {
      const head = writeYaml(
        "breaking.yaml",
        derive((d) => [addOptionalResponseProperty, removeOperation, addRequiredBodyProperty].forEach((f) => f(d))),
      );
      const run = runCli(["--head", head]);
      expect(run.status).to.equal(1);
      const lines = run.stdout.split("\n");
      expect(lines[0]).to.match(/: 2 breaking, 1 non-breaking change\(s\)\.$/);
      expect(lines.indexOf("Breaking changes (2):"))
        .to.be.above(0)
        .and.below(lines.indexOf("Non-breaking changes (1):"));
      expect(run.stdout).to.contain("  - DELETE /keys/{id} (revokeKey): operation removed");
      expect(run.stdout).to.contain("  - EquivalencyCreate.reviewRank [sent by clients]: required property added");
      expect(run.stdout).to.match(/Version rule: FAILED: 2 breaking change\(s\) need a new major version \(2\.0\.0\)/);
    });

    it("passes the same change with a new major version, and says so in Markdown and JSON", () => {
      const head = writeYaml(
        "bumped.yaml",
        derive((d) =>
          [removeOperation, addRequiredBodyProperty, (x: Mutable) => (x.info.version = "2.0.0")].forEach((f) => f(d)),
        ),
      );
      const markdown = runCli(["--head", head, "--format", "markdown"]);
      expect(markdown.status, markdown.stdout + markdown.stderr).to.equal(0);
      expect(markdown.stdout).to.contain("**Breaking changes (2)**").and.contain("✅ **Version rule:**");
      const json = runCli(["--head", head, "--format", "json"]);
      expect(json.status).to.equal(0);
      const parsed = JSON.parse(json.stdout);
      expect(parsed.verdict.ok).to.equal(true);
      expect(parsed.changes.map((c: Change) => c.kind)).to.deep.equal([
        "property-added-required",
        "operation-removed",
        "version",
      ]);
    });

    it("release refuses a breaking change without a new version and records one with it", () => {
      const target = path.join(scratch, "released.json");
      fs.copyFileSync(RELEASED, target);
      const unchanged = writeYaml("unbumped.yaml", derive(removeOperation));
      expect(runCli(["release", "--head", unchanged, "--to", target]).status).to.equal(1);
      expect(fs.readFileSync(target, "utf8")).to.equal(fs.readFileSync(RELEASED, "utf8"));
      const bumped = writeYaml(
        "released-next.yaml",
        derive((d) => [removeOperation, (x: Mutable) => (x.info.version = "2.0.0")].forEach((f) => f(d))),
      );
      const run = runCli(["release", "--head", bumped, "--to", target]);
      expect(run.status, run.stdout + run.stderr).to.equal(0);
      const recorded = JSON.parse(fs.readFileSync(target, "utf8"));
      expect(recorded.info.version).to.equal("2.0.0");
      expect(recorded.paths["/keys/{id}"].delete).to.equal(undefined);
      expect(runCli(["--base", target, "--head", bumped]).stdout).to.match(/^No changes/);
    });
  });
});
