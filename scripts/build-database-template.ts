// Makes the data directory a new embedded database starts from (src/db/embedded-template.ts):
// initdb once, here, in this short-lived process, and the result dumped as a tar file into
// dist/pglite/. Nothing to do when the installed PGlite's template is already there. Runs in
// npm's `prepare` (after `npm ci`) and before `npm start`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { embeddedTemplatePath } from "../src/db/embedded-template.ts";

/** Writes the template to `file` unless it exists; answers whether it wrote one. */
export async function buildDatabaseTemplate(file = embeddedTemplatePath()): Promise<boolean> {
  if (fs.existsSync(file)) return false;
  const pglite = await PGlite.create();
  try {
    const dump = await pglite.dumpDataDir("none");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written aside and renamed, so a process starting meanwhile never loads half a template.
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(temporary, file);
  } finally {
    await pglite.close();
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = embeddedTemplatePath();
  if (await buildDatabaseTemplate(file))
    process.stdout.write(`Embedded database template written to ${path.relative(process.cwd(), file)}\n`);
}
