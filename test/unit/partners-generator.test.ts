// OpenAPI Generator's absence is one line naming what is missing (scripts/partners/generator.ts):
// no Java on PATH, or no archive and no network. Neither case needs the network.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts/partners/generator.ts");

function run(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...args], { cwd: ROOT, encoding: "utf8", env });
}

describe("the partners' generator when something is missing", () => {
  let scratch: string;
  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "partners-generator-"));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it("names Java when there is no java on PATH, in one line", function () {
    this.timeout(60_000);
    const emptyPath = path.join(scratch, "bin");
    fs.mkdirSync(emptyPath);
    const result = run([], { ...process.env, PATH: emptyPath });
    expect(result.status).to.equal(1);
    expect(result.stdout).to.equal("");
    expect(result.stderr.trimEnd().split("\n")).to.have.length(1);
    expect(result.stderr).to.match(/^OpenAPI Generator needs Java 11 or newer, and there is no `java` on PATH/);
  });

  it("names the archive, Maven Central and the reason when the archive is absent and the download fails", function () {
    this.timeout(120_000);
    if (spawnSync("java", ["-version"]).error) this.skip();
    // An empty storage folder and a download address nobody listens on: offline.
    const config = path.join(scratch, "openapitools.json");
    fs.writeFileSync(
      config,
      JSON.stringify({
        "generator-cli": {
          version: "7.25.0",
          storageDir: "store",
          repository: { downloadUrl: "http://127.0.0.1:9/${artifactId}-${versionName}.jar" },
        },
      }),
    );
    const result = run(["--openapitools", config], process.env);
    expect(result.status).to.equal(1);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines, result.stderr).to.have.length(1);
    expect(lines[0]).to.contain(`OpenAPI Generator 7.25.0 is not in ${path.join(scratch, "store")}/`);
    expect(lines[0]).to.contain("could not be downloaded from Maven Central (connect ECONNREFUSED 127.0.0.1:9)");
    expect(fs.existsSync(path.join(scratch, "store", "7.25.0.jar"))).to.equal(false);
  });

  it("pins the generator in openapitools.json and keeps the archive in an ignored folder", () => {
    const config = JSON.parse(fs.readFileSync(path.join(ROOT, "openapitools.json"), "utf8"));
    expect(config["generator-cli"].version).to.match(/^\d+\.\d+\.\d+$/);
    const storage = config["generator-cli"].storageDir as string;
    const ignored = spawnSync("git", ["check-ignore", "-q", path.join(storage, "x.jar")], { cwd: ROOT });
    expect(ignored.status, `${storage} must be ignored by git`).to.equal(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    expect(pkg.devDependencies["@openapitools/openapi-generator-cli"]).to.match(/^\d+\.\d+\.\d+$/);
  });
});
