// What `npm start` runs and what `npm ci --omit=dev` installs: node itself
// (TypeScript through its --import hook, no wrapper process beside the server),
// and no Prisma CLI, which the running service never imports.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
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
  it("npm start runs the server in node itself, with the tsx loader as an --import hook", () => {
    expect(manifest.scripts.start).to.equal("node --import tsx src/main.ts");
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
});
