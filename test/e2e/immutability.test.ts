// Version snapshots are immutable: the database refuses to change them, and no
// code of the service tries to.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { createSandboxService } from "../../src/services/sandbox.ts";
import { createSandboxRepository } from "../../src/repositories/sandbox.ts";

describe("immutable version snapshots", () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase();
    await createSandboxService({ sandbox: createSandboxRepository(db.prisma) }).seedSandbox();
  });
  after(() => db.close());

  it("the database refuses UPDATE and DELETE on equivalency_versions", async () => {
    const before = await db.prisma.equivalencyVersion.count();
    expect(before).to.be.greaterThan(0);
    const attempts = [
      () => db.prisma.$executeRawUnsafe(`UPDATE equivalency_versions SET change_note = 'rewritten'`),
      () => db.prisma.$executeRawUnsafe(`DELETE FROM equivalency_versions`),
      () => db.prisma.equivalencyVersion.updateMany({ data: { changeNote: "rewritten" } }),
      () => db.prisma.equivalencyVersion.deleteMany({}),
    ];
    for (const attempt of attempts) {
      let error: unknown = null;
      try {
        await attempt();
      } catch (caught) {
        error = caught;
      }
      expect(String(error)).to.contain("append-only");
    }
    expect(await db.prisma.equivalencyVersion.count()).to.equal(before);
    const rewritten = await db.prisma.equivalencyVersion.count({ where: { changeNote: "rewritten" } });
    expect(rewritten).to.equal(0);
  });

  it("no source file updates or deletes a snapshot", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.(ts|js)$/.test(entry.name)) {
          const text = fs.readFileSync(file, "utf8");
          if (
            /equivalencyVersion\.(update|updateMany|upsert|delete|deleteMany)\b|(UPDATE|DELETE FROM)\s+"?equivalency_versions/i.test(
              text,
            )
          )
            offenders.push(file);
        }
      }
    };
    walk(path.resolve(import.meta.dirname, "../../src"));
    walk(path.resolve(import.meta.dirname, "../../scripts"));
    expect(offenders).to.deep.equal([]);
  });
});
