// The administrator's CLI: in-process on a fresh database for the commands,
// and as a real process for exit codes and output streams.
import { repositoriesOf } from "../../src/repositories/index.ts";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { CommanderError, type Command } from "commander";
import { buildProgram } from "../../src/cli/program.ts";
import { createOutput } from "../../src/cli/output.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { hashApiKey } from "../../src/auth/api-keys.ts";
import { keyFilePath, openKeyring, readKeyFile, type Keyring } from "../../src/process/secrets-keyring.ts";
import { SecretBox, parseSecretsKey } from "../../src/kernel/secret-box.ts";
import { createWebhooksService } from "../../src/services/webhooks.ts";
import { createWebhooksRepository } from "../../src/repositories/webhooks.ts";
import { createAccessTokens } from "../../src/auth/oauth.ts";
import { createStoredSecretsService } from "../../src/services/stored-secrets.ts";
import { createRepositories } from "../../src/repositories/index.ts";
import { loadConfig } from "../../src/kernel/config.ts";
import { storedSecrets } from "../helpers/webhooks.ts";

/** A few dozen real rows of IPEDS HD 2023 and CIP 2020, copied unchanged (columns, quoting, CRLF) from the full files. */
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
const run = promisify(execFile);

describe("CLI commands", () => {
  let db: TestDatabase;
  let printed: string;
  let tmp: string;
  /** The sealing keys the CLI finds: by default, a key file in a temporary data directory. */
  let keyring: () => Keyring;

  async function cli(...args: string[]) {
    printed = "";
    const output = createOutput((text) => (printed += text));
    const keepOpen = async () => ({ ...db, close: async () => {} });
    const program = buildProgram(output, keepOpen, keepOpen, () => keyring());
    const quiet = (command: Command) => {
      command.exitOverride().configureOutput({ writeOut: (s) => (printed += s), writeErr: (s) => (printed += s) });
      command.commands.forEach(quiet);
    };
    quiet(program);
    await program.parseAsync(["node", "cli", ...args]);
    return printed;
  }

  before(async () => {
    db = await freshDatabase();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cli-test-"));
    keyring = () => openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } });
  });
  after(async () => {
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("creates organizations and refuses a duplicate slug", async () => {
    const out = JSON.parse(
      await cli("--json", "orgs", "create", "--slug", "ccc", "--name", "CCC Articulation", "--source", "channel_b"),
    );
    expect(out).to.include({ slug: "ccc", source: "channel_b" });
    let error: unknown;
    try {
      await cli("orgs", "create", "--slug", "ccc", "--name", "again");
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.contain("already exists");
    expect(await cli("orgs", "list")).to.contain("ccc");
  });

  it("creates a key, printing it alone on the last line, stores only its hash, lists and revokes it", async () => {
    const text = await cli(
      "keys",
      "create",
      "--org",
      "ccc",
      "--env",
      "sandbox",
      "--scopes",
      "read:public",
      "--name",
      "reader",
    );
    const key = text.trim().split("\n").at(-1)!;
    expect(key).to.match(/^svc_sandbox_[A-Za-z0-9_-]{40}$/);
    const stored = await db.prisma.apiKey.findUniqueOrThrow({ where: { hash: hashApiKey(key) } });
    expect(stored.scopes).to.deep.equal(["read:public"]);

    const json = JSON.parse(await cli("--json", "keys", "create", "--org", "ccc", "--env", "live"));
    expect(json).to.include.keys("id", "key", "prefix", "scopes");
    const listing = await cli("keys", "list", "--org", "ccc");
    expect(listing).to.contain(stored.prefix).and.not.contain(key);
    await cli("keys", "revoke", stored.id);
    expect((await db.prisma.apiKey.findUniqueOrThrow({ where: { id: stored.id } })).revokedAt).to.be.instanceOf(Date);
  });

  it("refuses bad scopes and environments", async () => {
    const refusals: [string[], RegExp][] = [
      [
        ["--env", "staging"],
        /option '--env <environment>' argument 'staging' is invalid\. Allowed choices are live, sandbox\./,
      ],
      [
        ["--env", "live", "--scopes", "admin"],
        /option '--scopes <scopes>' argument 'admin' is invalid\. expected a comma-separated list of /,
      ],
    ];
    for (const [args, message] of refusals) {
      let error: unknown;
      try {
        await cli("keys", "create", "--org", "ccc", ...args);
      } catch (caught) {
        error = caught;
      }
      expect(error, args.join(" ")).to.be.instanceOf(CommanderError);
      expect((error as CommanderError).code, args.join(" ")).to.equal("commander.invalidArgument");
      expect((error as CommanderError).message, args.join(" ")).to.match(message);
    }
  });

  function writeInstitutions(name: string): string {
    const file = path.join(tmp, name);
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          ipedsId: "110635",
          name: "University of California-Berkeley",
          city: "Berkeley",
          state: "CA",
          type: "four_year_public",
          system: "University of California",
        },
        {
          ipedsId: "122977",
          name: "Santa Monica College",
          city: "Santa Monica",
          state: "CA",
          type: "community_college",
          system: null,
        },
      ]),
    );
    return file;
  }

  it("imports institutions from a JSON array idempotently, skipping and counting rows outside the mapping", async () => {
    const file = path.join(tmp, "institutions.json");
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          ipedsId: "110635",
          name: "University of California-Berkeley",
          city: "Berkeley",
          state: "CA",
          type: "four_year_public",
          system: "University of California",
        },
        {
          UNITID: "122977",
          INSTNM: "Santa Monica College",
          CITY: "Santa Monica",
          STABBR: "CA",
          SECTOR: "4",
          F1SYSNAM: "-2",
        },
        {
          UNITID: "479974",
          INSTNM: "Advance Beauty Techs Academy",
          CITY: "San Jacinto",
          STABBR: "CA",
          SECTOR: "9",
          F1SYSNAM: "-2",
        },
      ]),
    );
    const first = JSON.parse(await cli("--json", "institutions", "import", file, "--env", "live"));
    expect(first).to.include({ read: 3, created: 2, updated: 0, skipped: 1 });
    const again = JSON.parse(await cli("--json", "institutions", "import", file, "--env", "live"));
    expect(again).to.include({ created: 0, updated: 0, unchanged: 2 });
    const institution = await db.prisma.institution.findUniqueOrThrow({
      where: { environment_id: { environment: "live", id: "inst_122977" } },
    });
    expect(institution).to.include({ type: "community_college", system: null });
  });

  it("imports real IPEDS HD rows idempotently, skipping inactive rows and sectors outside the mapping", async () => {
    const file = path.join(FIXTURES, "ipeds-hd2023-sample.csv");
    // The JSON import above already wrote two of these rows in live: Berkeley as HD 2023 has it (unchanged), and
    // Santa Monica College as a community college, which HD 2023 files under sector 1 (updated).
    const summary = JSON.parse(await cli("--json", "institutions", "import", file, "--env", "live"));
    expect(summary).to.deep.include({
      read: 34,
      created: 27,
      updated: 1,
      unchanged: 1,
      skipped: 5,
      skippedReasons: {
        "not currently active (CYACTIVE)": 3,
        "sector 0 is outside the mapping": 1,
        "sector 9 is outside the mapping": 1,
      },
    });
    expect(await db.prisma.institution.count({ where: { environment: "live" } })).to.equal(29);
    const again = JSON.parse(await cli("--json", "institutions", "import", file, "--env", "live"));
    expect(again).to.include({ read: 34, created: 0, updated: 0, unchanged: 29, skipped: 5 });

    const institution = (id: string) =>
      db.prisma.institution.findUniqueOrThrow({ where: { environment_id: { environment: "live", id } } });
    expect(await institution("inst_122977")).to.include({ type: "four_year_public", system: null });
    expect(await institution("inst_100760")).to.include({
      name: "Central Alabama Community College",
      type: "community_college",
      system: "Alabama Community College System",
    });
    expect(await institution("inst_100654")).to.include({ type: "four_year_public", system: null });
    expect(await institution("inst_101365")).to.include({
      type: "four_year_private",
      system: "Herzing University, LTD.",
    });
    expect(
      await db.prisma.institution.findUnique({ where: { environment_id: { environment: "live", id: "inst_100733" } } }),
    ).to.equal(null);
  });

  it("imports CIP 2020 in the shared format and in NCES's own", async () => {
    const shared = path.join(FIXTURES, "cip2020-sample.csv");
    const nces = path.join(tmp, "nces.csv");
    fs.writeFileSync(
      nces,
      'CIPFamily,CIPCode,Action,TextChange,CIPTitle\n="11",="11",No substantive changes,No,"Computer and Information Sciences and Support Services."\n="11",="11.0701",No substantive changes,No,Computer Science.\n="11",="11.0199",Deleted,No,Old Code.\n',
    );
    const fromNces = JSON.parse(await cli("--json", "cip", "import", nces));
    expect(fromNces).to.deep.include({ read: 3, imported: 2, skipped: 1 });
    expect((await db.prisma.cipCode.findUniqueOrThrow({ where: { code: "11.0701" } })).title).to.equal(
      "Computer Science",
    );
    const summary = JSON.parse(await cli("--json", "cip", "import", shared));
    expect(summary).to.deep.include({ read: 41, imported: 41, skipped: 0, byDigits: { 2: 2, 4: 7, 6: 32 } });
    expect(await db.prisma.cipCode.findUniqueOrThrow({ where: { code: "01.0101" } })).to.include({
      title: "Agricultural Business and Management, General",
      digits: 6,
    });
    expect(await db.prisma.cipCode.findUniqueOrThrow({ where: { code: "01.02" } })).to.include({
      title: "Agricultural Mechanization",
      digits: 4,
    });
  });

  it("grants, shows and revokes stewardship (orgs grant / revoke-grant / show)", async () => {
    await cli("--json", "institutions", "import", writeInstitutions("stewarded.json"), "--env", "live");
    await cli("orgs", "create", "--slug", "district", "--name", "District Office");
    const granted = await cli(
      "orgs",
      "grant",
      "--org",
      "district",
      "--env",
      "live",
      "--institution",
      "inst_110635,inst_122977",
    );
    expect(granted).to.contain("Granted district stewardship of inst_110635, inst_122977 in live.");
    await cli("orgs", "grant", "--org", "district", "--env", "sandbox", "--all");

    const shown = JSON.parse(await cli("orgs", "show", "--org", "district", "--json"));
    expect(shown.stewardship).to.deep.equal([
      { environment: "live", allInstitutions: false, institutionIds: ["inst_110635", "inst_122977"] },
      { environment: "sandbox", allInstitutions: true, institutionIds: [] },
    ]);
    const text = await cli("orgs", "show", "--org", "district");
    expect(text)
      .to.contain("live: inst_110635, inst_122977")
      .and.contain("sandbox: every institution (standing grant)");

    await cli("orgs", "revoke-grant", "--org", "district", "--env", "live", "--institution", "inst_122977");
    await cli("orgs", "revoke-grant", "--org", "district", "--env", "sandbox", "--all");
    expect(JSON.parse(await cli("--json", "orgs", "show", "--org", "district")).stewardship).to.deep.equal([
      { environment: "live", allInstitutions: false, institutionIds: ["inst_110635"] },
      { environment: "sandbox", allInstitutions: false, institutionIds: [] },
    ]);
  });

  it("refuses a grant of an unknown institution, both --institution and --all, or neither", async () => {
    const failures = [
      ["orgs", "grant", "--org", "district", "--env", "live", "--institution", "inst_999999"],
      ["orgs", "grant", "--org", "district", "--env", "live", "--institution", "inst_110635", "--all"],
      ["orgs", "grant", "--org", "district", "--env", "live"],
      ["orgs", "grant", "--org", "district", "--env", "live", "--institution", "berkeley"],
      ["orgs", "grant", "--org", "nobody", "--env", "live", "--all"],
    ];
    const messages = [];
    for (const args of failures) {
      const error = await cli(...args).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, args.join(" ")).to.be.instanceOf(Error);
      messages.push(String(error));
    }
    expect(messages[0]).to.contain("inst_999999");
    expect(messages[1]).to.contain("either --institution <ids> or --all");
    expect(messages[2]).to.contain("either --institution <ids> or --all");
    expect(messages[3]).to.contain("institution ids");
    expect(messages[4]).to.contain("nobody");
    expect(await db.prisma.stewardship.count({ where: { institutionId: "inst_999999" } })).to.equal(0);
  });

  it("lists an organization's OAuth clients without secrets and revokes one (oauth-clients list / revoke)", async () => {
    const text = await cli(
      "oauth-clients",
      "create",
      "--org",
      "ccc",
      "--env",
      "live",
      "--scopes",
      "read:public",
      "--name",
      "etl",
    );
    const secret = text.trim().split("\n").at(-1)!;
    expect(secret).to.match(/^svcsec_/);
    const created = JSON.parse(
      await cli("--json", "oauth-clients", "create", "--org", "ccc", "--env", "sandbox", "--name", "nightly"),
    );

    const listed = JSON.parse(await cli("oauth-clients", "list", "--org", "ccc", "--json"));
    expect(listed.map((c: { name: string }) => c.name)).to.deep.equal(["etl", "nightly"]);
    expect(listed[0]).to.have.all.keys(
      "id",
      "clientId",
      "name",
      "environment",
      "scopes",
      "createdAt",
      "lastUsedAt",
      "revokedAt",
    );
    expect(listed[0]).to.include({ environment: "live", lastUsedAt: null, revokedAt: null });
    expect(listed[0].scopes).to.deep.equal(["read:public"]);
    const table = await cli("oauth-clients", "list", "--org", "ccc");
    expect(table.split("\n")[0]).to.match(/^id\s+name\s+environment\s+scopes\s+createdAt\s+lastUsedAt\s+revokedAt$/);
    expect(table).to.contain(created.id).and.contain("nightly");
    for (const output of [table, JSON.stringify(listed)])
      expect(output).to.not.contain(secret).and.not.contain(created.clientSecret);

    expect(await cli("oauth-clients", "revoke", created.id)).to.contain(`Revoked OAuth client ${created.id} (nightly)`);
    const after = JSON.parse(await cli("--json", "oauth-clients", "list", "--org", "ccc"));
    expect(after[1].revokedAt).to.be.a("string");
    expect(after[0].revokedAt).to.equal(null);
    const unknown = await cli("oauth-clients", "revoke", "oac_nope").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(unknown)).to.contain('No OAuth client with id "oac_nope"');
  });

  it("re-seals every stored secret under a new key file key and drops the old key (secrets rotate, key file)", async () => {
    const { box: before } = keyring();
    const org = await db.prisma.organization.findUniqueOrThrow({ where: { slug: "ccc" } });
    const webhooks = createWebhooksService({
      webhooks: createWebhooksRepository(db.prisma),
      transaction: repositoriesOf(db).transaction,
      secrets: before,
      targetPolicy: { allowPrivateTargets: true },
    });
    const hook = await webhooks.createWebhook(
      { organizationId: org.id, environment: "live" },
      { url: "https://h.example.edu/", events: ["course.updated"] },
    );
    const tokens = await createAccessTokens(createRepositories(db.prisma), loadConfig({}), before);
    const status = JSON.parse(await cli("--json", "secrets", "status"));
    expect(status).to.include({ currentKeyId: before.keyId, source: keyFilePath(tmp) });
    expect(status.counts).to.deep.equal({ [before.keyId]: 2 });

    const rotated = JSON.parse(await cli("--json", "secrets", "rotate"));
    expect(rotated.keyId).to.not.equal(before.keyId);
    expect(rotated.resealed).to.deep.equal({ [before.keyId]: 2 });
    const after = keyring().box;
    expect(after.keyIds).to.deep.equal([rotated.keyId]);
    expect(readKeyFile(keyFilePath(tmp))).to.have.length(1);
    expect(fs.statSync(keyFilePath(tmp)).mode & 0o777).to.equal(0o600);
    expect(await createStoredSecretsService(createRepositories(db.prisma)).countByKeyId()).to.deep.equal({
      [rotated.keyId]: 2,
    });
    expect((await storedSecrets(db.prisma, after, hook.id)).secret).to.equal(hook.secret);
    expect((await createAccessTokens(createRepositories(db.prisma), loadConfig({}), after)).jwks).to.deep.equal(
      tokens.jwks,
    );
    expect(await cli("secrets", "status")).to.contain(`${rotated.keyId}: 2 value(s), current key`);
  });

  it("re-seals under SVC_SECRETS_KEY what SVC_SECRETS_OLD_KEYS opens (secrets rotate, environment keys)", async () => {
    const old = keyring().box;
    const next = await cli("secrets", "generate-key");
    const nextKey = parseSecretsKey(next)!;
    expect(nextKey).to.have.length(32);
    keyring = () => ({
      box: new SecretBox(nextKey, [readKeyFile(keyFilePath(tmp))[0]]),
      keyFile: null,
      source: "SVC_SECRETS_KEY",
    });
    expect(await cli("secrets", "status")).to.contain(`${old.keyId}: 2 value(s), older key`);
    const text = await cli("secrets", "rotate");
    expect(text)
      .to.contain(`Re-sealed 2 stored secret(s) under key id ${keyring().box.keyId}`)
      .and.contain("SVC_SECRETS_OLD_KEYS can be removed");
    expect(await createStoredSecretsService(createRepositories(db.prisma)).countByKeyId()).to.deep.equal({
      [keyring().box.keyId]: 2,
    });
    expect(await cli("secrets", "rotate"))
      .to.contain("Re-sealed 0 stored secret(s)")
      .and.contain("put a new key");

    keyring = () => ({
      box: new SecretBox(parseSecretsKey(next)!.reverse()),
      keyFile: null,
      source: "SVC_SECRETS_KEY",
    });
    const refused = await cli("secrets", "rotate").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(refused)).to.contain("which the configured keys (SVC_SECRETS_KEY) do not include");
  });

  it("seeds the sandbox once", async () => {
    const seeded = JSON.parse(await cli("--json", "seed", "--env", "sandbox"));
    expect(seeded.equivalencies).to.be.greaterThan(199);
    // The seed's records belong to the seed organization, which stewards every seeded institution.
    const seedGrants = await db.prisma.stewardship.count({
      where: { organizationId: "org_sandbox_seed", environment: "sandbox" },
    });
    expect(seedGrants).to.equal(seeded.institutions);
    const again = JSON.parse(await cli("--json", "seed", "--env", "sandbox"));
    expect(again).to.deep.equal({ seeded: false });
  });

  it("reports migration status", async () => {
    const status = JSON.parse(await cli("--json", "db", "status"));
    expect(status.pending).to.deep.equal([]);
    expect(status.applied).to.include("20261122000000_init");
  });
});

describe("CLI as a process", () => {
  const tsx = path.resolve(import.meta.dirname, "../../node_modules/.bin/tsx");
  const cliPath = path.resolve(import.meta.dirname, "../../scripts/cli.ts");

  it("--help on every command, and a clear message with a non-zero exit on bad input", async function () {
    this.timeout(60_000);
    const help = await run(tsx, [cliPath, "keys", "create", "--help"]);
    expect(help.stdout).to.contain("--org").and.contain("--env");
    let failure: { code?: number; stderr?: string } = {};
    try {
      await run(tsx, [cliPath, "keys", "create", "--org", "x", "--env", "staging"]);
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.code).to.not.equal(0);
    expect(failure.stderr).to.contain("staging");
  });

  it("stops with a message naming an invalid variable", async function () {
    this.timeout(60_000);
    let failure: { code?: number; stderr?: string } = {};
    try {
      await run(tsx, [cliPath, "db", "status"], { env: { ...process.env, DATABASE_URL: "mysql://nope" } });
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure.code).to.not.equal(0);
    expect(failure.stderr).to.contain("DATABASE_URL");
  });
});
