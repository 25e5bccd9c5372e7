// Bundles the public transfer explorer (src/dashboard/app/explore/) with esbuild into
// dist/explorer/: hashed assets under assets/ and index.html pointing at them, served at /explore
// by src/dashboard/server/explorer-pages.ts. Runs with the dashboard's build (scripts/build.ts).
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const EXPLORER_SOURCE = path.join(root, "src/dashboard/app/explore");
export const EXPLORER_OUTPUT = path.join(root, "dist/explorer");

/** Builds the explorer into `outdir`, replacing what was there; answers the files index.html loads. */
export async function buildExplorer(outdir = EXPLORER_OUTPUT): Promise<string[]> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [path.join(EXPLORER_SOURCE, "main.tsx")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    outdir: path.join(outdir, "assets"),
    entryNames: "[name]-[hash]",
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const files = Object.keys(result.metafile.outputs).map((file) =>
    path.relative(outdir, path.resolve(root, file)).split(path.sep).join("/"),
  );
  const tags = [
    ...files.filter((file) => file.endsWith(".css")).map((file) => `<link rel="stylesheet" href="/explore/${file}">`),
    ...files
      .filter((file) => file.endsWith(".js"))
      .map((file) => `<script type="module" src="/explore/${file}"></script>`),
  ].join("\n    ");
  const template = await readFile(path.join(EXPLORER_SOURCE, "index.html"), "utf8");
  await writeFile(path.join(outdir, "index.html"), template.replace("<!-- assets -->", tags));
  return files;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildExplorer();
  process.stdout.write(`Explorer built into ${path.relative(root, EXPLORER_OUTPUT)}/ (${files.join(", ")})\n`);
}
