// The rooms of src/ as docs/architecture.md draws them, checked against the code: every file
// under src/ belongs to a room, and a room imports only rooms below it (or itself). Handlers call
// services, services hold the rules over repositories, and only repositories (and the database
// driver in src/db/) touch Prisma or SQL; services never see Koa. src/'s root holds only the
// process entry points.
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { SERVER_ENTRIES } from "../../scripts/build-server.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");

/** The rooms from the bottom up: a room may import rooms of a lower rank and its own, never a higher one. */
const RANKS: Record<string, number> = {
  kernel: 0,
  db: 1,
  repositories: 2,
  views: 2,
  auth: 3,
  webhooks: 3,
  services: 4,
  // The articulation rules domain: the other services use it, and it uses them (the import writes as
  // the equivalency service does), so it shares their rank; it is a room so that it stays one place.
  "services/rules": 4,
  handlers: 5,
  pipeline: 6,
  "dashboard/server": 7,
  routes: 8,
  app: 9,
  process: 10,
  cli: 11,
  entry: 12,
};

/** The browser app is built apart and talks to the server only through the API. */
const BROWSER = "dashboard/app";

/** Packages a room must not import, whatever its rank. */
const FORBIDDEN_PACKAGES: Record<string, string[]> = {
  kernel: ["koa", "@koa/router", "openapi-backend"],
  db: ["koa", "@koa/router"],
  repositories: ["koa", "@koa/router", "openapi-backend"],
  views: ["koa", "@koa/router"],
  webhooks: ["koa", "@koa/router"],
  services: ["koa", "@koa/router", "openapi-backend"],
  "services/rules": ["koa", "@koa/router", "openapi-backend"],
  handlers: ["koa", "@koa/router"],
};

/** Where direct database access is allowed. */
const DATA_ACCESS = ["repositories", "db"];

/** What reaches the database without a repository: a client handle, raw SQL, a transaction, a value import of the client. */
const DATABASE_ACCESS =
  /\.prisma\b|\$queryRaw|\$executeRaw|\$transaction|\bPrisma\.sql\b|^import (?!type )[^;]*from "[./]*generated\/prisma\/client\.ts"/m;

/** The process entry points, alone at src/'s root; each is compiled for `npm start` or `npm run dispatcher`. */
const ENTRY_POINTS = ["main.ts", "dispatcher.ts"];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : /\.(ts|tsx|mts|mjs)$/.test(entry.name) ? [file] : [];
  });
}

/** The room of a file under src/ ("entry" for the root's files), or null outside src/. */
function roomOf(file: string): string | null {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts[0] === ".." || path.isAbsolute(parts[0])) return null;
  if (parts.length === 1) return "entry";
  if (parts[0] === "services" && parts[1] === "rules" && parts.length > 2) return "services/rules";
  return parts[0] === "dashboard" ? `dashboard/${parts[1]}` : parts[0];
}

/** The rooms of src/ and the bare packages that a source text imports (statically or with import()). */
function imports(file: string, text: string): { rooms: string[]; packages: string[] } {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm),
    ...text.matchAll(/^\s*import\s+"([^"]+)"/gm),
    ...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
  ].map((match) => match[1]);
  const rooms: string[] = [];
  const packages: string[] = [];
  for (const specifier of specifiers) {
    if (specifier.startsWith(".")) {
      const room = roomOf(path.resolve(path.dirname(file), specifier));
      if (room) rooms.push(room);
    } else if (!specifier.startsWith("node:")) {
      packages.push(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]);
    }
  }
  return { rooms, packages };
}

function violations(file: string, text: string): string[] {
  const room = roomOf(file);
  if (room === null) return [];
  const found: string[] = [];
  if (!(room in RANKS) && room !== BROWSER) return [`${room} is not a room of the architecture`];
  const { rooms, packages } = imports(file, text);
  for (const imported of rooms) {
    if (imported === room) continue;
    if (room === BROWSER || imported === BROWSER) found.push(`${room} imports ${imported}`);
    else if (!(imported in RANKS)) found.push(`${room} imports ${imported}, which is not a room`);
    else if (RANKS[imported] > RANKS[room]) found.push(`${room} imports ${imported}, a room above it`);
  }
  for (const name of packages) {
    if ((FORBIDDEN_PACKAGES[room] ?? []).includes(name)) found.push(`${room} imports ${name}`);
  }
  if (room !== BROWSER && !DATA_ACCESS.includes(room) && DATABASE_ACCESS.test(text))
    found.push(`${room} reaches the database directly`);
  return found;
}

describe("architecture: the rooms of src/", () => {
  const files = sourceFiles(SRC);

  it("reads every room it checks, and every file of src/ is in one", () => {
    const rooms = new Set(files.map(roomOf));
    for (const room of [...Object.keys(RANKS), BROWSER]) expect(rooms.has(room), room).to.equal(true);
    const strays = files.filter((file) => {
      const room = roomOf(file);
      return room === null || (!(room in RANKS) && room !== BROWSER);
    });
    expect(strays.map((file) => path.relative(ROOT, file))).to.deep.equal([]);
  });

  it("names every file of the rules domain (src/services/rules/) in docs/architecture.md's layout", () => {
    const layout = fs.readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");
    const rules = fs.readdirSync(path.join(SRC, "services", "rules"));
    expect(rules.length).to.be.greaterThan(0);
    expect(rules.filter((name) => !layout.includes(name))).to.deep.equal([]);
  });

  it("holds only the process entry points at src/'s root, each one built for the server", () => {
    const rootFiles = fs.readdirSync(SRC).filter((name) => fs.statSync(path.join(SRC, name)).isFile());
    expect(rootFiles.sort()).to.deep.equal([...ENTRY_POINTS].sort());
    const built = Object.values(SERVER_ENTRIES) as string[];
    for (const entry of ENTRY_POINTS) expect(built, entry).to.include(`src/${entry}`);
  });

  it("has no file that imports a room above it or reaches the database outside src/repositories and src/db", () => {
    const found = files.flatMap((file) =>
      violations(file, fs.readFileSync(file, "utf8")).map((v) => `${path.relative(ROOT, file)}: ${v}`),
    );
    expect(found).to.deep.equal([]);
  });

  it("would catch a service that imports a handler, uses Prisma or imports Koa", () => {
    const file = path.join(SRC, "services", "example.ts");
    expect(violations(file, 'import { x } from "../handlers/courses.ts";\n')).to.deep.equal([
      "services imports handlers, a room above it",
    ]);
    expect(violations(file, "const rows = await db.$queryRaw`SELECT 1`;\n")).to.deep.equal([
      "services reaches the database directly",
    ]);
    expect(violations(file, 'import type { Context } from "koa";\n')).to.deep.equal(["services imports koa"]);
    expect(violations(file, 'import type { Environment } from "../../generated/prisma/client.ts";\n')).to.deep.equal(
      [],
    );
  });

  it("would catch the kernel importing a room above it, a lazy import included", () => {
    const file = path.join(SRC, "kernel", "config.ts");
    expect(violations(file, 'import { parseKey } from "../auth/secret-box.ts";\n')).to.deep.equal([
      "kernel imports auth, a room above it",
    ]);
    expect(violations(file, 'const store = await import("../auth/rate-limit-store.ts");\n')).to.deep.equal([
      "kernel imports auth, a room above it",
    ]);
  });

  it("would catch a loop between two rooms: the lower one's import is the violation", () => {
    expect(violations(path.join(SRC, "pipeline", "x.ts"), 'import { x } from "../app/app.ts";\n')).to.deep.equal([
      "pipeline imports app, a room above it",
    ]);
    expect(violations(path.join(SRC, "app", "x.ts"), 'import { x } from "../pipeline/pipeline.ts";\n')).to.deep.equal(
      [],
    );
  });

  it("would catch the browser app importing server code", () => {
    const file = path.join(SRC, "dashboard", "app", "main.tsx");
    expect(violations(file, 'import { x } from "../server/sessions.ts";\n')).to.deep.equal([
      "dashboard/app imports dashboard/server",
    ]);
  });
});
