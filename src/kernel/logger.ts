// Structured logs (pino). Credentials are redacted wherever they could appear.
import fs from "node:fs";
import { pino, type Logger } from "pino";
import type { LogLevel } from "./config.ts";

export type { Logger };

export const REDACTED_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "authorization",
  "key",
  "secret",
  "clientSecret",
  "client_secret",
  "password",
  "*.key",
  "*.secret",
];

/** Log lines are written in blocks of this many bytes, or sooner after FLUSH_INTERVAL_MS. */
const BLOCK_BYTES = 4096;
const FLUSH_INTERVAL_MS = 250;

/**
 * A file descriptor (standard output by default) or a path, written in blocks: a line per
 * write(2) cost a system call per request, a measurable share of a single read's CPU. Lines
 * wait at most FLUSH_INTERVAL_MS; pino flushes what is left synchronously when the process
 * exits (a SIGKILL loses at most the last block, never a database change: the audit log is in
 * the database).
 */
export function blockBufferedDestination(dest: number | string = 1): pino.DestinationStream {
  // A path is opened now: a file still opening when the process exits could not be flushed.
  const fd = typeof dest === "number" ? dest : fs.openSync(dest, "a");
  const stream = pino.destination({ dest: fd, sync: false, minLength: BLOCK_BYTES });
  let pending = false;
  setInterval(() => {
    if (!pending) return;
    pending = false;
    stream.flush();
  }, FLUSH_INTERVAL_MS).unref();
  return {
    write(line: string) {
      pending = true;
      stream.write(line);
    },
  };
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { service: "course-equivalency", pid: process.pid },
    },
    destination ?? (level === "silent" ? undefined : blockBufferedDestination()),
  );
}
