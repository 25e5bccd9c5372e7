// The CLI beside a running server: with the embedded database held by the server,
// commands travel over the Unix socket in the data directory and run inside the
// server (src/process/admin-channel.ts). What a person sees must not change: every
// documented command is run twice, once directly and once over the channel, on
// two databases prepared alike, and the two transcripts (standard output,
// standard error, exit code) must be the same once random ids are named by order
// of appearance. Then the real thing: `npm start`'s entry point and the CLI as
// processes.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import type { Command } from "commander";
import { buildProgram, runCli, serverCommandRunner } from "../../src/cli/program.ts";
import { createOutput } from "../../src/cli/output.ts";
import { fileToForward } from "../../src/cli/equivalencies.ts";
import {
  adminSocketPath,
  ForeignSocketError,
  forwardCommand,
  openAdminChannel,
  type AdminChannel,
} from "../../src/process/admin-channel.ts";
import { openKeyring, type Keyring } from "../../src/process/secrets-keyring.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
const run = promisify(execFile);

interface Transcript {
  argv: string[];
  stdout: string;
  stderr: string;
  code: number;
}

/** One way of running a command line: directly, or over the channel. */
type Runner = (argv: string[]) => Promise<Transcript>;

/** Every command of docs/cli.md's table, with the failures a person meets; later steps read earlier output. */
const SCRIPT: ((seen: Transcript[]) => string[])[] = [
  () => ["--help"],
  () => ["orgs", "create", "--slug", "acme", "--name", "Acme College District", "--source", "channel_a"],
  () => ["orgs", "create", "--slug", "acme", "--name", "again"],
  () => ["orgs", "list"],
  () => ["--json", "orgs", "list"],
  () => ["institutions", "import", "ipeds-hd2023-sample.csv", "--env", "live"],
  () => ["--json", "institutions", "import", "ipeds-hd2023-sample.csv", "--env", "sandbox", "--source", "channel_b"],
  () => ["institutions", "import", "no-such-file.csv", "--env", "live"],
  () => ["cip", "import", "cip2020-sample.csv"],
  () => ["cip", "import", "no-such-file.csv"],
  () => ["orgs", "grant", "--org", "acme", "--env", "live", "--institution", "inst_100654,inst_100663"],
  () => ["orgs", "grant", "--org", "acme", "--env", "sandbox", "--all"],
  () => ["orgs", "show", "--org", "acme"],
  () => ["--json", "orgs", "show", "--org", "acme"],
  () => ["orgs", "revoke-grant", "--org", "acme", "--env", "sandbox", "--all"],
  () => ["orgs", "grant", "--org", "acme", "--env", "live", "--institution", "inst_999999"],
  () => [
    "equivalencies",
    "import",
    "--organization",
    "acme",
    "--environment",
    "live",
    "--file",
    "equivalencies-sample.csv",
  ],
  () => ["equivalencies", "import", "--organization", "acme", "--environment", "live", "--file", "no-such-file.csv"],
  () => ["keys", "create", "--org", "acme", "--env", "sandbox", "--name", "first"],
  () => ["--json", "keys", "create", "--org", "acme", "--env", "live", "--scopes", "read:public"],
  () => ["keys", "create", "--org", "acme", "--env", "staging"],
  () => ["keys", "create", "--org", "nobody", "--env", "live"],
  () => ["keys", "list", "--org", "acme"],
  (seen) => ["keys", "revoke", idIn(seen, /Created sandbox key (key_\w+)/)],
  () => ["keys", "revoke", "key_nope"],
  () => ["oauth-clients", "create", "--org", "acme", "--env", "live", "--name", "etl"],
  () => ["oauth-clients", "list", "--org", "acme"],
  (seen) => ["oauth-clients", "revoke", idIn(seen, /"id": "(oac_\w+)"|OAuth client (oac_\w+)/)],
  () => ["secrets", "status"],
  () => ["secrets", "rotate"],
  () => ["--json", "secrets", "status"],
  () => ["events", "tail", "--env", "live", "--after", "soon"],
  () => ["seed", "--env", "sandbox"],
  () => ["seed", "--env", "sandbox"],
  () => ["seed", "--env", "live"],
  () => ["db", "migrate"],
  () => ["db", "status"],
  () => ["--json", "db", "status"],
  () => ["no-such-command"],
];

function idIn(seen: Transcript[], pattern: RegExp): string {
  for (const transcript of seen) {
    const match = pattern.exec(transcript.stdout);
    if (match) return match[1] ?? match[2];
  }
  throw new Error(`no earlier output matches ${pattern}`);
}

/**
 * Random values named by order of first appearance, and the data directories (which hold the key
 * file the secrets commands name) by one name, so two runs can be compared wherever the clone lives.
 */
function normalizer(keyIds: () => string[], dataDirs: readonly string[]) {
  const names = new Map<string, string>();
  const keyNames = new Map<string, string>();
  const name = (kind: string) => (value: string) => {
    if (!names.has(value)) names.set(value, `<${kind}${names.size}>`);
    return names.get(value)!;
  };
  return (text: string) => {
    let out = text
      .replace(/\b[a-z]+_[0-9A-HJKMNP-TV-Z]{26}\b/g, name("id"))
      .replace(/\bsvc_(live|sandbox)_[A-Za-z0-9_-]{20,}/g, name("key"))
      .replace(/\bsvc_(live|sandbox)_[A-Za-z0-9_-]{8}(?![A-Za-z0-9_-])/g, name("prefix"));
    for (const dir of dataDirs) out = out.split(dir).join("<dataDir>");
    out = out
      .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\b/g, "<time>")
      .replace(/^[A-Za-z0-9_-]{43}$/gm, name("secret"))
      .replace(
        /(Its secret is shown only now:\n|"clientSecret": ")([^\n"]+)/g,
        (_m, a, b) => `${a}${name("secret")(b)}`,
      );
    // Key ids are named apart: the two runs may hold different numbers of keys (a rotation refused beside a server).
    for (const keyId of keyIds()) {
      if (!keyNames.has(keyId)) keyNames.set(keyId, `<keyid${keyNames.size}>`);
      out = out.split(keyId).join(keyNames.get(keyId)!);
    }
    return out;
  };
}

describe("CLI over the server's channel, compared with the CLI on its own", function () {
  this.timeout(300_000);
  const dirs: string[] = [];
  const databases: TestDatabase[] = [];
  let channel: AdminChannel;

  /** A database and a data directory (for the key file), prepared alike for both ways. */
  async function prepare(): Promise<{ db: TestDatabase; dataDir: string; keyring: () => Keyring }> {
    const db = await freshDatabase();
    databases.push(db);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-channel-"));
    dirs.push(dataDir);
    return { db, dataDir, keyring: () => openKeyring({ dataDir, secrets: { key: null, oldKeys: [] } }) };
  }

  function capture(argv: string[]) {
    const transcript: Transcript = { argv, stdout: "", stderr: "", code: -1 };
    return {
      transcript,
      io: {
        stdout: (text: string) => void (transcript.stdout += text),
        stderr: (text: string) => void (transcript.stderr += text),
      },
    };
  }

  async function transcriptOf(runner: Runner, keyIds: () => string[]): Promise<Transcript[]> {
    const seen: Transcript[] = [];
    for (const step of SCRIPT) seen.push(await runner(step(seen)));
    const normalize = normalizer(keyIds, dirs);
    return seen.map((t) => ({
      argv: normalize(t.argv.join(" ")).split(" "),
      stdout: normalize(t.stdout),
      stderr: normalize(t.stderr),
      code: t.code,
    }));
  }

  let direct: Transcript[];
  let forwarded: Transcript[];
  let socketMode: number;

  before(async () => {
    const alone = await prepare();
    const keyIdsAlone = new Set<string>();
    direct = await transcriptOf(
      async (argv) => {
        const { transcript, io } = capture(argv);
        const shared = async () => ({ ...alone.db, close: async () => {} });
        transcript.code = await runCli(argv, io, {
          openDb: shared,
          openRaw: shared,
          openKeys: alone.keyring,
          cwd: FIXTURES,
        });
        for (const id of alone.keyring().box.keyIds) keyIdsAlone.add(id);
        return transcript;
      },
      () => [...keyIdsAlone],
    );

    const served = await prepare();
    const keyIdsServed = new Set<string>();
    channel = await openAdminChannel(
      adminSocketPath(served.dataDir),
      serverCommandRunner(served.db, served.keyring),
      createLogger("silent"),
    );
    socketMode = fs.statSync(channel.path).mode;
    forwarded = await transcriptOf(
      async (argv) => {
        const { transcript, io } = capture(argv);
        const terminal = { outColors: false, errColors: false };
        // As the CLI does: an import's file travels with the command.
        const input = fileToForward(argv, () => "", FIXTURES);
        const code = await forwardCommand(channel.path, { argv, cwd: FIXTURES, terminal, input }, io);
        if (code === null) throw new Error("the channel did not answer");
        transcript.code = code;
        for (const id of served.keyring().box.keyIds) keyIdsServed.add(id);
        return transcript;
      },
      () => [...keyIdsServed],
    );
  });

  after(async () => {
    await channel?.close();
    for (const db of databases) await db.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs every documented command with the same output, errors and exit codes over the channel (but secrets rotate with the key file)", () => {
    expect(forwarded.map((t) => t.argv.join(" "))).to.deep.equal(direct.map((t) => t.argv.join(" ")));
    // Beside the server the key file is not rotated, so the rotation and the status after it differ.
    const rotation = ["secrets rotate", "--json secrets status"];
    for (const [i, t] of direct.entries())
      if (!rotation.includes(t.argv.join(" "))) expect(forwarded[i], t.argv.join(" ")).to.deep.equal(t);
    // The one exception: the server keeps the key it started with, so the key file is not rotated beside it.
    const rotate = forwarded.find((t) => t.argv.join(" ") === "secrets rotate")!;
    expect(rotate).to.deep.include({ code: 1, stdout: "" });
    expect(rotate.stderr).to.equal(
      "error: secrets rotate cannot change the key file <dataDir>/secrets.key beside the running server, which keeps the key it started with; nothing was changed: stop the server, run secrets rotate, then start the server again.\n",
    );
    // And the transcript is the one a person expects: results on standard output, failures on standard error.
    const byLine = new Map(forwarded.map((t) => [t.argv.join(" "), t]));
    expect(byLine.get("orgs create --slug acme --name Acme College District --source channel_a")).to.deep.include({
      code: 0,
      stderr: "",
    });
    expect(byLine.get("orgs create --slug acme --name again")?.code).to.equal(1);
    expect(byLine.get("orgs create --slug acme --name again")?.stderr).to.match(/^error: .*already exists/);
    expect(byLine.get("keys create --org acme --env staging")?.stderr).to.contain("Allowed choices are live, sandbox");
    expect(byLine.get("cip import no-such-file.csv")).to.deep.include({ code: 1, stdout: "" });
    expect(byLine.get("cip import no-such-file.csv")?.stderr).to.equal(
      `error: Cannot read no-such-file.csv: there is no such file (looked in ${FIXTURES}). Check the path.\n`,
    );
    expect(byLine.get("cip import cip2020-sample.csv")?.stdout).to.match(/^Imported \d+ CIP codes/);
    expect(byLine.get("institutions import ipeds-hd2023-sample.csv --env live")?.code).to.equal(0);
    expect(byLine.get("--help")?.stdout).to.contain("Usage: cli [options] [command]");
    expect(byLine.get("db status")).to.deep.include({ code: 0, stderr: "" });
    expect(byLine.get("no-such-command")?.code).to.equal(1);
    expect(forwarded.filter((t) => t.code !== 0).length).to.be.greaterThan(5);
  });

  it("answers every command's --help the same way, including command groups added later", async () => {
    const paths: string[][] = [];
    const walk = (command: Command, prefix: string[]) => {
      for (const sub of command.commands) {
        paths.push([...prefix, sub.name()]);
        walk(sub, [...prefix, sub.name()]);
      }
    };
    walk(buildProgram(createOutput(() => {})), []);
    expect(paths.length).to.be.greaterThan(20);
    for (const words of paths) {
      const argv = [...words, "--help"];
      const here = capture(argv);
      here.transcript.code = await runCli(argv, { ...here.io, terminal: { outColors: false, errColors: false } });
      const there = capture(argv);
      there.transcript.code =
        (await forwardCommand(
          channel.path,
          { argv, cwd: FIXTURES, terminal: { outColors: false, errColors: false } },
          there.io,
        )) ?? -1;
      expect(there.transcript, argv.join(" ")).to.deep.equal(here.transcript);
      expect(there.transcript.code, argv.join(" ")).to.equal(0);
      expect(there.transcript.stdout, argv.join(" ")).to.contain(`Usage: cli ${words.join(" ")}`);
    }
  });

  it("wraps help text to the width of the terminal the command was typed in", async () => {
    const argv = ["keys", "create", "--help"];
    const help = async (outColumns: number) => {
      const terminal = { outColumns, outColors: false, errColors: false };
      const there = capture(argv);
      await forwardCommand(channel.path, { argv, cwd: FIXTURES, terminal }, there.io);
      const here = capture(argv);
      await runCli(argv, { ...here.io, terminal });
      expect(there.transcript.stdout).to.equal(here.transcript.stdout);
      return there.transcript.stdout;
    };
    expect(await help(60)).to.not.equal(await help(200));
  });

  it("listens on a socket only its owner may open (mode 0600)", () => {
    expect(socketMode & 0o777).to.equal(0o600);
  });

  it("leaves the command to the CLI itself when no server answers on the socket (none runs, or one died)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-channel-stale-"));
    dirs.push(dir);
    const io = { stdout: () => {}, stderr: () => {} };
    const request = { argv: ["orgs", "list"], cwd: dir, terminal: { outColors: false, errColors: false } };
    expect(await forwardCommand(adminSocketPath(dir), request, io)).to.equal(null);
    // A socket file left behind by a server killed with SIGKILL: nothing listens on it.
    fs.writeFileSync(adminSocketPath(dir), "");
    expect(await forwardCommand(adminSocketPath(dir), request, io)).to.equal(null);
  });

  it("sends nothing to a socket of another user, refusing in one line that names the fix", async () => {
    const me = process.getuid!();
    let sent = "";
    const impostor = net.createServer((socket) => socket.on("data", (chunk) => (sent += chunk)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-channel-foreign-"));
    dirs.push(dir);
    await new Promise<void>((resolve) => impostor.listen(adminSocketPath(dir), resolve));
    try {
      const io = { stdout: () => {}, stderr: () => {} };
      const request = {
        argv: ["sso", "list", "--org", "acme"],
        cwd: dir,
        terminal: { outColors: false, errColors: false },
      };
      // The socket is this user's; seen by another user (uid + 1), it is someone else's.
      const refusal = await forwardCommand(adminSocketPath(dir), request, io, me + 1).then(
        () => expect.fail("the command was sent to another user's socket"),
        (error: Error) => error,
      );
      expect(refusal).to.be.instanceOf(ForeignSocketError);
      expect(refusal.message).to.equal(
        `${adminSocketPath(dir)} belongs to another user (uid ${me}, you are uid ${me + 1}), so the command was not sent to it; run the CLI as the user who runs the server, or remove the file if no server of yours runs.`,
      );
      expect(refusal.message).to.not.contain("\n");
      expect(sent).to.equal("");
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });
});

function waitForListening(child: ChildProcess): Promise<{ url: string; cli: string }> {
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve(JSON.parse(line));
    });
    child.stderr!.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("CLI beside a running server (processes)", function () {
  this.timeout(300_000);
  const tsx = path.join(ROOT, "node_modules/.bin/tsx");
  const cliPath = path.join(ROOT, "scripts/cli.ts");
  let dataDir: string;
  let server: ChildProcess;
  let listening: { url: string; cli: string };

  /** The CLI as a person runs it, from the fixtures directory (relative file arguments). */
  const cli = (args: string[]) =>
    run(tsx, [cliPath, ...args], {
      cwd: FIXTURES,
      env: { ...process.env, SVC_DATA_DIR: dataDir, DATABASE_URL: "", SVC_LOG_LEVEL: "warn" },
    }).then(
      ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
      (error: { stdout: string; stderr: string; code: number }) => ({
        stdout: error.stdout,
        stderr: error.stderr,
        code: error.code,
      }),
    );

  /** `npm start` on the data directory, as a person runs it. */
  async function startServer() {
    server = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: "0",
        SVC_DATA_DIR: dataDir,
        DATABASE_URL: "",
        SVC_LOG_LEVEL: "info",
        SVC_SEED_SANDBOX: "false",
        // Remembered for an hour: a revocation must not wait for the cache to expire.
        SVC_CREDENTIAL_CACHE_MS: "3600000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    listening = await waitForListening(server);
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-beside-"));
    await startServer();
  });

  after(async () => {
    server?.kill("SIGTERM");
    if (server) await exited(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("creates an organization and a key that works, imports from the directory typed in, and fails as it would alone", async () => {
    expect(listening.cli).to.equal(path.join(dataDir, "svc.sock"));
    expect(fs.statSync(listening.cli).mode & 0o777).to.equal(0o600);

    const created = await cli(["orgs", "create", "--slug", "acme", "--name", "Acme College District"]);
    expect(created).to.deep.include({ code: 0, stderr: "" });
    expect(created.stdout).to.match(/^Created organization acme \(org_\w+, direct\)\.\n$/);
    const imported = await cli(["cip", "import", "cip2020-sample.csv"]);
    expect(imported).to.deep.include({ code: 0, stderr: "" });
    expect(imported.stdout).to.match(/^Imported \d+ CIP codes/);

    const key = await cli(["keys", "create", "--org", "acme", "--env", "sandbox"]);
    expect(key.code).to.equal(0);
    const secret = key.stdout.trim().split("\n").at(-1)!;
    const response = await fetch(`${listening.url}/institutions?limit=1`, {
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(response.status).to.equal(200);

    const refused = await cli(["keys", "create", "--org", "nobody", "--env", "live"]);
    expect(refused).to.deep.equal({ stdout: "", stderr: 'error: No organization has the slug "nobody".\n', code: 1 });
  });

  it("keys revoke beside the server takes effect at once, though the server had the key cached", async () => {
    const created = await cli(["--json", "keys", "create", "--org", "acme", "--env", "live"]);
    const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };
    const read = () => fetch(`${listening.url}/institutions?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await read()).status).to.equal(200);
    expect((await cli(["keys", "revoke", id])).code).to.equal(0);
    expect((await read()).status).to.equal(401);
  });

  it("refuses secrets rotate with the key file beside the server in one line, changing nothing", async () => {
    const keyFile = path.join(dataDir, "secrets.key");
    const before = fs.readFileSync(keyFile, "utf8");
    const status = (await cli(["--json", "secrets", "status"])).stdout;
    const rotate = await cli(["secrets", "rotate"]);
    expect(rotate).to.deep.equal({
      stdout: "",
      stderr: `error: secrets rotate cannot change the key file ${keyFile} beside the running server, which keeps the key it started with; nothing was changed: stop the server, run secrets rotate, then start the server again.\n`,
      code: 1,
    });
    expect(fs.readFileSync(keyFile, "utf8")).to.equal(before);
    expect((await cli(["--json", "secrets", "status"])).stdout).to.equal(status);
  });

  it("runs directly again once the server has stopped, on the same data", async () => {
    server.kill("SIGTERM");
    expect(await exited(server)).to.equal(0);
    expect(fs.existsSync(path.join(dataDir, "svc.sock"))).to.equal(false);
    const listed = await cli(["orgs", "list"]);
    expect(listed.code).to.equal(0);
    expect(listed.stdout).to.contain("acme");
  });

  it("rotates with the server stopped, and the server starts again on the new key", async () => {
    const rotated = await cli(["secrets", "rotate"]);
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stdout).to.match(/^Re-sealed \d+ stored secret\(s\) under key id /);
    await startServer();
    expect((await fetch(`${listening.url.replace(/\/api\/v1$/, "")}/.well-known/jwks.json`)).status).to.equal(200);
  });
});
