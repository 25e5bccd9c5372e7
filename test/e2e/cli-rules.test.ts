// The registrar's commands: `equivalencies list|show|create`, `evaluate --file` and `requests list`,
// in-process on a fresh database holding the seeded sandbox, through the services the API uses;
// `--org/--env` and `--organization/--environment` alike, institutions by id or IPEDS unit id.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { runCli } from "../../src/cli/program.ts";
import { fileToForward } from "../../src/cli/equivalencies.ts";
import { readTranscript } from "../../src/cli/evaluate.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

const TRANSCRIPT = [
  "institution,code,grade,completed_on",
  "122977,BIO 101,B,2025-06-12",
  "inst_122977,CHEM 1A,C,2025-06-12",
  "inst_122977,chem 1al,C,2025-06-12",
].join("\n");

describe("CLI commands: equivalencies list, show and create, evaluate, requests list", function () {
  this.timeout(300_000);
  let db: TestDatabase;
  let tmp: string;
  let ruleId: string;

  async function cli(...argv: string[]) {
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
        readStdin: async () => TRANSCRIPT,
      },
    );
    return transcript;
  }

  before(async () => {
    db = await freshDatabase();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cli-rules-"));
    expect((await cli("seed", "--env", "sandbox")).code).to.equal(0);
    expect((await cli("orgs", "create", "--slug", "berkeley", "--name", "UC Berkeley Articulation")).code).to.equal(0);
    // The long forms where the short ones were documented.
    const grant = await cli(
      "orgs",
      "grant",
      "--organization",
      "berkeley",
      "--environment",
      "sandbox",
      "--institution",
      "inst_110635",
    );
    expect(grant.stderr).to.equal("");
    expect(grant.code).to.equal(0);
  });
  after(async () => {
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const createArgs = [
    "equivalencies",
    "create",
    "--organization",
    "berkeley",
    "--env",
    "sandbox",
    "--from",
    "122977",
    "--source",
    "CHEM 1A",
    "--source",
    "chem 1al",
    "--to",
    "inst_110635",
    "--target",
    "CHEM 4A",
    "--minimum-grade",
    "c",
    "--effective-from",
    "2024-08-15",
    "--status",
    "accepted",
  ];

  it("equivalencies create --dry-run checks the rule by its codes and writes nothing", async () => {
    const before = await db.prisma.equivalency.count();
    const dry = await cli(...createArgs, "--dry-run");
    expect(dry.stderr).to.equal("");
    expect(dry.stdout).to.equal(
      "Dry run, nothing written: the rule checks out and would be created accepted, awarding 4 semester.\n",
    );
    expect(await db.prisma.equivalency.count()).to.equal(before);
  });

  it("equivalencies create writes the rule as createEquivalency does: CHEM 4A's own 4 units awarded, audited as the operator's", async () => {
    const created = await cli("--json", ...createArgs);
    expect(created.stderr).to.equal("");
    expect(created.code).to.equal(0);
    const rule = JSON.parse(created.stdout);
    ruleId = rule.id;
    expect(rule).to.deep.include({
      targetInstitutionId: "inst_110635",
      targetCode: "CHEM 4A",
      minimumGrade: "C",
      effectiveFrom: "2024-08-15",
      status: "accepted",
      awardedCredits: 4,
      awardedCreditUnit: "semester",
      provenance: "direct",
    });
    expect(rule.sourceCourses.map((c: { code: string }) => c.code)).to.deep.equal(["CHEM 1A", "CHEM 1AL"]);
    const audit = await db.prisma.auditEntry.findMany({ where: { operationId: "cli:equivalencies create" } });
    expect(audit.map((entry) => [entry.targetType, entry.targetId, entry.actorKind])).to.deep.equal([
      ["equivalency", ruleId, "operator"],
    ]);
    // The same rule again is the API's 409, said in words.
    const again = await cli(...createArgs);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain(ruleId);
  });

  it("equivalencies create: a course code the sending institution lacks, and a receiving institution not stewarded, are refused", async () => {
    const unknown = await cli(...createArgs.map((a) => (a === "chem 1al" ? "CHEM 99" : a)));
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('no course \\"CHEM 99\\" at inst_122977');
    const elsewhere = await cli(...createArgs.map((a) => (a === "inst_110635" ? "110662" : a)));
    expect(elsewhere.code).to.equal(1);
    expect(elsewhere.stderr).to.contain("inst_110662");
    const wrongGrade = await cli(...createArgs.map((a) => (a === "c" ? "E" : a)));
    expect(wrongGrade.code).to.equal(1);
    expect(wrongGrade.stderr).to.contain('expected a letter grade A+ … D-, or P, not "E"');
  });

  it("equivalencies list and show name the courses and institutions; --json prints the API's records", async () => {
    const list = await cli(
      "equivalencies",
      "list",
      "--env",
      "sandbox",
      "--target-institution",
      "110635",
      "--kind",
      "equivalent",
      "--limit",
      "100",
    );
    expect(list.code).to.equal(0);
    const [header, ...rows] = list.stdout.trim().split("\n");
    expect(header).to.match(/^id +status +from +sources +to +targets +kind +grade +credits +effective$/);
    const row = rows.find((line) => line.startsWith(ruleId));
    expect(row).to.match(
      /accepted +Santa Monica College +CHEM 1A \+ CHEM 1AL +University of California-Berkeley +CHEM 4A +equivalent +C +4 semester +2024-08-15\.\.…$/,
    );
    const json = JSON.parse(
      (
        await cli(
          "--json",
          "equivalencies",
          "list",
          "--environment",
          "sandbox",
          "--source-course",
          JSON.parse((await cli("--json", "equivalencies", "show", ruleId, "--env", "sandbox")).stdout)
            .sourceCourseIds[1],
        )
      ).stdout,
    );
    expect(json.data.map((r: { id: string }) => r.id)).to.deep.equal([ruleId]);
    expect(json.total).to.equal(1);

    const show = await cli("equivalencies", "show", ruleId, "--env", "sandbox");
    expect(show.stdout).to.contain("From:          CHEM 1A + CHEM 1AL at Santa Monica College (inst_122977)\n");
    expect(show.stdout).to.contain("To:            CHEM 4A at University of California-Berkeley (inst_110635)\n");
    expect(show.stdout).to.contain("Minimum grade: C or better\n");
    expect(show.stdout).to.contain("Credits:       4 semester\n");
    const missing = await cli("equivalencies", "show", "eq_nope", "--env", "sandbox");
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/eq_nope/);
  });

  it("evaluate --file: every course's outcome and reasons, the totals; IPEDS unit ids, codes in any case; requests list counts the course without a rule", async () => {
    fs.writeFileSync(path.join(tmp, "transcript.csv"), TRANSCRIPT);
    const evaluated = await cli("evaluate", "--env", "sandbox", "--to", "110635", "--file", "transcript.csv");
    expect(evaluated.stderr).to.equal("");
    expect(evaluated.code).to.equal(0);
    const lines = evaluated.stdout.trim().split("\n");
    expect(lines[0]).to.match(/^course +grade +outcome +counts as +credits +why$/);
    expect(lines[1]).to.match(/^BIO 101 +B +no_rule +- +- +No accepted rule/);
    expect(lines[2]).to.match(/^CHEM 1A +C +equivalent +CHEM 4A +4 +/);
    expect(lines[3]).to.match(/^CHEM 1AL +C +equivalent +CHEM 4A +0 +/);
    expect(lines.at(-1)).to.equal("2 of 3 course(s) count: 4 semester unit(s) awarded.");
    // Standard input, and --json: the API's answer.
    const json = JSON.parse(
      (await cli("--json", "evaluate", "--env", "sandbox", "--to", "inst_110635", "--file", "-")).stdout,
    );
    expect(json.totals).to.deep.include({ courses: 3, matchedCourses: 2, awardedCredits: 4 });

    const requests = await cli("requests", "list", "--env", "sandbox", "--to", "110635");
    expect(requests.code).to.equal(0);
    expect(requests.stdout).to.match(
      /^requests +course +title +institution +last requested\n1 +BIO 101 +Concepts in Biology +inst_122977 +\d{4}-/,
    );
  });

  it("evaluate --file: every problem of the transcript at once, before anything is asked", async () => {
    fs.writeFileSync(
      path.join(tmp, "bad.csv"),
      [
        "institution,code,grade,completed_on",
        "inst_122977,BIO 101,b,2025-06-12",
        ",,,",
        "inst_122977,CHEM 1A,A,08/15/2024",
      ].join("\n"),
    );
    const bad = await cli("evaluate", "--env", "sandbox", "--to", "110635", "--file", "bad.csv");
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.contain('row 1, grade: "b" is not a grade, written in capitals');
    expect(bad.stderr).to.contain("row 2: give institution and code, or course_id");
    expect(bad.stderr).to.contain('row 3, completed_on: must be a date YYYY-MM-DD, e.g. 2024-08-15, not "08/15/2024"');
    expect(readTranscript(TRANSCRIPT).map((c) => c.grade)).to.deep.equal(["B", "C", "C"]);
  });

  it("beside a running server, the transcript named by evaluate --file is read by the CLI and sent along", () => {
    fs.writeFileSync(path.join(tmp, "sent.csv"), TRANSCRIPT);
    expect(
      fileToForward(["evaluate", "--env", "sandbox", "--to", "110635", "--file", "sent.csv"], () => "", tmp),
    ).to.equal(TRANSCRIPT);
    expect(fileToForward(["--json", "evaluate", "--file", "-"], () => "from stdin", tmp)).to.equal("from stdin");
  });
});
