// `npm run spec:lint` refuses what the project's rules forbid: a copy of openapi.yaml broken once
// for each rule is linted by Redocly with redocly.yaml, and by scripts/lint-spec.ts for the rules
// Redocly cannot express; each rule must report its own break.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import YAML from "yaml";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

type Doc = Record<string, any>;
const operation = (d: Doc, route: string, method: string) => d.paths[route][method];
const json = (holder: Doc) => holder.content["application/json"];

/** One break for each rule of redocly.yaml that lint-spec.ts used to hold, by the rule that must report it. */
const REDOCLY_BREAKS: Record<string, (d: Doc) => void> = {
  "operation-operationId": (d) => delete operation(d, "/institutions/{id}", "get").operationId,
  "rule/operation-has-tag": (d) => {
    operation(d, "/courses/{id}", "get").tags = [];
  },
  "operation-singular-tag": (d) => {
    operation(d, "/datasets/{id}", "get").tags = ["Datasets", "Courses"];
  },
  "operation-summary": (d) => delete d.webhooks["equivalency.created"].post.summary,
  "rule/operation-text-not-blank": (d) => {
    operation(d, "/webhooks/{id}", "get").description = " ";
  },
  "rule/request-body-example": (d) => delete json(operation(d, "/equivalencies", "post").requestBody).examples,
  "rule/examples-not-empty": (d) => {
    json(operation(d, "/webhooks", "post").requestBody).examples = {};
  },
  "rule/success-response-example": (d) =>
    delete json(operation(d, "/institutions/{id}", "get").responses["200"]).examples,
  "rule/example-has-value": (d) => {
    const examples = json(operation(d, "/datasets", "post").requestBody).examples;
    delete (Object.values(examples)[0] as Doc).value;
  },
  "no-invalid-media-type-examples": (d) => {
    const examples = json(operation(d, "/members", "post").requestBody).examples;
    (Object.values(examples)[0] as Doc).value.email = 42;
  },
  "no-invalid-parameter-examples": (d) => {
    d.components.parameters.After.example = 12;
  },
  "no-invalid-schema-examples": (d) => {
    d.components.schemas.Institution.properties.city.examples = [7];
  },
  "operation-4xx-response": (d) => {
    const responses = operation(d, "/keys", "get").responses;
    for (const status of Object.keys(responses)) if (status.startsWith("4")) delete responses[status];
  },
  "rule/operation-default-response": (d) => delete operation(d, "/members", "get").responses.default,
  struct: (d) => {
    d.components.schemas.Institution.properties.name.nullable = true;
  },
  "rule/read-security": (d) => {
    operation(d, "/courses", "get").security = [{ ApiKeyAuth: [] }, { OAuth2: ["write:contribute"] }];
  },
  "rule/write-security": (d) => {
    operation(d, "/courses", "post").security = [{ ApiKeyAuth: [] }];
  },
};

/** One break for each rule of lint-spec.ts, by a word of the message it must print. */
const LINT_SPEC_BREAKS: Record<string, (d: Doc) => void> = {
  "CourseUpsert is not closed": (d) => delete d.components.schemas.CourseUpsert.additionalProperties,
  "keywords beside $ref (description)": (d) => {
    d.components.schemas.CourseWithInstitution.allOf[1].properties.institution = {
      $ref: "#/components/schemas/Institution",
      description: "The institution.",
    };
  },
  "X-Request-Id/example: example does not match its schema": (d) => {
    d.components.headers["X-Request-Id"].example = 12;
  },
  "a write method needs write:contribute unless it is x-read-only": (d) => {
    operation(d, "/keys", "post").security = [{ ApiKeyAuth: [] }, { OAuth2: ["read:public"] }];
  },
  "the 2xx answers (200, 201) have different schemas": (d) => {
    json(operation(d, "/courses", "post").responses["200"]).schema = { type: "object" };
  },
  "x-read-only is for a POST only": (d) => {
    operation(d, "/keys/{id}", "delete")["x-read-only"] = true;
  },
  "only the public explorer's operations (tag Explorer) need no credential": (d) => {
    operation(d, "/courses/{id}", "get").security = [];
  },
  "the public explorer's operations need no credential (security: [])": (d) => {
    operation(d, "/explorer/environments", "get").security = [{ ApiKeyAuth: [] }, { OAuth2: ["read:public"] }];
  },
};

describe("spec lint: each rule reports a document that breaks it", function () {
  this.timeout(60_000);
  let scratch: string;
  const broken = (breaks: Record<string, (d: Doc) => void>, name: string) => {
    const document = YAML.parse(fs.readFileSync(path.join(ROOT, "openapi.yaml"), "utf8"));
    for (const apply of Object.values(breaks)) apply(document);
    const file = path.join(scratch, name);
    fs.writeFileSync(file, YAML.stringify(document));
    return file;
  };

  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "spec-lint-"));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it("redocly.yaml's rules", async () => {
    const file = broken(REDOCLY_BREAKS, "redocly.yaml-breaks.yaml");
    const redocly = path.join(ROOT, "node_modules/.bin/redocly");
    const args = ["lint", "--config", path.join(ROOT, "redocly.yaml"), "--format", "json", file];
    const output = await run(redocly, args, { cwd: ROOT, maxBuffer: 16 << 20 }).catch((error) => error);
    const problems: { ruleId: string; severity: string }[] = JSON.parse(output.stdout).problems;
    const reported = new Set(problems.filter((p) => p.severity === "error").map((p) => p.ruleId));
    expect(Object.keys(REDOCLY_BREAKS).filter((rule) => !reported.has(rule))).to.deep.equal([]);
  });

  it("lint-spec.ts's rules", async () => {
    const file = broken(LINT_SPEC_BREAKS, "lint-spec-breaks.yaml");
    const args = [path.join(ROOT, "scripts/lint-spec.ts"), file];
    const output = await run(path.join(ROOT, "node_modules/.bin/tsx"), args, { cwd: ROOT }).catch((error) => error);
    expect(output.code).to.equal(1);
    for (const message of Object.keys(LINT_SPEC_BREAKS)) expect(output.stdout).to.include(message);
  });
});
