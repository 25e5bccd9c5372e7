// A new embedded database starts from a data directory made once, at install (npm's
// `prepare`: scripts/build-database-template.ts), instead of running initdb: PGlite runs
// initdb in a WebAssembly instance of its own beside the server's, and creating a directory
// that way peaked near 850 MiB, loading the template near 350 (docs/benchmarks.md, memory). The
// template's file name carries PGlite's version, so another version's template is never
// loaded; without one the directory is created by initdb as before.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { projectPath } from "../kernel/project-root.ts";

const PGLITE = "@electric-sql/pglite";

/** The installed PGlite's version, from its package.json (the package does not export that file). */
function pgliteVersion(): string {
  const start = path.dirname(createRequire(import.meta.url).resolve(PGLITE));
  for (let dir = start; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (!fs.existsSync(file)) continue;
    const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
    if (manifest.name === PGLITE && manifest.version) return manifest.version;
  }
  throw new Error(`no package.json of ${PGLITE} above ${start}`);
}

/** Where the template for the installed PGlite is (or is to be) kept. */
export function embeddedTemplatePath(): string {
  return projectPath("dist", "pglite", `data-directory-${pgliteVersion()}.tar`);
}
