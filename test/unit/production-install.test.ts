// What `npm start` runs and what `npm ci --omit=dev` installs: node itself
// (TypeScript through its --import hook, no wrapper process beside the server),
// and no Prisma CLI, which the running service never imports.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import semver from "semver";

const ROOT = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
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
  it("npm start runs the server in node itself, with the tsx loader as an --import hook and two malloc arenas", () => {
    // glibc gives each thread that allocates its own 64 MB arena and keeps what start-up freed in
    // them: two arenas left ~130 MB less resident after a first start (README, "Memory"). The
    // shell execs node, so the server is still one process that receives signals itself.
    expect(manifest.scripts.start).to.equal(
      "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} exec node --import tsx src/main.ts",
    );
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

  it("every locked package runs on the oldest Node the README promises, so npm ci prints no EBADENGINE warning", () => {
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
