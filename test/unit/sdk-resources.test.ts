// The SDK's resource methods are generated from openapi.yaml, one per operationId: an operation
// added to the spec gets its method, so the committed region of sdk/src/resources.ts goes stale
// (and `npm run generate:check` fails) until `npm run generate` writes it.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import YAML from "yaml";
import { operationsOf } from "../../scripts/generated-lists.ts";
import { resourcesFile, sdkMethods } from "../../scripts/sdk-resources.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const RESOURCES = path.join(ROOT, "sdk/src/resources.ts");
const spec = () => YAML.parse(fs.readFileSync(path.join(ROOT, "openapi.yaml"), "utf8"));

/** The spec with one more operation on an existing path. */
function withOperation(method: string, route: string, operation: Record<string, unknown>) {
  const document = spec();
  document.paths[route][method] = { tags: ["Courses"], summary: "Added", ...operation };
  return document;
}

describe("SDK resource methods: generated per operationId", () => {
  it("every operation of the spec has exactly one method", () => {
    const document = spec();
    const methods = sdkMethods(document);
    expect(methods.map((m) => m.operationId)).to.deep.equal(operationsOf(document).map((o) => o.operationId));
    const names = methods.map((m) => `${m.group}.${m.name}`);
    expect(names).to.include.members([
      "institutions.list",
      "courses.upsert",
      "equivalencies.versions",
      "equivalencies.version",
      "webhooks.rotateSecret",
      "webhooks.deliveries",
      "webhooks.delivery",
      "webhooks.redeliver",
      "webhooks.redeliverFailed",
      "organizations.me",
      "exports.download",
      "oauthClients.revoke",
    ]);
    expect(new Set(names).size).to.equal(names.length);
  });

  it("an operation added to the spec gets its method, and the committed region is stale", () => {
    const document = withOperation("delete", "/courses/{id}", {
      operationId: "deleteCourse",
      responses: { "204": { description: "Deleted." } },
    });
    const added = sdkMethods(document).find((m) => m.operationId === "deleteCourse")!;
    expect(added).to.include({ group: "courses", name: "delete" });
    expect(added.source).to.include('delete: (id: string): Promise<void> => nothing(raw.DELETE("/courses/{id}"');
    const committed = fs.readFileSync(RESOURCES, "utf8");
    expect(resourcesFile(committed, document)).to.not.equal(resourcesFile(committed, spec()));
    expect(resourcesFile(committed, document)).to.include('raw.DELETE("/courses/{id}"');
  });

  it("refuses two operations that would become the same method", () => {
    const document = withOperation("put", "/courses/{id}", {
      operationId: "getCourseAgain",
      responses: { "204": { description: "Nothing." } },
    });
    expect(() => sdkMethods(document)).to.throw("getCourse and getCourseAgain both become courses.get");
  });

  it("refuses an operation whose success statuses answer different shapes, until told which one", () => {
    const document = withOperation("put", "/courses/{id}", {
      operationId: "replaceCourse",
      responses: {
        "200": { description: "A", content: { "application/json": { schema: { type: "string" } } } },
        "201": { description: "B", content: { "application/json": { schema: { type: "integer" } } } },
      },
    });
    expect(() => sdkMethods(document)).to.throw("replaceCourse: its success statuses answer different shapes");
  });
});
