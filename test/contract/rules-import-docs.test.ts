// The CSV files of docs/api-guide.md ("Importing rules from a CSV file") import without an issue
// against the seeded sandbox, and a dry run of each counts what the import then counts.
import fs from "node:fs";
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";

function guideFiles(): string[] {
  const guide = fs.readFileSync(new URL("../../docs/api-guide.md", import.meta.url), "utf8");
  const start = guide.indexOf("## Importing rules from a CSV file");
  const section = guide.slice(start, guide.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```csv\n([\s\S]*?)```/g)].map((match) => match[1]);
}

describe("docs: the API guide's import files against the seeded sandbox", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await t.app.context.services.sandbox.seedSandboxIfEmpty();
  });
  after(() => t.close());

  it("each file imports without an issue, and its dry run counts what the import counts", async () => {
    const files = guideFiles();
    // The worked file of the guide is a shell block that the README test runs; the csv blocks are checked here.
    expect(files).to.not.be.empty;
    for (const csv of files) {
      const upload = (query: string) =>
        t.http
          .post(`/api/v1/equivalencies/imports${query}`)
          .set(bearer(t.keys.sandbox))
          .set("Content-Type", "text/csv")
          .send(csv);
      const dry = await upload("?dryRun=true");
      await expectContract(dry, 200);
      const imported = await upload("");
      await expectContract(imported, 200);
      expect(imported.body.issues, csv).to.deep.equal([]);
      expect(imported.body.summary.rejected).to.equal(0);
      expect(dry.body.summary).to.deep.equal(imported.body.summary);
    }
  });
});
