// The service's own processes for multi-process tests and the fault and load
// scripts: `src/main.ts` (one process or a cluster) and `src/dispatcher.ts`,
// started with tsx, their JSON logs parsed from standard output, and plain
// HTTP requests that open a new connection each (so a cluster's round-robin
// hands them to every worker in turn).
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface LogLine {
  msg?: string;
  pid?: number;
  level?: number;
  url?: string;
  [field: string]: unknown;
}

export interface ServiceProcess {
  child: ChildProcess;
  logs: LogLine[];
  stderr(): string;
  /** The first log line with this message (waits for it). */
  waitForLog(msg: string, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Spawns `node --import tsx <script>` in the repository with `env` over the current environment. */
export function spawnService(
  script: string,
  env: Record<string, string>,
  options: { stdout?: "pipe" | "ignore" } = {},
): ServiceProcess {
  // A benchmark ignores standard output: a pipe its parent reads late would block the server's log writes.
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: ROOT,
    env: { ...process.env, SVC_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", options.stdout ?? "pipe", "pipe"],
  });
  const logs: LogLine[] = [];
  let stderr = "";
  let pending = "";
  const waiters: (() => void)[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line
      }
    }
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.once("exit", () => {
    for (const wake of waiters.splice(0)) wake();
  });
  const service: ServiceProcess = {
    child,
    logs,
    stderr: () => stderr,
    async waitForLog(msg, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs.find((line) => line.msg === msg);
        if (found) return found;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before "${msg}": ${stderr}`);
        if (Date.now() > deadline) throw new Error(`${script} did not log "${msg}" in time: ${stderr}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1_000);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited(child);
      clearTimeout(timer);
    },
    async kill(signal = "SIGKILL") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited(child);
    },
  };
  return service;
}

/** The port in a "listening" log line's url. */
export function portOf(line: LogLine): number {
  return Number(new URL(String(line.url)).port);
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json<T = unknown>(): T;
}

/** One request on a connection of its own. */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: options.method ?? "GET",
      agent: false,
      headers: {
        ...(body === undefined
          ? {}
          : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }),
        ...options.headers,
      },
      timeout: options.timeoutMs ?? 30_000,
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url} in time`)));
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.end(body);
  });
}

/** The pids whose request log lines match (method, path). */
/**
 * Waits until `count` request lines for `method` and `pathname` have arrived after line `from`
 * (log lines are written in blocks, up to 250 ms after the request), then answers them.
 */
export async function requestLines(
  service: { logs: LogLine[] },
  from: number,
  method: string,
  pathname: string,
  count: number,
): Promise<LogLine[]> {
  for (;;) {
    const lines = service.logs
      .slice(from)
      .filter((l) => l.msg === "request" && l.method === method && l.path === pathname);
    if (lines.length >= count) return lines;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function servingPids(logs: LogLine[], method: string, pathname: string): Set<number> {
  return new Set(
    logs.filter((l) => l.msg === "request" && l.method === method && l.path === pathname).map((l) => Number(l.pid)),
  );
}

/** A value of a Prometheus text exposition: the sample of `name` whose labels include every one given. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return null;
}
