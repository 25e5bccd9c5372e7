// The published package as a consumer gets it: `npm pack`, an offline install
// into a scratch project, a strict type-check of an ESM and a CommonJS
// consumer, and one run of each against the real app.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import YAML from "yaml";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { serve } from "./serve.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const PACKAGE_DIR = path.join(ROOT, "generated/client");

const ESM_CONSUMER = `
import { createClient, NotFoundError, verifyWebhook, type Event, type Institution } from "@course-equivalency/client";

const client = createClient({ baseUrl: process.env.BASE_URL!, apiKey: process.env.API_KEY! });
const names: string[] = [];
for await (const institution of client.institutions.list({ limit: 2 })) names.push(institution.name);
const first: Institution = (await client.institutions.list({ limit: 1 })).data[0];
let notFound = false;
try {
  await client.institutions.get("inst_000000");
} catch (error) {
  notFound = error instanceof NotFoundError && error.status === 404;
}
// @ts-expect-error: the state filter is a string
client.institutions.list({ state: 5 });
const check = (event: Event) => (event.type === "dataset.published" ? event.data.snapshotRecordCount : 0);
console.log(JSON.stringify({ names, first: first.id, notFound, resolved: import.meta.resolve("@course-equivalency/client"), verify: typeof verifyWebhook, check: typeof check }));
`;

const CJS_CONSUMER = `
import { createClient, ValidationError } from "@course-equivalency/client";

async function main() {
  const client = createClient({ baseUrl: process.env.BASE_URL!, apiKey: process.env.API_KEY! });
  const institutions = await client.institutions.list({ state: "CA" }).all();
  const invalid = await client.institutions.list({ limit: 1000 }).then(() => null, (error: unknown) => error);
  const pointers = invalid instanceof ValidationError ? invalid.errors.map((e) => e.pointer) : [];
  // @ts-expect-error: get takes an id
  const neverCalled = () => client.courses.get();
  console.log(JSON.stringify({ count: institutions.length, pointers, resolved: require.resolve("@course-equivalency/client"), neverCalled: typeof neverCalled }));
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

describe("SDK package (npm pack, offline install, ESM and CommonJS consumers)", function () {
  this.timeout(120_000);
  let scratch: string;
  let tarball: { filename: string; files: { path: string }[] };

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "sdk-consumer-"));
    const packed = await run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: PACKAGE_DIR });
    [tarball] = JSON.parse(packed.stdout);
    fs.writeFileSync(
      path.join(scratch, "package.json"),
      JSON.stringify({ name: "sdk-consumer", version: "0.0.0", private: true }),
    );
    // `npm ci` caches tarballs but not registry metadata, so an offline install resolves the
    // package's dependencies only from tarballs handed to it: packed from this project's copies.
    const dependencies = await packDependencies(
      JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8")),
      scratch,
    );
    await run(
      "npm",
      [
        "install",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        path.join(scratch, tarball.filename),
        ...dependencies,
      ],
      { cwd: scratch },
    );
    fs.writeFileSync(path.join(scratch, "esm.mts"), ESM_CONSUMER);
    fs.writeFileSync(path.join(scratch, "cjs.cts"), CJS_CONSUMER);
    const compilerOptions = {
      target: "ES2022",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: false,
      types: ["node"],
      typeRoots: [path.join(ROOT, "node_modules/@types")],
      outDir: "out",
    };
    fs.writeFileSync(
      path.join(scratch, "tsconfig.json"),
      JSON.stringify({ compilerOptions, files: ["esm.mts", "cjs.cts"] }),
    );
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it("packs the built package only, at the contract's version", () => {
    const document = YAML.parse(fs.readFileSync(path.join(ROOT, "openapi.yaml"), "utf8"));
    expect(tarball.filename).to.equal(`course-equivalency-client-${document.info.version}.tgz`);
    const files = tarball.files.map((file) => file.path);
    expect(files).to.include.members([
      "package.json",
      "README.md",
      "dist/esm/index.js",
      "dist/esm/index.d.ts",
      "dist/cjs/index.js",
      "dist/cjs/index.d.ts",
      "dist/cjs/package.json",
    ]);
    expect(
      files.filter((file) => !file.startsWith("dist/") && file !== "package.json" && file !== "README.md"),
    ).to.deep.equal([]);
    const installed = JSON.parse(
      fs.readFileSync(path.join(scratch, "node_modules/@course-equivalency/client/package.json"), "utf8"),
    );
    expect(installed.dependencies).to.deep.equal({ "openapi-fetch": "0.17.0" });
    expect(fs.existsSync(path.join(scratch, "node_modules/openapi-fetch/package.json"))).to.equal(true);
  });

  it("type-checks an ESM and a CommonJS consumer strictly, the package's declarations included", async () => {
    await run(
      process.execPath,
      [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", path.join(scratch, "tsconfig.json")],
      { cwd: scratch },
    ).catch((error) => {
      throw new Error(`tsc failed:\n${error.stdout}${error.stderr}`);
    });
    expect(fs.readdirSync(path.join(scratch, "out")).sort()).to.deep.equal(["cjs.cjs", "esm.mjs"]);
  });

  it("runs both consumers with node against the app", async () => {
    const t: TestApp = await createTestApp();
    const served = await serve(t);
    try {
      await loadInstitutions(t.database.prisma, "live");
      const env = { ...process.env, BASE_URL: served.baseUrl, API_KEY: t.keys.live };
      const esm = JSON.parse(
        (await run(process.execPath, [path.join(scratch, "out/esm.mjs")], { cwd: scratch, env })).stdout,
      );
      expect(esm.names).to.have.length(6);
      expect(esm).to.include({ first: "inst_166027", notFound: true, verify: "function", check: "function" });
      expect(esm.resolved).to.match(/node_modules\/@course-equivalency\/client\/dist\/esm\/index\.js$/);
      const cjs = JSON.parse(
        (await run(process.execPath, [path.join(scratch, "out/cjs.cjs")], { cwd: scratch, env })).stdout,
      );
      expect(cjs).to.include({ count: 4 });
      expect(cjs.pointers).to.deep.equal(["/query/limit"]);
      expect(cjs.resolved).to.match(/node_modules\/@course-equivalency\/client\/dist\/cjs\/index\.js$/);
    } finally {
      await served.close();
      await t.close();
    }
  });
});

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

/** Tarballs of the manifest's dependencies, and of theirs, packed from this project's node_modules. */
async function packDependencies(
  manifest: Manifest,
  destination: string,
  packed = new Set<string>(),
): Promise<string[]> {
  const tarballs: string[] = [];
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (packed.has(name)) continue;
    packed.add(name);
    const directory = path.join(ROOT, "node_modules", name);
    const [result] = JSON.parse(
      (await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], { cwd: directory }))
        .stdout,
    );
    tarballs.push(path.join(destination, result.filename));
    const own = JSON.parse(fs.readFileSync(path.join(directory, "package.json"), "utf8")) as Manifest;
    tarballs.push(...(await packDependencies(own, destination, packed)));
  }
  return tarballs;
}
