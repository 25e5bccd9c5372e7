// The README's commands, run. A block is found by the marker on the line before
// it, `<!-- readme-test: NAME -->`, whatever section it sits in, so sections other
// people add do not disturb this test; the blocks it knows are listed in RUNS,
// and each must be present. Commands run as a person would type them, from the
// repository (a few with their file names or port pointed at scratch copies).
import { exec, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures");
const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
const sh = promisify(exec);

/** The shell commands of the block after `<!-- readme-test: name -->`: continuations joined, comments dropped. */
function readmeCommands(text: string, name: string): string[] {
  const marker = text.indexOf(`<!-- readme-test: ${name} -->`);
  if (marker < 0) throw new Error(`README.md has no block marked readme-test: ${name}`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(marker));
  if (!block) throw new Error(`no sh block after readme-test: ${name}`);
  return block[1]
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

const cliEntry = `node --import ${import.meta.resolve("tsx")} ${path.join(ROOT, "scripts/cli.ts")}`;

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

describe("README: its commands, run", function () {
  this.timeout(600_000);
  let tmp: string;
  let dataDir: string;
  let server: ChildProcess;
  let origin: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "readme-"));
    dataDir = path.join(tmp, "data");
    const start = () => {
      server = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: ROOT,
        env: { ...process.env, PORT: "0", SVC_DATA_DIR: dataDir, DATABASE_URL: "", SVC_LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      return waitForListening(server);
    };
    // On a machine loaded far beyond its cores, seeding a new sandbox can outlast its transaction's
    // 15 s timeout; the seed is rolled back and a second start seeds again.
    const listening = await start().catch(() => start());
    origin = new URL(listening.url).origin;
  });
  after(async () => {
    server?.kill("SIGTERM");
    if (server && server.exitCode === null) await new Promise((resolve) => server.once("exit", resolve));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A command as typed, against the test's server and data directory. */
  const run = (command: string, cwd = ROOT, env: Record<string, string> = {}) =>
    sh(command.replaceAll("http://127.0.0.1:3000", origin), {
      cwd,
      env: {
        ...process.env,
        SVC_TEST_CONTRACT_COVERAGE: "",
        SVC_DATA_DIR: dataDir,
        DATABASE_URL: "",
        SVC_LOG_LEVEL: "warn",
        ...env,
      },
    });

  it("quick start: the scripts it names exist, GET / and the curl of the public sandbox key answer", async () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts;
    expect(readmeCommands(README, "quick-start")).to.deep.equal(["npm ci", "npm start", "npm test"]);
    expect(scripts).to.include.keys("start", "test");
    const [curl] = readmeCommands(README, "quick-start-read");
    const { stdout } = await run(curl);
    expect(JSON.parse(stdout).data).to.have.length(5);
    const root = (await (await fetch(`${origin}/`)).json()) as { docs: string; api: string };
    expect(root).to.include({ docs: "/docs", api: "/api/v1" });
  });

  it("quick start: creates an organization and a sandbox key with the server running, and the key writes", async () => {
    const [org, key] = readmeCommands(README, "quick-start-write");
    expect((await run(org)).stdout).to.match(/^Created organization acme \(org_\w+, channel_a\)\.\n$/);
    const secret = (await run(key)).stdout.trim().split("\n").at(-1)!;
    expect(secret).to.match(/^svc_sandbox_/);
    const response = await fetch(`${origin}/api/v1/keys`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(response.status).to.equal(200);
    expect(server.exitCode).to.equal(null);
  });

  it("CLI: imports the CIP and IPEDS files under the names the README gives them, beside the server", async () => {
    const commands = readmeCommands(README, "cli-import");
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
    const [createdb, start] = readmeCommands(README, "postgresql");
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

  it("Development: `npx mocha <file>` runs that file only", async () => {
    const [single] = readmeCommands(README, "single-test");
    expect(single).to.equal("npx mocha test/unit/config.test.ts");
    const { stdout } = await run(single);
    expect(stdout).to.contain("configuration");
    // Another unit file's suite does not run.
    expect(stdout).to.not.contain("architecture: the layers of src/");
    expect(Number(/(\d+) passing/.exec(stdout)?.[1])).to.be.greaterThan(0);
  });

  it("SDK: `npm pack` writes the tarball the install command names, and it carries openapi-fetch", async () => {
    const [pack, install] = readmeCommands(README, "sdk-install");
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
});
