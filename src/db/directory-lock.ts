// PGlite is a single-process database: two processes opening one data directory
// would corrupt it. A pid file makes the second one stop with a clear message.
import fs from "node:fs";
import path from "node:path";

export class DirectoryInUseError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock (or a stale one left by a crash); returns its release. */
export function lockDirectory(dir: string): () => void {
  const file = path.join(dir, "svc.lock");
  try {
    fs.writeFileSync(file, String(process.pid), { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(fs.readFileSync(file, "utf8").trim());
    if (holder && holder !== process.pid && isAlive(holder)) {
      throw new DirectoryInUseError(
        `The embedded database in ${dir} is in use by process ${holder}. Stop that process first, or run both on PostgreSQL (DATABASE_URL).`,
      );
    }
    fs.writeFileSync(file, String(process.pid));
  }
  return () => fs.rmSync(file, { force: true });
}
