// The admin channel's command runner (src/cli/server-commands.ts): the command program loads with
// the first command (test/unit/build-server.test.ts checks that the server's entry point does not
// import it), concurrent first commands share one import, and the commands run on the server's
// own database.
import { expect } from "chai";
import { loadCommandProgram, serverCommandRunner } from "../../src/cli/server-commands.ts";
import type { CommandIo } from "../../src/process/admin-channel.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

function capture(): CommandIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    out: () => out,
    err: () => err,
  };
}

const terminal = { outColors: false, errColors: false };

describe("server command runner (src/cli/server-commands.ts)", function () {
  this.timeout(120_000);
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase();
  });
  after(() => db?.close());

  it("imports the command program once for callers that ask at the same time", async () => {
    const [first, second] = await Promise.all([loadCommandProgram(), loadCommandProgram()]);
    expect(first).to.equal(second);
    expect(first.runCli).to.be.a("function");
  });

  it("runs the first commands, started together, on the server's database", async () => {
    const forgotten: string[] = [];
    const run = serverCommandRunner(db, { forgetCredential: (id) => forgotten.push(id) });
    const created = capture();
    const listedMeanwhile = capture();
    const [createCode, listCode] = await Promise.all([
      run(
        { argv: ["orgs", "create", "--slug", "lazy-org", "--name", "Lazy Org"], cwd: process.cwd(), terminal },
        created,
      ),
      run({ argv: ["orgs", "list"], cwd: process.cwd(), terminal }, listedMeanwhile),
    ]);
    expect(createCode, created.err()).to.equal(0);
    expect(listCode, listedMeanwhile.err()).to.equal(0);
    const listed = capture();
    expect(await run({ argv: ["orgs", "list"], cwd: process.cwd(), terminal }, listed)).to.equal(0);
    expect(listed.out()).to.include("lazy-org");
    expect(await db.prisma.organization.count({ where: { slug: "lazy-org" } })).to.equal(1);
  });
});
