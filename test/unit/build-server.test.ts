// The server build behind `npm start` (scripts/build-server.ts): the entry points
// npm's scripts run, packages left to node_modules, and a rebuild that leaves
// unchanged files alone and removes what the build no longer makes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { buildServer, packagesLoadedAtStart, SERVER_ENTRIES } from "../../scripts/build-server.ts";

describe("server build (scripts/build-server.ts)", function () {
  this.timeout(60_000);
  let outdir: string;
  beforeEach(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-build-"));
  });
  afterEach(() => fs.rmSync(outdir, { recursive: true, force: true }));

  it("writes one file per entry point beside the chunks they share, importing packages from node_modules", async () => {
    const { files: outputs } = await buildServer(outdir);
    const names = fs.readdirSync(outdir);
    for (const entry of Object.keys(SERVER_ENTRIES)) expect(names, entry).to.include(`${entry}.js`);
    expect(outputs.every((file) => path.dirname(file) === outdir)).to.equal(true);
    const main = fs.readFileSync(path.join(outdir, "main.js"), "utf8");
    const code = outputs.map((file) => fs.readFileSync(file, "utf8")).join("\n");
    expect(code, "no TypeScript source is imported at run time").to.not.match(/from\s*"[^"]*\.ts"/);
    expect(code).to.match(/from\s*"koa"/);
    expect(code).to.match(/from\s*"@electric-sql\/pglite"/);
    expect(main).to.include("sourceMappingURL=main.js.map");
  });

  it("loads what only some deployments use when it is used, not with the server", async () => {
    const { metafile } = await buildServer(outdir);
    const atStart = packagesLoadedAtStart(metafile, "main");
    expect(atStart, "what every server needs at once").to.include.keys(
      "koa",
      "openapi-backend",
      "@prisma/client/runtime/client",
    );
    // Single sign-on (a configured connection), Redis (SVC_RATE_LIMIT_REDIS_URL), the PostgreSQL
    // driver (DATABASE_URL; the embedded default never needs it), the administrator's command
    // program (the first command over the admin channel), the CSV parser and writer (the first rules
    // import, the first CSV export of courses or institutions).
    const lazy = [
      "openid-client",
      "@node-saml/node-saml",
      "xml2js",
      "ioredis",
      "pg",
      "@prisma/adapter-pg",
      "pg-copy-streams",
      "commander",
      "cli-progress",
      "csv-parse",
      "csv-stringify/sync",
    ];
    for (const name of lazy) expect(atStart).to.not.include.keys(name);
    // The embedded database's engine runs on its own thread, started only without DATABASE_URL.
    expect(atStart).to.not.include.keys("@electric-sql/pglite", "pglite-prisma-adapter");
    expect(packagesLoadedAtStart(metafile, "embedded-thread")).to.include.keys("@electric-sql/pglite");
    // They are in the build all the same, behind import().
    const everything = Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    expect(everything).to.include.members(lazy);
  });

  it("leaves unchanged files untouched on a rebuild and removes what the build no longer makes", async () => {
    await buildServer(outdir);
    const main = path.join(outdir, "main.js");
    const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000); // whole seconds: utimes keeps them exactly
    fs.utimesSync(main, old, old);
    fs.writeFileSync(path.join(outdir, "chunk-STALE.js"), "export {};\n");
    await buildServer(outdir);
    expect(fs.statSync(main).mtimeMs).to.equal(old.getTime());
    expect(fs.readdirSync(outdir)).to.not.include("chunk-STALE.js");
  });
});
