// Compiles the server into dist/server/ with esbuild, for `npm start` and `npm run dispatcher`: the
// entry points (the server, the dispatcher, the embedded database's thread) and the chunks they
// share, as ES modules that import their packages from node_modules. Running compiled JavaScript
// keeps the TypeScript loader and the transpiled sources out of both threads' heaps (the memory
// figures are in docs/benchmarks.md). No type-checking here: `npm test` and CI run tsc. Runs in npm's `prepare` (after
// `npm ci`) and before `npm start` and `npm run dispatcher`, in well under a second.
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { PROJECT_ROOT as root, projectPath } from "../src/kernel/project-root.ts";

export const SERVER_OUTPUT = projectPath("dist", "server");

/** The compiled entry points, by the name `npm start` and `npm run dispatcher` run. */
export const SERVER_ENTRIES = {
  main: "src/main.ts",
  dispatcher: "src/dispatcher.ts",
  // src/db/embedded-engine.ts starts ./embedded-thread.js beside itself when compiled; every
  // chunk lands in this one directory, so "beside" is here.
  "embedded-thread": "src/db/embedded-thread.ts",
} as const;

/** Writes `bytes` to `file` unless it already holds them, through a rename so no reader sees half a file. */
async function replaceIfChanged(file: string, bytes: Uint8Array): Promise<void> {
  const current = await readFile(file).catch(() => null);
  if (current?.equals(bytes)) return;
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, file);
}

/**
 * Builds the server into `outdir` (dist/server by default). A file whose bytes did not change is
 * not touched, a changed one is replaced whole, and what the new build does not name is removed
 * afterwards, never before: a process starting from these files (a cluster's primary forks from
 * them again; `npm start` and `npm run dispatcher` started together both build) finds a whole build.
 */
export async function buildServer(outdir = SERVER_OUTPUT): Promise<{ files: string[]; metafile: esbuild.Metafile }> {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.entries(SERVER_ENTRIES).map(([out, source]) => ({ in: source, out })),
    bundle: true,
    splitting: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: ["node20.19"],
    outdir,
    chunkNames: "[name]-[hash]",
    sourcemap: "linked",
    metafile: true,
    write: false,
    legalComments: "none",
    logLevel: "warning",
  });
  await mkdir(outdir, { recursive: true });
  for (const output of result.outputFiles) await replaceIfChanged(output.path, output.contents);
  const written = new Set(result.outputFiles.map((output) => output.path));
  for (const name of await readdir(outdir)) {
    const file = path.join(outdir, name);
    if (!written.has(file) && !file.endsWith(".tmp")) await rm(file, { recursive: true, force: true });
  }
  return { files: [...written].filter((file) => file.endsWith(".js")), metafile: result.metafile };
}

/**
 * The packages an entry point imports before it runs: what its output file and the chunks it
 * imports statically name, transitively. A package reached only through `import()` is not here.
 */
export function packagesLoadedAtStart(metafile: esbuild.Metafile, entry: keyof typeof SERVER_ENTRIES): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind !== "import-statement") continue;
      if (imported.external) packages.add(imported.path);
      else visit(imported.path);
    }
  };
  const start = Object.keys(metafile.outputs).find((output) => path.basename(output) === `${entry}.js`);
  if (!start) throw new Error(`no output for the entry point ${entry}`);
  visit(start);
  return packages;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { files } = await buildServer();
  if (!process.argv.includes("--quiet"))
    process.stdout.write(`Server built into ${path.relative(root, SERVER_OUTPUT)}/ (${files.length} files)\n`);
}
