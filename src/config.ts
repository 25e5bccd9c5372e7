// The one place that reads the environment. Every setting has a documented
// default (README, "Configuration"); an invalid value stops the start with a
// message naming the variable.
import path from "node:path";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A postgresql:// URL, or null for the embedded database in dataDir. */
  databaseUrl: string | null;
  publicSandboxKey: string;
  logLevel: LogLevel;
  nodeEnv: string;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  rateLimit: { burst: number; refillPerSecond: number };
  /** Seed the sandbox environment on start when it holds no institutions. */
  seedSandbox: boolean;
  oauth: {
    /** Issuer of the service's own access tokens; defaults to the service origin. */
    issuer: string | null;
    tokenTtlSeconds: number;
    externalIssuer: string | null;
    externalJwksUrl: string | null;
  };
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

export const DEFAULT_PUBLIC_SANDBOX_KEY = "svc_sandbox_public_read_only_demo_key_2026_0000000000";

const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

type Env = Record<string, string | undefined>;

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new ConfigError(name, `expected a number ≥ ${min}, got "${raw}"`);
  return value;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

function readUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, "is not a valid URL");
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use ${protocols.map((p) => p.replace(":", "")).join(" or ")}`);
  }
  return raw;
}

function readSandboxKey(env: Env): string {
  const raw = env.SVC_PUBLIC_SANDBOX_KEY;
  if (raw === undefined || raw === "") return DEFAULT_PUBLIC_SANDBOX_KEY;
  if (!/^svc_sandbox_[A-Za-z0-9_-]{32,}$/.test(raw)) {
    throw new ConfigError("SVC_PUBLIC_SANDBOX_KEY", "must look like svc_sandbox_<at least 32 url-safe characters>");
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.SVC_LOG_LEVEL ?? "info").toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError("SVC_LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const host = env.HOST ?? "127.0.0.1";
  if (host.trim() === "") throw new ConfigError("HOST", "must not be empty");
  return {
    port: readInteger(env, "PORT", 3000, 0, 65535),
    host,
    dataDir: path.resolve(env.SVC_DATA_DIR || "./data"),
    databaseUrl: readUrl(env, "DATABASE_URL", ["postgresql:", "postgres:"]),
    publicSandboxKey: readSandboxKey(env),
    logLevel,
    nodeEnv: env.NODE_ENV ?? "development",
    bodyLimitBytes: readInteger(env, "SVC_BODY_LIMIT_BYTES", 2 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    rateLimit: {
      burst: readInteger(env, "SVC_RATE_LIMIT_BURST", 600, 1, 1_000_000),
      refillPerSecond: readNumber(env, "SVC_RATE_LIMIT_REFILL_PER_SECOND", 10, 0.001),
    },
    seedSandbox: readBoolean(env, "SVC_SEED_SANDBOX", true),
    oauth: {
      issuer: readUrl(env, "SVC_OAUTH_ISSUER", ["http:", "https:"]),
      tokenTtlSeconds: readInteger(env, "SVC_OAUTH_TOKEN_TTL_SECONDS", 3600, 60, 86400),
      externalIssuer: readUrl(env, "SVC_OAUTH_EXTERNAL_ISSUER", ["http:", "https:"]),
      externalJwksUrl: readUrl(env, "SVC_OAUTH_EXTERNAL_JWKS_URL", ["http:", "https:"]),
    },
  };
}
