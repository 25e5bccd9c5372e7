// A new embedded data directory is loaded from the template made at install
// (src/db/embedded-template.ts, scripts/build-database-template.ts) instead of
// running initdb; without the installed PGlite's template it is made by initdb,
// and an existing directory is opened as it is. Holds on both suites (the
// databases here are embedded ones of the test's own).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { expect } from "chai";
import { openDatabase, type Database } from "../../src/db/database.ts";
import { embeddedTemplatePath } from "../../src/db/embedded-template.ts";
import { buildDatabaseTemplate } from "../../scripts/build-database-template.ts";

describe("embedded database template", function () {
  this.timeout(120_000);
  let scratch: string;
  let markedTemplate: string;

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "svc-template-"));
    // A template with a table of its own, so a directory shows where it came from.
    const pglite = await PGlite.create();
    await pglite.exec("CREATE TABLE made_from_template (id int)");
    markedTemplate = path.join(scratch, "marked.tar");
    fs.writeFileSync(markedTemplate, Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer()));
    await pglite.close();
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  async function fromTemplate(database: Database): Promise<boolean> {
    const [row] = await database.prisma.$queryRawUnsafe<{ found: boolean }[]>(
      "SELECT to_regclass('made_from_template') IS NOT NULL AS found",
    );
    return row.found;
  }

  async function openDirectory(dataDir: string, embeddedTemplate: string | null): Promise<Database> {
    return openDatabase({ databaseUrl: null, dataDir, embeddedTemplate });
  }

  it("loads a new data directory from the template, and opens it as it is afterwards", async () => {
    const dataDir = path.join(scratch, "from-template");
    let database = await openDirectory(dataDir, markedTemplate);
    try {
      expect(await fromTemplate(database)).to.equal(true);
      await database.prisma.$executeRawUnsafe("INSERT INTO made_from_template VALUES (1)");
    } finally {
      await database.close();
    }
    // Reopened (with the template still there): the directory's own data, not a fresh copy.
    database = await openDirectory(dataDir, markedTemplate);
    try {
      const rows = await database.prisma.$queryRawUnsafe<{ id: number }[]>("SELECT id FROM made_from_template");
      expect(rows).to.deep.equal([{ id: 1 }]);
    } finally {
      await database.close();
    }
  });

  it("runs initdb when there is no template file (none built, or made by another PGlite version)", async () => {
    const dataDir = path.join(scratch, "no-template");
    const database = await openDirectory(dataDir, path.join(scratch, "data-directory-0.0.0.tar"));
    try {
      expect(await fromTemplate(database)).to.equal(false);
      expect(fs.existsSync(path.join(dataDir, "pglite", "PG_VERSION"))).to.equal(true);
    } finally {
      await database.close();
    }
  });

  it("never loads an existing directory from the template", async () => {
    const dataDir = path.join(scratch, "no-template");
    const database = await openDirectory(dataDir, markedTemplate);
    try {
      expect(await fromTemplate(database)).to.equal(false);
    } finally {
      await database.close();
    }
  });

  it("builds the template once, named after the installed PGlite's version", async () => {
    const version = JSON.parse(
      fs.readFileSync(path.join(import.meta.dirname, "../../node_modules/@electric-sql/pglite/package.json"), "utf8"),
    ).version as string;
    expect(path.basename(embeddedTemplatePath())).to.equal(`data-directory-${version}.tar`);
    const file = path.join(scratch, "built", `data-directory-${version}.tar`);
    expect(await buildDatabaseTemplate(file)).to.equal(true);
    const written = fs.statSync(file);
    expect(await buildDatabaseTemplate(file), "a second build keeps the first").to.equal(false);
    expect(fs.statSync(file).mtimeMs).to.equal(written.mtimeMs);
    expect(fs.readdirSync(path.dirname(file))).to.deep.equal([path.basename(file)]);
    // And a directory made from it is a working PostgreSQL.
    const database = await openDirectory(path.join(scratch, "from-built"), file);
    try {
      const [row] = await database.prisma.$queryRawUnsafe<{ answer: number }[]>("SELECT 6 * 7 AS answer");
      expect(row.answer).to.equal(42);
    } finally {
      await database.close();
    }
  });
});
