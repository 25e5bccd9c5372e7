// The layers as the README draws them, checked against the code: handlers call
// services, services hold the rules over repositories, and only repositories
// (and the database driver in src/db/) touch Prisma or SQL. No folder imports
// a folder above it.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");

/** The layers from the top down; a file may import its own layer or any layer below it, never one above. */
const LAYERS = ["handlers", "services", "repositories", "db"] as const;
type Layer = (typeof LAYERS)[number];

/** Folders that are neither a layer nor the composition root, and what they may not import. */
const FORBIDDEN_FOR: Record<string, string[]> = {
  services: ["handlers", "http", "api.ts", "app.ts", "koa"],
  repositories: ["handlers", "http", "services", "webhooks", "auth", "api.ts", "app.ts", "app-context.ts", "koa"],
  db: ["handlers", "http", "services", "repositories", "webhooks", "auth", "api.ts", "app.ts", "app-context.ts", "koa"],
  handlers: ["repositories", "db", "koa"],
  webhooks: ["handlers", "http", "services", "api.ts", "app.ts", "koa"],
  auth: ["handlers", "services", "api.ts", "app.ts", "koa"],
  cli: ["handlers", "http", "api.ts", "app.ts", "koa"],
};

/** Where direct database access is allowed. */
const DATA_ACCESS = ["repositories", "db"];

/** What reaches the database without a repository: a client handle, raw SQL, a transaction, a value import of the client. */
const DATABASE_ACCESS =
  /\.prisma\b|\$queryRaw|\$executeRaw|\$transaction|\bPrisma\.sql\b|^import (?!type )[^;]*from "[./]*generated\/prisma\/client\.ts"/m;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : entry.name.endsWith(".ts") ? [file] : [];
  });
}

/** The top-level folder (or root file) of src/ that a file or import target belongs to. */
function areaOf(file: string): string {
  const relative = path.relative(SRC, file);
  return relative.startsWith("..") ? "" : relative.split(path.sep)[0];
}

/** The areas of src/ (and bare packages such as koa) that a source text imports. */
function importedAreas(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)].map((match) => match[1]);
  return specifiers.map((specifier) =>
    specifier.startsWith(".") ? areaOf(path.resolve(path.dirname(file), specifier)) : specifier.split("/")[0],
  );
}

function violations(file: string, text: string): string[] {
  const area = areaOf(file);
  const found: string[] = [];
  for (const imported of importedAreas(file, text)) {
    if (imported !== area && (FORBIDDEN_FOR[area] ?? []).includes(imported)) found.push(`${area} imports ${imported}`);
  }
  if (!DATA_ACCESS.includes(area) && DATABASE_ACCESS.test(text)) found.push(`${area} reaches the database directly`);
  return found;
}

describe("architecture: the layers of src/", () => {
  const files = sourceFiles(SRC);

  it("reads every layer it checks", () => {
    const areas = new Set(files.map(areaOf));
    for (const layer of LAYERS as readonly Layer[]) expect(areas.has(layer), layer).to.equal(true);
  });

  it("has no file that imports a folder above it or reaches the database outside src/repositories and src/db", () => {
    const found = files.flatMap((file) =>
      violations(file, fs.readFileSync(file, "utf8")).map((v) => `${path.relative(ROOT, file)}: ${v}`),
    );
    expect(found).to.deep.equal([]);
  });

  it("would catch a service that imports a handler, uses Prisma or imports Koa", () => {
    const file = path.join(SRC, "services", "example.ts");
    expect(violations(file, 'import { x } from "../handlers/courses.ts";\n')).to.deep.equal([
      "services imports handlers",
    ]);
    expect(violations(file, "const rows = await db.$queryRaw`SELECT 1`;\n")).to.deep.equal([
      "services reaches the database directly",
    ]);
    expect(violations(file, 'import type { Context } from "koa";\n')).to.deep.equal(["services imports koa"]);
    expect(violations(file, 'import type { Environment } from "../../generated/prisma/client.ts";\n')).to.deep.equal(
      [],
    );
  });

  it("would catch a repository that imports a service", () => {
    const file = path.join(SRC, "repositories", "example.ts");
    expect(violations(file, 'import { rule } from "../services/courses.ts";\n')).to.deep.equal([
      "repositories imports services",
    ]);
  });
});
