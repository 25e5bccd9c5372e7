// The documentation's commands, run, on the database the suite runs on (the embedded one, or a new
// PostgreSQL database with SVC_TEST_DATABASE_URL). A block is found by the marker on the line before
// it, `<!-- readme-test: NAME -->`, in whichever of README.md, CONTRIBUTING.md and
// docs/*.md holds it, so a block moved between pages stays tested. Every marker of
// those pages must be one this test runs, and each marker it runs must be present.
// Commands run as a person would type them, from the repository (a few with their
// file names or port pointed at scratch copies), against one server started on a
// fresh data directory. Blocks that carry values from line to line (a key, an id)
// run whole, as one shell script, as they would in one terminal. A command that runs until
// stopped (a stream, a tail, a follower) runs in a terminal of its own until it printed what
// the test made happen, then gets Ctrl-C.
import { exec, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { emptyDatabase, usingPostgres, type TestDatabase } from "../helpers/database.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
const sh = promisify(exec);

/** The pages whose marked blocks are run, by path from the repository root. */
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const TEXTS = new Map(PAGES.map((page) => [page, fs.readFileSync(path.join(ROOT, page), "utf8")]));
const MARKER = /<!-- readme-test: ([\w-]+) -->/g;

/** Every block this file runs; the marker test below fails on any other. */
const RUN = [
  "quick-start",
  "quick-start-read",
  "quick-start-write",
  "catalog-read",
  "contribute",
  "webhook-register",
  "dashboard-invite",
  "cli-import",
  "postgresql",
  "db-copy",
  "single-test",
  "sdk-install",
  "rule-example",
  "rule-import",
  "evaluate",
  "evaluate-sdk",
  "requests-read",
  "cli-registrar",
  "explorer-agreement",
  "dashboard-users",
  "events-poll",
  "events-stream",
  "events-follow-sdk",
  "events-stream-sdk",
  "events-tail",
  "cli-tail",
];

/** The text of the sh (or ts) block after `<!-- readme-test: name -->`, in whichever page holds it. */
function markedBlock(name: string): string {
  const marker = `<!-- readme-test: ${name} -->`;
  const holders = PAGES.filter((page) => TEXTS.get(page)!.includes(marker));
  if (holders.length !== 1) throw new Error(`${holders.length} pages hold ${marker}: ${holders.join(", ")}`);
  const text = TEXTS.get(holders[0])!;
  const block = /^```(?:sh|ts)\n([\s\S]*?)^```/m.exec(text.slice(text.indexOf(marker)));
  if (!block) throw new Error(`${holders[0]}: no sh or ts block after ${marker}`);
  return block[1];
}

/** The block's shell commands one by one: continuations joined, comments dropped. */
function markedCommands(name: string): string[] {
  return markedBlock(name)
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

const cliEntry = `node --import ${import.meta.resolve("tsx")} ${path.join(ROOT, "scripts/cli.ts")}`;
const SDK = pathToFileURL(path.join(ROOT, "generated/client/dist/esm/index.js")).href;

/** How long a command that runs until stopped may take to print what it is waited for. */
const PRINT_DEADLINE_MS = 60_000;

/**
 * Polls `printed` until it holds, calling `nudge` (a change to print) before each look when the
 * command may not yet be listening; fails after the deadline.
 */
async function waitUntil(
  printed: () => boolean | Promise<boolean>,
  what: string,
  nudge?: () => Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + PRINT_DEADLINE_MS;
  for (;;) {
    await nudge?.();
    if (await printed()) return;
    if (Date.now() > deadline) throw new Error(`not printed within ${PRINT_DEADLINE_MS / 1000} s: ${what}`);
    await delay(250);
  }
}

/** The complete messages of a Server-Sent Events text, each by field; comments (keep-alives) dropped. */
function streamMessages(text: string): Record<string, string>[] {
  return text
    .split("\n\n")
    .slice(0, -1)
    .map((block) =>
      Object.fromEntries(
        block
          .split("\n")
          .filter((line) => line && !line.startsWith(":"))
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
      ),
    )
    .filter((message) => Object.keys(message).length > 0);
}

/** `events tail`'s lines, `<position> <created> <type> <id> <data>`, as records. */
function tailLines(text: string) {
  return text
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.includes("\t"))
    .map((line) => {
      const [position, created, type, id, ...data] = line.split("\t");
      return { position, created, type, id, data: JSON.parse(data.join("\t")) };
    });
}

function waitForListening(child: ChildProcess): Promise<{ url: string }> {
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

describe("README and docs/: their commands, run", function () {
  this.timeout(600_000);
  let tmp: string;
  let dataDir: string;
  let server: ChildProcess;
  let origin: string;
  /** Commands started in a terminal of their own and not yet stopped: ended with the file, should a test fail. */
  const terminals = new Set<ChildProcess>();
  /**
   * The documented server's database: the embedded one in its data directory, or, when the suite
   * runs on PostgreSQL (SVC_TEST_DATABASE_URL), a new empty database, as `DATABASE_URL=… npm start`
   * would be given; every command then reaches it through DATABASE_URL.
   */
  let postgres: TestDatabase | null = null;
  let databaseUrl = "";

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "readme-"));
    dataDir = path.join(tmp, "data");
    if (usingPostgres) {
      postgres = await emptyDatabase();
      databaseUrl = postgres.url!;
    }
    const start = () => {
      server = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: ROOT,
        env: { ...process.env, PORT: "0", SVC_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, SVC_LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      return waitForListening(server);
    };
    // On a machine loaded far beyond its cores, seeding a new sandbox can outlast its transaction's
    // 15 s timeout; the seed is rolled back and a second start seeds again.
    const listening = await start().catch(() => start());
    origin = new URL(listening.url).origin;
    if (postgres) {
      // The server migrated and seeded the new PostgreSQL database, not a data directory.
      const [seeded] = await postgres.prisma.$queryRawUnsafe<{ count: number }[]>(
        "SELECT count(*)::int AS count FROM institutions WHERE environment = 'sandbox'",
      );
      expect(seeded.count, "sandbox institutions on PostgreSQL").to.be.above(0);
    }
  });
  after(async () => {
    for (const child of terminals) process.kill(-child.pid!, "SIGKILL");
    server?.kill("SIGTERM");
    if (server && server.exitCode === null) await new Promise((resolve) => server.once("exit", resolve));
    await postgres?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const environment = (env: Record<string, string>) => ({
    ...process.env,
    SVC_TEST_CONTRACT_COVERAGE: "",
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SVC_LOG_LEVEL: "warn",
    ...env,
  });

  /** A command as typed, against the test's server and data directory. */
  const run = (command: string, cwd = ROOT, env: Record<string, string> = {}) =>
    sh(command.replaceAll("http://127.0.0.1:3000", origin), { cwd, env: environment(env) });

  /**
   * A whole block as one script, as typed into one terminal (stopping at the first failure); the
   * CLI's `npm run -s cli --` runs from any directory when `anywhere` (the block's files stay in cwd).
   */
  const runBlock = (name: string, cwd: string, env: Record<string, string> = {}, epilogue = "", anywhere = false) =>
    sh(`set -eo pipefail\n${asTyped(markedBlock(name), anywhere)}${epilogue}`, {
      cwd,
      env: environment(env),
      shell: "/bin/bash",
    });

  /** The block against the test's server; the CLI started from anywhere when asked. */
  const asTyped = (block: string, anywhere: boolean) => {
    const here = block.replaceAll("http://127.0.0.1:3000", origin);
    return anywhere ? here.replaceAll("npm run -s cli --", cliEntry) : here;
  };

  /** A scratch directory of its own for a block that writes files. */
  const scratch = (name: string) => fs.mkdtempSync(path.join(tmp, `${name}-`));

  /**
   * A command that runs until stopped (a stream, a tail, a follower), started as typed in a terminal
   * of its own (its own process group): `printed()` is what it printed so far, `interrupt()` is
   * Ctrl-C (SIGINT to the group, as a terminal sends it) and answers once every process ended.
   */
  const startInTerminal = (script: string, cwd: string, env: Record<string, string> = {}) => {
    const child = spawn("/bin/bash", ["-c", script], {
      cwd,
      env: environment(env),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    terminals.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    const ended = new Promise<void>((resolve) => child.once("close", () => resolve()));
    return {
      printed: () => stdout,
      async interrupt() {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGINT");
        await ended;
        terminals.delete(child);
        return { stdout, stderr };
      },
    };
  };

  /** A request of the API with a key: its status, body and ETag. */
  const request = async (key: string, method: string, url: string, body?: unknown, ifMatch?: string) => {
    const response = await fetch(`${origin}/api/v1${url}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(ifMatch ? { "If-Match": ifMatch } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // The API's JSON, read as the assertions need it.
    const answer: any = await response.json();
    return { status: response.status, body: answer, etag: response.headers.get("etag") ?? "" };
  };

  /** Writes a course (an update of one already written is a `course.updated` event): its id and version. */
  const writeCourse = async (key: string, institutionId: string, code: string, title: string) => {
    const written = await request(key, "POST", "/courses", { institutionId, code, title, credits: 3, level: "lower" });
    expect(written.status, JSON.stringify(written.body)).to.equal(201);
    return written.body.data[0] as { id: string; version: number };
  };

  /** A pending elective rule, then accepted: `equivalency.created` and `equivalency.updated`. Its id. */
  const acceptedRule = async (key: string, sourceCourseId: string, targetInstitutionId: string) => {
    const body = {
      sourceCourseIds: [sourceCourseId],
      targetInstitutionId,
      targets: [{ code: "FEED 1XX" }],
      kind: "elective",
    };
    const created = await request(key, "POST", "/equivalencies", body);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id: string = created.body.data.id;
    const accepted = await request(key, "PATCH", `/equivalencies/${id}`, { status: "accepted" }, created.etag);
    expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
    return id;
  };

  /** The events of the feed after a cursor, read with a key. */
  const eventsAfter = async (key: string, cursor: string) => {
    const { status, body } = await request(key, "GET", `/events?limit=100&after=${encodeURIComponent(cursor)}`);
    expect(status, `the feed after ${JSON.stringify(cursor)}: ${JSON.stringify(body)}`).to.equal(200);
    return body.data as { id: string; type: string; data: Record<string, unknown> }[];
  };

  /** acme writes live too: stewardship of two live institutions (imported from the IPEDS sample) and a live key. */
  let liveWriter: Promise<string> | undefined;
  const liveKey = () => {
    liveWriter ??= (async () => {
      await quickStartWrite();
      await run(`${cliEntry} institutions import ${path.join(FIXTURES, "ipeds-hd2023-sample.csv")} --env live`);
      await run(`${cliEntry} orgs grant --org acme --env live --institution inst_122977,inst_110635`);
      return (await run(`${cliEntry} keys create --org acme --env live`)).stdout.trim().split("\n").at(-1)!;
    })();
    return liveWriter;
  };

  /** The quick start's write, once: the organization acme, its grant, its key and the course it wrote. */
  let quickStart: Promise<{ stdout: string; key: string }> | undefined;
  const quickStartWrite = () => {
    quickStart ??= runBlock("quick-start-write", ROOT, {}, '\nprintf "KEY=%s\\n" "$KEY"\n').then(({ stdout }) => ({
      stdout,
      key: /^KEY=(\S+)$/m.exec(stdout)![1],
    }));
    return quickStart;
  };

  /** The API guide's worked example, once: the organization berkeley, its key, the rule it wrote. */
  let workedExample: Promise<{ stdout: string; cwd: string; key: string }> | undefined;
  const ruleExample = () => {
    workedExample ??= (async () => {
      const cwd = scratch("rule-example");
      const epilogue = '\nprintf "BERKELEY_KEY=%s\\n" "$BERKELEY_KEY"\n';
      const { stdout } = await runBlock("rule-example", cwd, {}, epilogue, true);
      return { stdout, cwd, key: /^BERKELEY_KEY=(\S+)$/m.exec(stdout)![1] };
    })();
    return workedExample;
  };

  it("marks only blocks this test runs, each once", () => {
    const marked = PAGES.flatMap((page) => [...TEXTS.get(page)!.matchAll(MARKER)].map((match) => match[1]));
    expect([...marked].sort()).to.deep.equal([...RUN].sort());
  });

  it("quick start: the scripts it names exist, GET / and the curl of the public sandbox key answer", async () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts;
    expect(markedCommands("quick-start")).to.deep.equal(["npm ci", "npm start", "npm test"]);
    expect(scripts).to.include.keys("start", "test");
    const [curl] = markedCommands("quick-start-read");
    const { stdout } = await run(curl);
    expect(JSON.parse(stdout).data).to.have.length(5);
    const root = (await (await fetch(`${origin}/`)).json()) as { docs: string; api: string };
    expect(root).to.include({ docs: "/docs", api: "/api/v1" });
  });

  it("quick start: creates an organization, grants it a sandbox institution and a key with the server running, and the key writes (201)", async () => {
    const { stdout, key } = await quickStartWrite();
    expect(stdout).to.match(/^Created organization acme \(org_\w+, channel_a\)\.\n/);
    expect(stdout).to.contain("Granted acme stewardship of inst_113333 in sandbox.");
    expect(key).to.match(/^svc_sandbox_/);
    const [body, status] = stdout.split("\n").filter((line) => line.startsWith("{") || /^\d{3}$/.test(line));
    expect(status).to.equal("201");
    expect(JSON.parse(body)).to.deep.include({ summary: { received: 1, created: 1, updated: 0 } });
    expect(JSON.parse(body).data[0]).to.include({ institutionId: "inst_113333", code: "MATH 99", result: "created" });
    expect(server.exitCode).to.equal(null);
  });

  it("reading the catalog: the public key's list and the CSV export answer", async () => {
    const cwd = scratch("catalog");
    const { stdout } = await runBlock("catalog-read", cwd);
    const page = JSON.parse(stdout) as { data: { targetInstitutionId: string; status: string }[] };
    expect(page.data).to.have.length(2);
    for (const item of page.data) expect(item).to.include({ targetInstitutionId: "inst_110635", status: "accepted" });
    expect(fs.readFileSync(path.join(cwd, "courses.csv"), "utf8")).to.match(/^id,institutionId,code,title,/);
  });

  it("API guide: the walk-through writes a course batch, an equivalency, its accepted version and a dataset, and is refused where it should be", async () => {
    const { key } = await quickStartWrite();
    const cwd = scratch("contribute");
    const { stdout } = await runBlock("contribute", cwd, { KEY: key });
    expect(stdout.trim().split("\n")).to.deep.equal(["201", "201", "200", "412", "201", "403"]);
    const saved = (file: string) => JSON.parse(fs.readFileSync(path.join(cwd, file), "utf8"));
    expect(saved("courses.json").summary).to.deep.equal({ received: 2, created: 2, updated: 0 });
    expect(saved("equivalency.json").data).to.include({ targetInstitutionId: "inst_113333", status: "pending" });
    expect(saved("accepted.json").data).to.include({ status: "accepted", version: 2 });
    expect(saved("stale.json").type).to.match(/\/precondition-failed$/);
    expect(saved("dataset.json").data).to.include({ snapshotRecordCount: 1, recordCount: 1 });
    expect(saved("refused.json")).to.include({ status: 403, institutionId: "inst_110635" });
    expect(saved("refused.json").type).to.match(/\/not-steward$/);
  });

  it("webhooks: registering an endpoint answers 201 and shows its secret once", async () => {
    const { key } = await quickStartWrite();
    const { stdout } = await runBlock("webhook-register", scratch("webhook"), { KEY: key });
    const [status, secret] = stdout.trim().split("\n");
    expect(status).to.equal("201");
    expect(secret).to.match(/^whsec_/);
  });

  it("dashboard: the invitation prints a one-time sign-in link that signs the person in", async () => {
    await quickStartWrite();
    const [invite] = markedCommands("dashboard-invite");
    expect(invite).to.match(/^npm run -s cli -- users invite --org acme /);
    const { stdout } = await run(invite);
    const link = new URL(stdout.trim().split("\n").at(-1)!);
    expect(link.pathname).to.equal("/dashboard/auth/link");
    // Opening the link shows a Sign in button; pressing it posts the token back.
    const page = await fetch(`${origin}${link.pathname}${link.search}`, { redirect: "manual" });
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('<form method="post" action="/dashboard/auth/link">');
    const signIn = await fetch(`${origin}${link.pathname}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ token: link.searchParams.get("token")! }),
    });
    expect(signIn.status).to.equal(303);
    expect(signIn.headers.get("set-cookie")).to.match(/svc_session=/);
  });

  it("CLI: imports the CIP and IPEDS files under the names the docs give them, beside the server", async () => {
    const commands = markedCommands("cli-import");
    fs.copyFileSync(path.join(FIXTURES, "cip2020-sample.csv"), path.join(tmp, "CIPCode2020.csv"));
    fs.copyFileSync(path.join(FIXTURES, "ipeds-hd2023-sample.csv"), path.join(tmp, "hd2023.csv"));
    const outputs: string[] = [];
    for (const command of commands) {
      expect(command).to.match(/^npm run -s cli -- /);
      outputs.push((await run(command.replace("npm run -s cli --", cliEntry), tmp)).stdout);
    }
    expect(outputs[0]).to.match(/^Imported \d+ CIP codes/);
    expect(outputs[1]).to.match(/^Read 34 rows: \d+ created/);
  });

  it("PostgreSQL from an empty server: the database is created first, then migrated", async () => {
    const [createdb, start] = markedCommands("postgresql");
    const name = `readme_${process.pid}_${Date.now() % 100_000}`;
    await run(createdb.replace("course_equivalency", name));
    try {
      const url = /DATABASE_URL=(\S+)/.exec(start)![1].replace("course_equivalency", name);
      const migrated = await run(`${cliEntry} db migrate`, ROOT, { DATABASE_URL: url });
      expect(migrated.stdout).to.match(/^Applied \d{14}_init/);
    } finally {
      await run(`dropdb -h 127.0.0.1 -U postgres ${name}`);
    }
  });

  it("moving to PostgreSQL: `db copy` fills a new database from a stopped server's data directory, migrated for the start command it names", async () => {
    const [createdb, copy, start] = markedCommands("db-copy");
    expect(start).to.match(/^DATABASE_URL=postgresql:\/\/\S+\/course_equivalency npm start$/);
    const name = `readme_copy_${process.pid}_${Date.now() % 100_000}`;
    // A data directory of its own, no server holding it, and no DATABASE_URL: as the page's reader has it.
    const stopped = { SVC_DATA_DIR: scratch("db-copy"), DATABASE_URL: "" };
    await run(`${cliEntry} seed --env sandbox`, ROOT, stopped);
    await run(createdb.replace("course_equivalency", name));
    try {
      const { stdout } = await run(copy.replace("course_equivalency", name), ROOT, stopped);
      expect(stdout).to.match(/^Copied \d+ rows into postgresql:\/\//m);
      const url = /DATABASE_URL=(\S+)/.exec(start)![1].replace("course_equivalency", name);
      const status = await run(`${cliEntry} db status`, ROOT, { DATABASE_URL: url });
      expect(status.stdout).to.match(/^Database: postgresql$/m);
      expect(status.stdout).to.not.contain("pending");
    } finally {
      await run(`dropdb -h 127.0.0.1 -U postgres ${name}`);
    }
  });

  it("Development: `npx mocha <file>` runs that file only", async () => {
    const [single] = markedCommands("single-test");
    expect(single).to.equal("npx mocha test/unit/config.test.ts");
    const { stdout } = await run(single);
    expect(stdout).to.contain("configuration");
    // Another unit file's suite does not run.
    expect(stdout).to.not.contain("architecture: the layers of src/");
    expect(Number(/(\d+) passing/.exec(stdout)?.[1])).to.be.greaterThan(0);
  });

  it("API guide: the worked example finds the courses by code and writes the rule (201), awarding CHEM 4A's own 4 units", async () => {
    const { stdout, cwd } = await ruleExample();
    expect(stdout).to.contain("Created organization berkeley");
    expect(stdout).to.contain("Granted berkeley stewardship of inst_110635 in sandbox.");
    expect(stdout.split("\n")).to.include("201");
    const rule = JSON.parse(fs.readFileSync(path.join(cwd, "rule.json"), "utf8")).data;
    expect(rule).to.include({
      targetCode: "CHEM 4A",
      awardedCredits: 4,
      awardedCreditUnit: "semester",
      status: "accepted",
    });
    expect(rule.sourceCourses.map((c: { code: string }) => c.code)).to.deep.equal(["CHEM 1A", "CHEM 1AL"]);
  });

  it("API guide: the CSV file imports without rejections (the worked example's rule unchanged, the elective created)", async () => {
    const { key } = await ruleExample();
    const cwd = scratch("rule-import");
    const terminal = `API=${origin}/api/v1\nAUTH="Authorization: Bearer $BERKELEY_KEY"\n`;
    const { stdout } = await sh(`set -eo pipefail\n${terminal}${asTyped(markedBlock("rule-import"), true)}`, {
      cwd,
      env: environment({ BERKELEY_KEY: key }),
      shell: "/bin/bash",
    });
    const [dry, imported, summary] = stdout.trim().split("\n");
    expect([dry, imported]).to.deep.equal(["200", "200"]);
    expect(JSON.parse(fs.readFileSync(path.join(cwd, "dry-run.json"), "utf8")).summary.rejected).to.equal(0);
    expect(JSON.parse(summary)).to.deep.equal({
      received: 2,
      created: 1,
      updated: 0,
      unchanged: 1,
      conflict: 0,
      rejected: 0,
    });
  });

  it("API guide: the evaluation by curl and by the SDK, then the requested rules, answer as the guide shows", async () => {
    await ruleExample();
    const { stdout } = await runBlock("evaluate", scratch("evaluate"));
    const { data } = JSON.parse(stdout);
    const byCode = Object.fromEntries(data.results.map((r: { code: string }) => [r.code, r]));
    expect(byCode["BIO 101"]).to.include({ outcome: "no_rule", awardedCredits: null });
    expect(byCode["CHEM 1A"]).to.include({ outcome: "equivalent", awardedCredits: 4, awardedCreditUnit: "semester" });
    expect(byCode["CHEM 1AL"]).to.include({ outcome: "equivalent", awardedCredits: 0 });
    expect(data.totals).to.include({ courses: 3, matchedCourses: 2, unmatchedCourses: 1, awardedCredits: 4 });

    const cwd = scratch("evaluate-sdk");
    const sdk = pathToFileURL(path.join(ROOT, "generated/client/dist/esm/index.js")).href;
    const module = markedBlock("evaluate-sdk").replace('"@course-equivalency/client"', JSON.stringify(sdk));
    fs.writeFileSync(path.join(cwd, "evaluate.mts"), module.replaceAll("http://127.0.0.1:3000", origin));
    const printed = (
      await sh(`node --import ${import.meta.resolve("tsx")} evaluate.mts`, { cwd, env: environment({}) })
    ).stdout;
    expect(printed).to.match(/^BIO 101 no_rule No accepted rule/m);
    expect(printed).to.match(/^CHEM 1A equivalent /m);

    const requests = JSON.parse((await runBlock("requests-read", scratch("requests"))).stdout);
    const bio = requests.data.find((r: { sourceCourse: { code: string } }) => r.sourceCourse.code === "BIO 101");
    expect(bio.sourceCourse).to.deep.equal({
      code: "BIO 101",
      title: "Concepts in Biology",
      institutionId: "inst_122977",
    });
    expect(bio.requests).to.be.at.least(1);
  });

  it("CLI: a registrar creates a rule by codes, lists rules, evaluates a transcript and reads the requests, beside the server", async () => {
    const { stdout } = await runBlock("cli-registrar", scratch("cli-registrar"), {}, "", true);
    expect(stdout).to.contain("Granted ucb-registrar stewardship of inst_110635 in sandbox.");
    expect(stdout).to.match(/^From: +MATH 7 at Santa Monica College \(inst_122977\)$/m);
    expect(stdout).to.match(/^Credits: +4 semester$/m);
    expect(stdout).to.match(/^id +status +from +sources +to +targets +kind +grade +credits +effective$/m);
    expect(stdout).to.match(/^MATH 7 +B\+ +equivalent +MATH 1A +4 +Rule "MATH 7 → MATH 1A" applies/m);
    expect(stdout).to.match(/^PSYCH 1 +A +no_rule +- +- +No accepted rule/m);
    expect(stdout).to.contain("1 of 2 course(s) count: 4 semester unit(s) awarded.");
    expect(stdout).to.match(/^\d+ +PSYCH 1 +General Psychology +inst_122977 /m);
  });

  it("SDK: `npm pack` writes the tarball the install command names, and it carries openapi-fetch", async () => {
    const [pack, install] = markedCommands("sdk-install");
    const destination = path.join(tmp, "pack");
    fs.mkdirSync(destination);
    await run(pack.replace("/tmp", destination));
    const tarball = /npm install (\S+\.tgz)/.exec(install)![1];
    const packed = path.join(destination, path.basename(tarball));
    expect(fs.existsSync(packed), `${path.basename(tarball)} in ${fs.readdirSync(destination)}`).to.equal(true);
    const manifest = JSON.parse((await sh(`tar -xOzf ${packed} package/package.json`)).stdout);
    expect(manifest.dependencies).to.have.property("openapi-fetch");
    // test/sdk/package.test.ts installs that tarball offline and runs ESM and CommonJS consumers.
  });

  it("explorer: the agreement from De Anza College to UC Berkeley names both and their accepted rules by course", async () => {
    const [curl] = markedCommands("explorer-agreement");
    const { data } = JSON.parse((await run(curl)).stdout);
    expect(data.from).to.include({ id: "inst_113333", name: "De Anza College" });
    expect(data.to).to.include({ id: "inst_110635", name: "University of California-Berkeley" });
    const rules = data.rules.map(
      (rule: { sourceCourses: { code: string }[]; targets: { code: string }[] }) =>
        `${rule.sourceCourses.map((course) => course.code).join(" + ")} → ${rule.targets.map((target) => target.code).join(" + ")}`,
    );
    expect(rules).to.include("ENGL 1A → COLWRIT R1A");
  });

  it("dashboard: an admin invites a person, lists the members, and disables them by the id the list shows", async () => {
    await quickStartWrite();
    // The page invited you@acme.example as admin first: the person disabled here is not the last admin.
    await run(markedCommands("dashboard-invite")[0]);
    const [invite, list, disable, ...more] = markedCommands("dashboard-users").filter((line) => !line.startsWith("#"));
    expect(more).to.deep.equal([]);
    const invited = (await run(invite)).stdout;
    const id = /^Added registrar@acme\.edu to acme as admin \((usr_\w+)\)\. /.exec(invited)?.[1];
    expect(id, invited).to.be.a("string");
    const link = new URL(invited.trim().split("\n").at(-1)!);
    expect((await run(list)).stdout).to.match(new RegExp(`^${id} +registrar@acme\\.edu +- +admin +- `, "m"));
    // The placeholder stands for the id the list printed, typed as the reader types it.
    expect(disable).to.equal("npm run -s cli -- users disable usr_…");
    const disabled = (await run(disable.replace("usr_…", id!))).stdout;
    expect(disabled).to.equal(`Disabled registrar@acme.edu (${id}); their sessions have ended.\n`);
    const signIn = await fetch(`${origin}${link.pathname}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ token: link.searchParams.get("token")! }),
    });
    expect(signIn.status, "the invitation's link of a disabled person").to.equal(403);
  });

  it("change feed: a page of GET /events holds a change, and the stream from its cursor prints the next change only", async () => {
    const { key } = await quickStartWrite();
    await writeCourse(key, "inst_113333", "FEED 1", "Feed course");
    const polled = await writeCourse(key, "inst_113333", "FEED 1", "Feed course, polled");
    const page = JSON.parse((await runBlock("events-poll", scratch("events-poll"), { KEY: key })).stdout);
    expect(page.pagination.hasMore).to.equal(false);
    const change = page.data.find(
      (event: { type: string; data: { courseId?: string } }) =>
        event.type === "course.updated" && event.data.courseId === polled.id,
    );
    expect(change).to.deep.include({
      data: { courseId: polled.id, version: polled.version, changedFields: ["title"] },
    });
    expect(change.id).to.match(/^evt_/);

    const cursor = page.pagination.nextCursor;
    const stream = startInTerminal(asTyped(markedBlock("events-stream"), false), scratch("events-stream"), {
      KEY: key,
      CURSOR: cursor,
    });
    // Written whenever the stream connects: it begins after the cursor, so it prints this change either way.
    const streamed = await writeCourse(key, "inst_113333", "FEED 1", "Feed course, streamed");
    const events = () => streamMessages(stream.printed()).filter((message) => message.event);
    await waitUntil(() => events().length > 0, "the stream's first event");
    const { stdout } = await stream.interrupt();
    expect(stdout).to.match(/^retry: \d+\n\n/);
    const [message, ...others] = events();
    expect(others, "events the stream printed after the change").to.deep.equal([]);
    expect(message.event).to.equal("course.updated");
    expect(JSON.parse(message.data)).to.deep.include({
      type: "course.updated",
      data: { courseId: streamed.id, version: streamed.version, changedFields: ["title"] },
    });
    // A message's id is a cursor: the feed after it holds nothing more.
    expect(await eventsAfter(key, message.id)).to.deep.equal([]);
  });

  it("change feed by the SDK: the follower applies a change and stores its cursor, the stream resumes from it with the next change only", async () => {
    const { key } = await quickStartWrite();
    const cwd = scratch("events-sdk");
    const asModule = (text: string) =>
      text.replace('"@course-equivalency/client"', JSON.stringify(SDK)).replaceAll("http://127.0.0.1:3000", origin);
    const follow = asModule(markedBlock("events-follow-sdk"));
    fs.writeFileSync(path.join(cwd, "follow.mts"), follow);
    // The streaming block is the same module with its loop in place of the polling one, as the page says.
    const preamble = follow.slice(0, follow.indexOf("for await"));
    fs.writeFileSync(path.join(cwd, "stream.mts"), preamble + markedBlock("events-stream-sdk"));
    const tsx = `node --import ${import.meta.resolve("tsx")}`;
    type Change = { id: string; version: number };
    /** The lines the module printed for one change of a course: `course.updated {"courseId":…,"version":…,…}`. */
    const linesOf = (printed: string, change: Change) =>
      printed.split("\n").filter((line) => {
        if (!line.startsWith("course.updated ")) return false;
        const data = JSON.parse(line.slice("course.updated ".length));
        return data.courseId === change.id && data.version === change.version;
      });
    /** The cursor the module stored stands after the change: the feed after it does not hold it. */
    const storedAfter = async (change: Change) => {
      const file = path.join(cwd, "cursor.txt");
      if (!fs.existsSync(file)) return false;
      const later = await eventsAfter(key, fs.readFileSync(file, "utf8"));
      return !later.some((event) => event.data.courseId === change.id && event.data.version === change.version);
    };

    // A course's creation is no event; its update is.
    await writeCourse(key, "inst_113333", "FEED 2", "SDK feed course");
    const followed = await writeCourse(key, "inst_113333", "FEED 2", "SDK feed course, followed");
    const following = startInTerminal(`${tsx} follow.mts`, cwd, { SVC_KEY: key });
    await waitUntil(
      async () => linesOf(following.printed(), followed).length > 0 && (await storedAfter(followed)),
      "the follower's line of the change, and its cursor stored after it",
    );
    expect(linesOf((await following.interrupt()).stdout, followed)).to.have.length(1);

    const streaming = startInTerminal(`${tsx} stream.mts`, cwd, { SVC_KEY: key });
    const streamed = await writeCourse(key, "inst_113333", "FEED 2", "SDK feed course, streamed");
    await waitUntil(
      async () => linesOf(streaming.printed(), streamed).length > 0 && (await storedAfter(streamed)),
      "the stream's line of the next change, and its cursor stored after it",
    );
    const { stdout } = await streaming.interrupt();
    // Resumed from the stored cursor: the change applied before is not applied again.
    expect(stdout.trim().split("\n")).to.deep.equal(linesOf(stdout, streamed));
  });

  /**
   * `events tail --env live` as typed, until it printed a live change made while it ran, then Ctrl-C:
   * its lines. It begins at the end of the feed once it runs, so the course is renamed until a
   * rename is printed.
   */
  const tailLiveUntilChange = async (command: string) => {
    expect(command).to.equal("npm run -s cli -- events tail --env live");
    const key = await liveKey();
    const course = await writeCourse(key, "inst_122977", "FEED 1", "Live feed course");
    const tail = startInTerminal(command, ROOT);
    let round = 0;
    const renamed = () => tailLines(tail.printed()).some((line) => line.data.courseId === course.id);
    await waitUntil(renamed, "a live course's rename", () =>
      writeCourse(key, "inst_122977", "FEED 1", `Live feed course, renamed ${++round}`),
    );
    const lines = tailLines((await tail.interrupt()).stdout);
    for (const line of lines) {
      expect(line).to.deep.include({ type: "course.updated" });
      expect(line.position).to.match(/^\d+$/);
      expect(line.id).to.match(/^evt_/);
      expect(Number.isNaN(Date.parse(line.created)), line.created).to.equal(false);
    }
    const positions = lines.map((line) => BigInt(line.position));
    expect(positions, "in commit order").to.deep.equal([...positions].sort((a, b) => (a < b ? -1 : 1)));
    return lines;
  };

  /** A tail with `--json` as typed, until it printed the `equivalency.updated` of the rule, then Ctrl-C: its records. */
  const tailJsonUntilRule = async (command: string, ruleId: string) => {
    const tail = startInTerminal(command, ROOT);
    const records = (text: string) =>
      text
        .split("\n")
        .slice(0, -1)
        .map((line) => JSON.parse(line));
    await waitUntil(
      () => records(tail.printed()).some((record) => record.data.equivalencyId === ruleId),
      `the equivalency.updated of ${ruleId}`,
    );
    const printed = records((await tail.interrupt()).stdout);
    for (const record of printed) {
      expect(record.type).to.equal("equivalency.updated");
      expect(record.position).to.match(/^\d+$/);
    }
    expect(printed.find((record) => record.data.equivalencyId === ruleId).data).to.include({
      previousStatus: "pending",
      status: "accepted",
    });
    return printed;
  };

  it("change feed at the command line: the live tail prints changes as they commit until Ctrl-C, then from the start only the type asked, as JSON", async () => {
    const [tail, fromStart, ...more] = markedCommands("events-tail");
    expect(more).to.deep.equal([]);
    expect(await tailLiveUntilChange(tail)).to.not.be.empty;
    const key = await liveKey();
    const source = await writeCourse(key, "inst_122977", "FEED 2", "Live feed rule's course");
    const rule = await acceptedRule(key, source.id, "inst_110635");
    // The server runs one command at a time: this one runs only because Ctrl-C ended the tail above.
    expect(fromStart).to.equal(
      "npm run -s cli -- events tail --env live --from-start --type equivalency.updated --json",
    );
    await tailJsonUntilRule(fromStart, rule);
  });

  it("CLI: the live tail until Ctrl-C, and the sandbox's rule decisions from the start as JSON, at most 10", async () => {
    const [tail, sandbox, ...more] = markedCommands("cli-tail");
    expect(more).to.deep.equal([]);
    expect(await tailLiveUntilChange(tail)).to.not.be.empty;
    const { key } = await quickStartWrite();
    const seeded = await request(key, "GET", "/courses?institution=inst_122977&limit=1");
    const rule = await acceptedRule(key, seeded.body.data[0].id, "inst_113333");
    expect(sandbox).to.match(/ --count 10$/);
    expect(await tailJsonUntilRule(sandbox, rule)).to.have.length.at.most(10);
  });
});
