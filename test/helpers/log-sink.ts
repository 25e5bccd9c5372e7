// A logger whose JSON lines the test can read, and wait for.
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/kernel/logger.ts";

export interface LogSink {
  log: Logger;
  lines: Array<Record<string, unknown>>;
  /** Resolves with the first line (already written or still to come) whose msg contains `text`. */
  next(text: string): Promise<Record<string, unknown>>;
}

export function logSink(level: "info" | "warn" = "info"): LogSink {
  const lines: Array<Record<string, unknown>> = [];
  const waiting: Array<{ text: string; resolve: (line: Record<string, unknown>) => void }> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split("\n").filter(Boolean)) {
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        for (const waiter of [...waiting]) {
          if (String(line.msg).includes(waiter.text)) {
            waiting.splice(waiting.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
      done();
    },
  });
  return {
    log: createLogger(level, sink),
    lines,
    next(text) {
      const found = lines.find((line) => String(line.msg).includes(text));
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiting.push({ text, resolve }));
    },
  };
}
