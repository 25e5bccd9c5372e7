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

/** Streams with lines held back, written out when the process exits (one listener for them all). */
const heldBack = new Set<{ flushSync(): void }>();
let flushAtExit = false;

/**
 * A file descriptor (standard output by default) or a path, written in blocks: a line per
 * write(2) cost a system call per request, a measurable share of a single read's CPU. Lines
 * wait at most FLUSH_INTERVAL_MS, and what is held back is written when the process exits. The
 * writes stay synchronous (a block at a time): with asynchronous ones, a write still under way
 * at exit landed after the lines written at exit, out of order. A SIGKILL loses at most the last
 * block, never a database change (the audit log is in the database).
 */
export function blockBufferedDestination(dest: number | string = 1): pino.DestinationStream {
  const fd = typeof dest === "number" ? dest : fs.openSync(dest, "a");
  const stream = pino.destination({ dest: fd, sync: true, minLength: BLOCK_BYTES });
  heldBack.add(stream);
  if (!flushAtExit) {
    flushAtExit = true;
    process.once("exit", () => {
      for (const held of heldBack) held.flushSync();
    });
  }
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
