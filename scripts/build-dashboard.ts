// Bundles the dashboard (src/dashboard/app/) with esbuild into dist/dashboard/: hashed
// assets under assets/, index.html pointing at them, and manifest.json naming the files a
// first load fetches (the budget test reads it). Runs in npm's `prepare` (after `npm ci`) and
// before `npm start`; `--watch` rebuilds on change.
import { readFile, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DASHBOARD_SOURCE = path.join(root, "src/dashboard/app");
export const DASHBOARD_OUTPUT = path.join(root, "dist/dashboard");

export interface DashboardManifest {
  /** Paths under /dashboard/ of the script and style sheets that index.html loads. */
  scripts: string[];
  styles: string[];
}

function options(outdir: string): esbuild.BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: [path.join(DASHBOARD_SOURCE, "main.tsx")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    outdir: path.join(outdir, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  };
}

async function writeIndex(outdir: string, metafile: esbuild.Metafile): Promise<DashboardManifest> {
  const outputs = Object.keys(metafile.outputs).map((file) => path.relative(outdir, path.resolve(root, file)));
  const manifest: DashboardManifest = {
    scripts: outputs.filter((file) => file.endsWith(".js")).map((file) => file.split(path.sep).join("/")),
    styles: outputs.filter((file) => file.endsWith(".css")).map((file) => file.split(path.sep).join("/")),
  };
  const template = await readFile(path.join(DASHBOARD_SOURCE, "index.html"), "utf8");
  const tags = [
    ...manifest.styles.map((file) => `<link rel="stylesheet" href="/dashboard/${file}">`),
    ...manifest.scripts.map((file) => `<script type="module" src="/dashboard/${file}"></script>`),
  ].join("\n    ");
  await writeFile(path.join(outdir, "index.html"), template.replace("<!-- assets -->", tags));
  await writeFile(path.join(outdir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Builds the dashboard into `outdir` (dist/dashboard by default), replacing what was there. */
export async function buildDashboard(outdir = DASHBOARD_OUTPUT): Promise<DashboardManifest> {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await esbuild.build(options(outdir));
  return writeIndex(outdir, result.metafile!);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--watch")) {
    const context = await esbuild.context({
      ...options(DASHBOARD_OUTPUT),
      plugins: [
        {
          name: "index",
          setup(build) {
            build.onEnd((result) => {
              if (result.metafile) void writeIndex(DASHBOARD_OUTPUT, result.metafile);
            });
          },
        },
      ],
    });
    await context.watch();
    process.stdout.write(`Watching ${path.relative(root, DASHBOARD_SOURCE)}\n`);
  } else {
    const manifest = await buildDashboard();
    process.stdout.write(
      `Dashboard built into ${path.relative(root, DASHBOARD_OUTPUT)}/ (${[...manifest.scripts, ...manifest.styles].join(", ")})\n`,
    );
  }
}
