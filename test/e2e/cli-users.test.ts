// The CLI's `users` group, in-process on a fresh database (the style of test/e2e/cli.test.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/program.ts";
import { createOutput } from "../../src/cli/output.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import { createRepositories } from "../../src/repositories/index.ts";

describe("CLI commands: users", () => {
  let db: TestDatabase;
  let tmp: string;

  async function cli(...args: string[]): Promise<string> {
    let printed = "";
    const output = createOutput((text) => (printed += text));
    const keepOpen = async () => ({ ...db, close: async () => {} });
    const keyring = () => openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } });
    const program = buildProgram(output, keepOpen, keepOpen, keyring);
    const quiet = (command: Command) => {
      command.exitOverride().configureOutput({ writeOut: (s) => (printed += s), writeErr: (s) => (printed += s) });
      command.commands.forEach(quiet);
    };
    quiet(program);
    await program.parseAsync(["node", "cli", ...args]);
    return printed;
  }

  async function failure(...args: string[]): Promise<string> {
    try {
      await cli(...args);
    } catch (error) {
      return String(error);
    }
    throw new Error(`cli ${args.join(" ")} did not fail`);
  }

  before(async () => {
    db = await freshDatabase();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cli-users-test-"));
    await cli("orgs", "create", "--slug", "district", "--name", "District", "--source", "channel_a");
  });
  after(async () => {
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("users invite adds the first admin and prints a one-time link alone on the last line, storing only its hash", async () => {
    const text = await cli("users", "invite", "--org", "district", "--email", "Admin@District.edu", "--role", "admin");
    const lines = text.trim().split("\n");
    const link = lines.at(-1)!;
    expect(link).to.match(/^https?:\/\/[^/]+\/dashboard\/auth\/link\?token=[A-Za-z0-9_-]{43}$/);
    expect(text).to.contain("within 15 minutes");
    const token = new URL(link).searchParams.get("token")!;
    const stored = await createRepositories(db.prisma).users.findSignInLink(hashApiKey(token));
    expect(stored?.user.email).to.equal("Admin@District.edu");
    expect(stored?.user.role).to.equal("admin");
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).to.equal(15 * 60_000);
    expect(JSON.stringify(await db.prisma.signInLink.findMany())).to.not.contain(token);
  });

  it("users invite of an existing member (any case) prints a new link and keeps one user", async () => {
    const out = JSON.parse(
      await cli("--json", "users", "invite", "--org", "district", "--email", "admin@district.edu", "--role", "viewer"),
    );
    expect(out).to.include({ created: false, role: "admin" });
    expect(out.signInUrl).to.contain("/dashboard/auth/link?token=");
    const listed = JSON.parse(await cli("--json", "users", "list", "--org", "district"));
    expect(listed).to.have.length(1);
  });

  it("users invite refuses an unknown organization, a bad role and a bad email", async () => {
    expect(await failure("users", "invite", "--org", "nope", "--email", "a@b.edu", "--role", "admin")).to.contain(
      'No organization has the slug "nope"',
    );
    expect(await failure("users", "invite", "--org", "district", "--email", "a@b.edu", "--role", "owner")).to.contain(
      "Allowed choices are admin, contributor, viewer",
    );
    expect(
      await failure("users", "invite", "--org", "district", "--email", "not-an-email", "--role", "viewer"),
    ).to.match(/email/);
  });

  it("users list shows every user of the organization; --json gives the records", async () => {
    await cli("users", "invite", "--org", "district", "--email", "viewer@district.edu", "--role", "viewer");
    const table = await cli("users", "list", "--org", "district");
    expect(table).to.contain("viewer@district.edu").and.to.contain("Admin@District.edu");
    const listed = JSON.parse(await cli("--json", "users", "list", "--org", "district"));
    expect(listed.map((u: { role: string }) => u.role)).to.deep.equal(["admin", "viewer"]);
  });

  it("users disable disables a user, ends their sessions, and refuses an unknown id", async () => {
    const listed = JSON.parse(await cli("--json", "users", "list", "--org", "district"));
    const viewer = listed.find((u: { email: string }) => u.email === "viewer@district.edu");
    const out = JSON.parse(await cli("--json", "users", "disable", viewer.id));
    expect(out).to.include({ id: viewer.id, disabled: true });
    expect(await failure("users", "disable", "usr_unknown")).to.contain('No member with id "usr_unknown"');
  });

  it("users disable refuses to disable the organization's last admin", async () => {
    const listed = JSON.parse(await cli("--json", "users", "list", "--org", "district"));
    const admin = listed.find((u: { role: string }) => u.role === "admin");
    expect(await failure("users", "disable", admin.id)).to.contain("last admin");
  });
});
