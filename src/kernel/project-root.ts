// The files the service reads at run time (openapi.yaml, generated/openapi.json,
// prisma/migrations, dist/dashboard) are found from the directory of package.json,
// not from the reading module's own place: the same module runs from src/ (tests,
// the CLI, through tsx) and bundled into dist/server/ (npm start).
import fs from "node:fs";
import path from "node:path";

function directoryWithPackageJson(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = directoryWithPackageJson(import.meta.dirname);

/** A path inside the project, from its root: `projectPath("prisma", "migrations")`. */
export function projectPath(...segments: string[]): string {
  return path.join(PROJECT_ROOT, ...segments);
}
