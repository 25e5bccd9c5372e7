// What `npm start` runs and what `npm ci --omit=dev` installs: node itself on
// the compiled server (dist/server/, no loader and no wrapper process),
// and no Prisma CLI, which the running service never imports.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import semver from "semver";
import { SERVER_ENTRIES } from "../../scripts/build-server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  allowScripts: Record<string, boolean>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : /\.(ts|mjs|cjs|js)$/.test(entry.name) ? [file] : [];
  });
}

describe("production install", () => {
  it("npm start builds the server, then runs the compiled JavaScript in node itself with a frugal allocator", () => {
    // Compiled JavaScript keeps the TypeScript loader and the transpiled sources out of both
    // threads' heaps, and glibc's arenas hold on to what start-up freed (docs/benchmarks.md, the memory entry). The
    // shell execs node, so the server is one process that receives signals itself.
    expect(manifest.scripts.prestart).to.equal("npm run -s build");
    expect(manifest.scripts.build).to.equal("tsx scripts/build.ts");
    expect(manifest.scripts.prepare).to.equal("npm run -s build");
    // Fixed malloc thresholds return large freed blocks to the system at once instead of keeping
    // them in the heap; --expose-gc lets the server collect start-up's garbage once listening; one
    // WebAssembly compilation task leaves less of the tier-up's freed memory in glibc's arenas.
    const allocator =
      "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_:-131072} MALLOC_TRIM_THRESHOLD_=${MALLOC_TRIM_THRESHOLD_:-131072}";
    expect(manifest.scripts.start).to.equal(
      `${allocator} exec node --expose-gc --wasm-num-compilation-tasks=1 dist/server/main.js`,
    );
    expect(manifest.scripts.dispatcher).to.equal(`${allocator} exec node dist/server/dispatcher.js`);
    // The dispatcher's former name still starts it.
    expect(manifest.scripts.worker).to.equal("npm run -s dispatcher");
    expect(manifest.scripts.predispatcher).to.include("scripts/build-server.ts");
    expect(Object.keys(SERVER_ENTRIES)).to.include.members(["main", "dispatcher", "embedded-thread"]);
    // The build runs at `npm ci` and `npm start`, where only dependencies may be installed.
    expect(manifest.dependencies).to.have.property("esbuild");
    expect(manifest.dependencies).to.have.property("tsx");
  });

  it("the Prisma CLI is a development dependency: nothing the service runs imports it", () => {
    expect(manifest.dependencies).to.not.have.property("prisma");
    expect(manifest.devDependencies).to.have.property("prisma");
    const importsCli = sourceFiles(path.join(ROOT, "src")).filter((file) =>
      /(?:from\s+|import\(|require\()\s*["']prisma(?:\/[^"']*)?["']/.test(fs.readFileSync(file, "utf8")),
    );
    expect(importsCli).to.deep.equal([]);
  });

  it("every locked package with an install script is approved or denied in allowScripts, so npm ci warns of none", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([location]) => location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length));
    expect(withScripts, "the lock names some").to.not.be.empty;
    expect(withScripts.filter((name) => !(name in manifest.allowScripts))).to.deep.equal([]);
    // What would fetch from outside the npm registry (Prisma's engine binaries) or report
    // telemetry is denied: the project runs offline.
    expect(manifest.allowScripts).to.include({ "@prisma/engines": false, prisma: false, "@scarf/scarf": false });
  });

  it("every locked package runs on the oldest Node package.json admits, so npm ci prints no EBADENGINE warning", () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const oldestNode = semver.minVersion(manifest.engines.node)?.version;
    expect(oldestNode, "package.json engines.node").to.be.a("string");
    const refusing = Object.entries(lock.packages)
      .filter(([location, entry]) => {
        const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
        return location !== "" && range !== undefined && !semver.satisfies(oldestNode as string, range);
      })
      .map(
        ([location, entry]) => `${location}@${entry.version} wants node ${(entry.engines as { node: string }).node}`,
      );
    expect(refusing).to.deep.equal([]);
    expect(process.version.slice(1), "the Node running the tests").to.satisfy((running: string) =>
      semver.satisfies(running, manifest.engines.node),
    );
  });
});
