// Structured logs (pino). Credentials are redacted wherever they could appear.
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

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { service: "course-equivalency", pid: process.pid },
    },
    destination,
  );
}
