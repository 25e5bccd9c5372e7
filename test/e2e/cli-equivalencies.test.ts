// The CLI's `equivalencies import`, and the audit of the operator's changes: in-process on a fresh
// database, and over the server's channel with the file's content sent along (the server is given
// a working directory where the file is not).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { runCli, serverCommandRunner } from "../../src/cli/program.ts";
import { fileToForward } from "../../src/cli/equivalencies.ts";
import { adminSocketPath, forwardCommand, openAdminChannel } from "../../src/process/admin-channel.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { createServices } from "../../src/services/index.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";

const HEADER = "source_institution,source_course_1,target_institution,target_course_1,kind,status";
const GOOD = [HEADER, "inst_122977,CHEM 1A,inst_110635,CHEM 4A,equivalent,accepted"].join("\n");
const WITH_ISSUE = [
  HEADER,
  "inst_122977,HIST 11,inst_110635,HIST 1,equivalent,pending",
  "inst_122977,NOPE 1,inst_110635,CHEM 4A,sideways,accepted",
].join("\n");

/** The arguments of `equivalencies import` of `file` for an organization's live rules. */
function importArgs(file: string, organization = "district"): string[] {
  return ["equivalencies", "import", "--organization", organization, "--environment", "live", "--file", file];
}

describe("CLI commands: equivalencies import, and the operator's audit entries", function () {
  this.timeout(300_000);
  let db: TestDatabase;
  let tmp: string;
  let organizationId: string;

  async function cli(argv: string[], stdin = "") {
    const transcript = { stdout: "", stderr: "", code: -1 };
    const shared = async () => ({ ...db, close: async () => {} });
    transcript.code = await runCli(
      argv,
      { stdout: (t) => void (transcript.stdout += t), stderr: (t) => void (transcript.stderr += t) },
      {
        openDb: shared,
        openRaw: shared,
        openKeys: () => openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } }),
        cwd: tmp,
        readStdin: async () => stdin,
      },
    );
    return transcript;
  }

  /**
   * `equivalencies import` of `file` for district's live rules (or another organization's), with
   * `--dry-run` and `--json` when asked; `result` is what `--json` printed, parsed.
   */
  async function importRules(
    file: string,
    options: { stdin?: string; organization?: string; dryRun?: boolean; json?: boolean } = {},
  ) {
    const { stdin = "", organization, dryRun = false, json = false } = options;
    const argv = [...(json ? ["--json"] : []), ...importArgs(file, organization), ...(dryRun ? ["--dry-run"] : [])];
    const transcript = await cli(argv, stdin);
    return { ...transcript, result: json ? JSON.parse(transcript.stdout) : undefined };
  }

  const operatorEntries = (operationId: string) =>
    db.prisma.auditEntry.findMany({ where: { actorKind: "operator", operationId }, orderBy: { createdAt: "asc" } });

  before(async () => {
    db = await freshDatabase();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cli-equivalencies-"));
    await loadInstitutions(db.prisma, "live");
    expect((await cli(["orgs", "create", "--slug", "district", "--name", "District"])).code).to.equal(0);
    expect((await cli(["orgs", "grant", "--org", "district", "--env", "live", "--all"])).code).to.equal(0);
    const org = await db.prisma.organization.findUniqueOrThrow({ where: { slug: "district" } });
    organizationId = org.id;
    // The courses the rules name (fixtures, outside any actor's change).
    const services = createServices({
      repositories: repositoriesOf(db),
      config: loadConfig({ SVC_LOG_LEVEL: "silent" }),
      secrets: openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } }).box,
    });
    const setup = {
      kind: "api_key",
      id: "key_setup",
      organizationId,
      organizationSlug: "district",
      channel: "direct",
      environment: "live",
      scopes: ["read:public", "write:contribute"],
    } satisfies Credential;
    const course = (institutionId: string, code: string) => ({
      institutionId,
      code,
      title: code,
      credits: 3,
      level: "lower" as const,
    });
    await services.courses.upsertCourses(setup, [
      course("inst_122977", "CHEM 1A"),
      course("inst_122977", "HIST 11"),
      course("inst_110635", "CHEM 4A"),
      course("inst_110635", "HIST 1"),
    ]);
  });
  after(async () => {
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("the operator's changes are audited in their own transaction: kind operator, the OS user, cli:<command>", async () => {
    const created = await cli(["--json", "keys", "create", "--org", "district", "--env", "live", "--name", "etl"]);
    expect(created.code).to.equal(0);
    const key = JSON.parse(created.stdout);
    const revoked = await cli(["keys", "revoke", key.id]);
    expect(revoked.code).to.equal(0);
    const entries = await db.prisma.auditEntry.findMany({ where: { targetId: key.id }, orderBy: { createdAt: "asc" } });
    expect(entries.map((e) => [e.operationId, e.actorKind, e.actorId, e.targetType, e.environment])).to.deep.equal([
      ["cli:keys create", "operator", os.userInfo().username, "key", "live"],
      ["cli:keys revoke", "operator", os.userInfo().username, "key", "live"],
    ]);
    expect(entries.every((e) => e.organizationId === organizationId && /^req_/.test(e.requestId ?? ""))).to.equal(true);
    // The organization's creation and its grant were the operator's too.
    expect((await operatorEntries("cli:orgs create")).map((e) => e.targetId)).to.deep.equal([organizationId]);
    expect((await operatorEntries("cli:orgs grant")).map((e) => [e.targetType, e.targetId])).to.deep.equal([
      ["stewardship", null],
    ]);
  });

  it("imports a file for an organization: the counts, one audit entry per rule written, exit 0", async () => {
    fs.writeFileSync(path.join(tmp, "rules.csv"), GOOD);
    const dry = await importRules("rules.csv", { dryRun: true });
    expect(dry.code).to.equal(0);
    expect(dry.stdout).to.contain("Dry run, nothing written: 1 row(s) of rules.csv: 1 created");
    expect(await db.prisma.equivalency.count()).to.equal(0);

    const done = await importRules("rules.csv");
    expect(done).to.deep.include({ code: 0, stderr: "" });
    expect(done.stdout).to.equal(
      "1 row(s) of rules.csv: 1 created, 0 updated, 0 unchanged, 0 in conflict, 0 rejected.\n",
    );
    const rules = await db.prisma.equivalency.findMany();
    expect(rules.map((rule) => [rule.organizationId, rule.environment, rule.status])).to.deep.equal([
      [organizationId, "live", "accepted"],
    ]);
    const entries = await operatorEntries("cli:equivalencies import");
    expect(entries.map((e) => [e.targetType, e.targetId, e.environment])).to.deep.equal([
      ["equivalency", rules[0].id, "live"],
    ]);
    // Its event, in the same transaction.
    expect(await db.prisma.outboxEvent.count({ where: { type: "equivalency.created" } })).to.equal(1);
  });

  it("prints each row's issue, exits 1, and reads standard input with --file -; --json prints the result", async () => {
    const text = await importRules("-", { stdin: WITH_ISSUE });
    expect(text.code).to.equal(1);
    expect(text.stdout).to.match(
      /^2 row\(s\) of standard input: 1 created, .* 1 rejected\.\n {2}row 2, kind: must be one of/,
    );
    const json = await importRules("-", { stdin: WITH_ISSUE, dryRun: true, json: true });
    expect(json.code).to.equal(1);
    const { result } = json;
    expect(result.summary).to.include({ received: 2, unchanged: 1, rejected: 1 });
    expect(result.issues.map((issue: { row: number }) => issue.row)).to.deep.equal([2]);
  });

  it("refuses a file that is not UTF-8 naming the byte, and a 13-course row with an issue saying how many, writing nothing", async () => {
    const before = await db.prisma.equivalency.count();
    fs.writeFileSync(
      path.join(tmp, "latin1.csv"),
      Buffer.from(`${HEADER}\ninst_122977,HIST 11,inst_110635,HIST\u00c9 1,elective,pending\n`, "latin1"),
    );
    const latin1 = await importRules("latin1.csv");
    expect(latin1.code).to.equal(1);
    expect(latin1.stderr).to.contain("latin1.csv is not UTF-8: byte 118 (0xC9");
    const header = `source_institution,${Array.from({ length: 13 }, (_, i) => `source_course_${i + 1}`).join(",")},target_institution,target_course_1`;
    const row = `inst_122977,${Array.from({ length: 13 }, (_, i) => `ASTR ${100 + i}`).join(",")},inst_110635,ASTRON 1XX`;
    const long = await importRules("-", { stdin: `${header}\n${row}\n`, json: true });
    expect(long.code).to.equal(1);
    expect(long.result.summary).to.include({ received: 1, rejected: 1 });
    expect(long.result.issues[0]).to.deep.include({ row: 1, column: "source_course_13" });
    expect(long.result.issues[0].message).to.contain("names 13 source courses");
    expect(await db.prisma.equivalency.count()).to.equal(before);
  });

  it("refuses an unknown organization or a missing file with one line, writing nothing", async () => {
    const before = await db.prisma.equivalency.count();
    const nobody = await importRules("-", { stdin: GOOD, organization: "nobody" });
    expect(nobody.code).to.equal(1);
    expect(nobody.stderr).to.contain('No organization has the slug "nobody"');
    const missing = await importRules("absent.csv");
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain("Cannot read absent.csv: there is no such file");
    expect(await db.prisma.equivalency.count()).to.equal(before);
  });

  it("over the server's channel the file's content travels with the command (the server's directory lacks it)", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-equivalencies-served-"));
    const channel = await openAdminChannel(
      adminSocketPath(dataDir),
      serverCommandRunner(db, () => openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } })),
      createLogger("silent"),
    );
    try {
      const operatorDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-equivalencies-operator-"));
      fs.writeFileSync(
        path.join(operatorDir, "more.csv"),
        WITH_ISSUE.replace("HIST 1,", "HIST 1,").replace("pending", "accepted"),
      );
      const argv = importArgs("more.csv");
      const input = fileToForward(argv, () => "", operatorDir);
      // The server is told a working directory where the file is not: only the content can reach it.
      fs.rmSync(operatorDir, { recursive: true, force: true });
      let stdout = "";
      const code = await forwardCommand(
        channel.path,
        { argv, cwd: operatorDir, terminal: { outColors: false, errColors: false }, input },
        { stdout: (t) => void (stdout += t), stderr: () => undefined },
      );
      expect(code).to.equal(1);
      expect(stdout).to.match(
        /^2 row\(s\) of more\.csv: 0 created, 1 updated, 0 unchanged, 0 in conflict, 1 rejected\./,
      );
    } finally {
      await channel.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
