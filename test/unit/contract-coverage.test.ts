import fs from "node:fs";
import { expect } from "chai";
import {
  documentedPairs,
  evaluateCoverage,
  literalTitles,
  operationsWithoutTitledTest,
  parseWaivers,
  renderConsoleReport,
  renderMarkdownReport,
  testFiles,
} from "../helpers/contract-coverage.ts";
import { specOperations } from "../helpers/spec-operations.ts";

const document = {
  paths: {
    "/things/{id}": {
      parameters: [{ $ref: "#/components/parameters/Id" }],
      get: {
        operationId: "getThing",
        responses: { "200": { content: { "application/json": {} } }, "404": {}, default: {} },
      },
      delete: { operationId: "deleteThing", responses: { "204": {}, default: {} } },
    },
  },
  components: { parameters: { Id: { name: "id", in: "path", required: true, schema: { type: "string" } } } },
};
const documented = documentedPairs(document);
const recorded = (...keys: string[]) => new Set(keys);
const waiver = (operationId: string, status: string, reason = "cannot be produced") => ({
  operationId,
  status,
  reason,
});

describe("contract coverage gate", () => {
  it("lists every documented response of every operation, `default` included, in document order", () => {
    expect(documented.map((p) => `${p.operationId} ${p.status}`)).to.deep.equal([
      "getThing 200",
      "getThing 404",
      "getThing default",
      "deleteThing 204",
      "deleteThing default",
    ]);
    const [get, del] = specOperations(document);
    expect(get.parameters[0]).to.include({ name: "id", in: "path" });
    expect(get.successTypes).to.deep.equal(["application/json"]);
    expect(del.successTypes).to.deep.equal([]);
  });

  it("passes when every pair is covered or waived", () => {
    const result = evaluateCoverage(
      documented,
      recorded("getThing 200", "getThing 404", "getThing default", "deleteThing 204"),
      [waiver("deleteThing", "default")],
    );
    expect(result).to.include({ passed: true, documented: 5, covered: 4, waived: 1, missing: 0 });
    expect(renderConsoleReport(result)).to.contain(
      "PASS: 4 of 5 documented pairs covered (80.0%; 100.0% with waivers)",
    );
    expect(renderMarkdownReport(result)).to.contain("- `deleteThing default`: cannot be produced");
  });

  it("fails and names the pair when a documented pair is neither covered nor waived", () => {
    const result = evaluateCoverage(
      documented,
      recorded("getThing 200", "getThing default", "deleteThing 204", "deleteThing default"),
      [],
    );
    expect(result).to.include({ passed: false, missing: 1 });
    expect(result.operations.find((o) => o.operationId === "getThing")?.missing).to.deep.equal(["404"]);
    expect(renderConsoleReport(result)).to.match(/getThing\s+2\/3 {2}MISSING 404/);
  });

  it("fails on a stale waiver: the pair is covered, or not documented", () => {
    const all = recorded(...documented.map((p) => `${p.operationId} ${p.status}`));
    const result = evaluateCoverage(documented, all, [waiver("getThing", "404"), waiver("getThing", "409")]);
    expect(result).to.include({ passed: false, missing: 0, covered: 5, waived: 0 });
    expect(result.staleWaivers.map((s) => s.why)).to.deep.equal([
      "a test now produces this pair",
      "the document does not list this pair",
    ]);
  });

  it("reads waivers and refuses entries without a reason, or a pair waived twice", () => {
    const text = 'waivers:\n  - operationId: getThing\n    status: 404\n    reason: "only on a Tuesday"\n';
    expect(parseWaivers(text, "w.yaml")).to.deep.equal([waiver("getThing", "404", "only on a Tuesday")]);
    expect(parseWaivers("waivers: []\n", "w.yaml")).to.deep.equal([]);
    expect(() => parseWaivers("waivers:\n  - {operationId: getThing, status: '404'}\n", "w.yaml")).to.throw(
      "w.yaml: waiver 1 needs a non-empty reason",
    );
    const twice = `waivers:\n${"  - {operationId: getThing, status: '404', reason: r}\n".repeat(2)}`;
    expect(() => parseWaivers(twice, "w.yaml")).to.throw("getThing 404 is waived twice");
  });
});

describe("test titles name their operationId", () => {
  it("reads the literal text of describe and it titles in any quote, without interpolated parts", () => {
    const source = [
      'describe("things: getThing (GET /things/{id})", () => {',
      "  it('getThing answers 404 for an unknown id', async () => {});",
      "  it(`deleteThing removes ${label} and \\`quotes\\``, async () => {});",
      "  for (const o of operations) it(`${o.operationId} answers 401`, async () => {});",
      '  it.only("listThings \\"escaped\\" title", () => {});',
      "});",
    ].join("\n");
    expect(literalTitles(source)).to.deep.equal([
      "things: getThing (GET /things/{id})",
      "getThing answers 404 for an unknown id",
      "deleteThing removes   and \\`quotes\\`",
      "  answers 401",
      'listThings \\"escaped\\" title',
    ]);
  });

  it("names each operationId without a test title, matching whole words only", () => {
    const titles = [
      "getThing answers 404",
      "courses: upsertCoursesInBulk is not upsertCourses's test",
      "  answers 401",
    ];
    expect(
      operationsWithoutTitledTest(["getThing", "deleteThing", "upsertCourses", "listThings"], titles),
    ).to.deep.equal(["deleteThing", "listThings"]);
  });

  it("every operationId of the document is named by a literal test title under test/, so grep finds its tests", () => {
    const titles = testFiles().flatMap((file) => literalTitles(fs.readFileSync(file, "utf8")));
    const operationIds = specOperations().map((operation) => operation.operationId);
    expect(operationIds).to.have.length.greaterThan(20);
    expect(operationsWithoutTitledTest(operationIds, titles), "operations no test title names").to.deep.equal([]);
  });
});
