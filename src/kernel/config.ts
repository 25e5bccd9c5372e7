// The one place that reads the environment. Every setting has a documented
// default (docs/configuration.md); an invalid value stops the start with a
// message naming the variable.
import path from "node:path";
import { parseSecretsKey } from "./secret-box.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/** A token bucket: how many requests it holds and how fast it refills. */
export interface BucketRule {
  /** Bucket size in requests. */
  burst: number;
  /** Requests added per second, continuously. */
  refillPerSecond: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /**
   * SVC_EMBEDDED_SHARED_BUFFERS_MB: the embedded PostgreSQL's shared_buffers. PGlite allocates
   * them whole at start (its default, 128 MB, was a third of an idle server's memory); reads
   * beyond them come from the operating system's file cache.
   */
  embeddedSharedBuffersMb: number;
  /** A postgresql:// URL, or null for the embedded database in dataDir. */
  databaseUrl: string | null;
  publicSandboxKey: string;
  logLevel: LogLevel;
  nodeEnv: string;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  rateLimit: {
    /** Each credential's bucket (the public sandbox key: each client address's). */
    credential: BucketRule;
    /** Each organization's bucket per environment, shared by all its credentials. */
    organization: BucketRule;
    /** Each client address's failed authentications (a presented credential answered 401). */
    authFailures: BucketRule;
    /** Each client address's requests to POST /oauth/token. */
    tokenEndpoint: BucketRule;
    /** Each client address's requests to the dashboard's sign-in routes (start, callbacks, links). */
    signIn: BucketRule;
    /** Buckets shared by every process in this Redis; null keeps them in this process's memory. */
    redis: { url: string; keyPrefix: string; timeoutMs: number } | null;
  };
  /** Take the client address from X-Forwarded-For (the entry the nearest proxy added). */
  trustProxy: boolean;
  /** Seed the sandbox environment on start when it holds no institutions. */
  seedSandbox: boolean;
  /** API processes sharing the port (node:cluster); more than one needs PostgreSQL. */
  clusterWorkers: number;
  /** How long a verified API key is remembered per process; revocations reach every process at once anyway. */
  credentialCacheMs: number;
  /** Prometheus metrics on a port of their own, or null when not served. */
  metrics: { port: number; host: string; token: string | null } | null;
  webhooks: {
    /** Delays before each retry after a failed attempt; its length is the number of retries. */
    retrySchedule: number[];
    /**
     * true: allow loopback, private, link-local and metadata targets; "loopback": loopback only
     * (the default when the server listens on loopback, for local development); false: neither.
     */
    allowPrivateTargets: boolean | "loopback";
    timeoutMs: number;
    /** "inline": the server runs the dispatcher; "off": a separate `npm run dispatcher` does. */
    dispatcher: "inline" | "off";
    /** An endpoint failing this long without a success is disabled. */
    disableAfterMs: number;
  };
  datasets: {
    /** A pending equivalency older than this is reported as stale when published. */
    stalePendingDays: number;
  };
  exports: {
    /** Exports one organization may run at once in this process (one more is a 429). */
    perOrganization: number;
    /** Database connections the batch reads of all exports share at once in this process. */
    databaseConnections: number;
  };
  /** The change feed (GET /events, GET /events/stream). */
  events: {
    /** Events are kept this many days (at least 30), then removed once fanned out to webhooks. */
    retentionDays: number;
    /** Streams an organization may hold at once in one API process. */
    maxStreamsPerOrganization: number;
    /** Streams the public sandbox key may hold at once from one client address in one API process. */
    maxStreamsPerAddress: number;
    /** A stream ends (with a `stream-closed` message; clients reconnect) when it has been open this long. */
    maxStreamMs: number;
    /** A comment line is sent on a stream that sent nothing for this long. */
    keepAliveMs: number;
    /** How often a process with open streams looks for new events (PostgreSQL also wakes it by NOTIFY). */
    pollIntervalMs: number;
  };
  oauth: {
    /** Issuer of the service's own access tokens; defaults to the service origin. */
    issuer: string | null;
    tokenTtlSeconds: number;
    /** An identity provider whose access tokens are accepted too, or null. */
    external: ExternalIssuerConfig | null;
  };
  /** The origin browsers reach the service at (https://… behind a proxy); links and redirect URIs derive from it. */
  publicOrigin: string;
  dashboard: {
    /** A session unused this long ends (SVC_DASHBOARD_SESSION_IDLE). */
    sessionIdleMs: number;
    /** A session ends this long after sign-in, however active (SVC_DASHBOARD_SESSION_ABSOLUTE). */
    sessionAbsoluteMs: number;
    /** Lifetime of the access tokens a session obtains for the API (SVC_DASHBOARD_TOKEN_TTL_SECONDS). */
    tokenTtlSeconds: number;
  };
  secrets: {
    /** SVC_SECRETS_KEY: seals stored secrets; null means the key file in dataDir. */
    key: Buffer | null;
    /** SVC_SECRETS_OLD_KEYS: open values sealed before a rotation, never seal. */
    oldKeys: Buffer[];
  };
}

export interface ExternalIssuerConfig {
  /** The exact `iss` of its tokens. */
  issuer: string;
  jwksUrl: string;
  /** What `aud` must contain. */
  audience: string;
  /** Claim holding the organization's slug. */
  orgClaim: string;
  /** Claim holding the environment (live or sandbox). */
  envClaim: string;
  /**
   * SVC_OAUTH_EXTERNAL_ORGS: the organizations (slugs) the issuer may speak for. Empty (unset)
   * refuses every external token: an issuer is trusted for no organization until one is named.
   */
  orgs: string[];
}

/** The audience of the service's own tokens, and the default one required of external tokens. */
export const TOKEN_AUDIENCE = "course-equivalency-api";

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
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

function readNumber(env: Env, name: string, fallback: number, min: number, max = Number.MAX_VALUE): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new ConfigError(name, `expected a number from ${min} to ${max}, got "${raw}"`);
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

/** Bucket sizes are whole requests (up to a million); refills at least one request per 1000 s. */
function readBucket(env: Env, burstName: string, burst: number, refillName: string, refill: number): BucketRule {
  return {
    burst: readInteger(env, burstName, burst, 1, 1_000_000),
    refillPerSecond: readNumber(env, refillName, refill, 0.001, 1_000_000),
  };
}

function readRedis(env: Env): Config["rateLimit"]["redis"] {
  const url = readUrl(env, "SVC_RATE_LIMIT_REDIS_URL", ["redis:", "rediss:"]);
  if (!url) return null;
  return {
    url,
    keyPrefix: env.SVC_RATE_LIMIT_REDIS_PREFIX || "svc:ratelimit:",
    timeoutMs: readInteger(env, "SVC_RATE_LIMIT_REDIS_TIMEOUT_MS", 100, 5, 10_000),
  };
}

function readSandboxKey(env: Env): string {
  const raw = env.SVC_PUBLIC_SANDBOX_KEY;
  if (raw === undefined || raw === "") return DEFAULT_PUBLIC_SANDBOX_KEY;
  if (!/^svc_sandbox_[A-Za-z0-9_-]{32,}$/.test(raw)) {
    throw new ConfigError("SVC_PUBLIC_SANDBOX_KEY", "must look like svc_sandbox_<at least 32 url-safe characters>");
  }
  return raw;
}

function readSecretsKey(name: string, raw: string): Buffer {
  const key = parseSecretsKey(raw);
  if (!key)
    throw new ConfigError(
      name,
      "must be a 32-byte key written as 64 hex digits or as base64/base64url (43 or 44 characters)",
    );
  return key;
}

function readSecrets(env: Env, databaseUrl: string | null, nodeEnv: string): Config["secrets"] {
  const raw = env.SVC_SECRETS_KEY?.trim();
  const oldKeys = (env.SVC_SECRETS_OLD_KEYS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  if (!raw && databaseUrl && nodeEnv === "production") {
    throw new ConfigError(
      "SVC_SECRETS_KEY",
      "must be set on PostgreSQL in production: every process needs the same key, and a key file on one machine's disk is neither shared nor backed up with the database",
    );
  }
  if (!raw && oldKeys.length)
    throw new ConfigError("SVC_SECRETS_OLD_KEYS", "is only read together with SVC_SECRETS_KEY");
  return {
    key: raw ? readSecretsKey("SVC_SECRETS_KEY", raw) : null,
    oldKeys: oldKeys.map((key) => readSecretsKey("SVC_SECRETS_OLD_KEYS", key)),
  };
}

const CLAIM_NAME = /^[\x21-\x7e]{1,200}$/;

function readClaimName(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!CLAIM_NAME.test(raw)) throw new ConfigError(name, "must be a claim name (printable characters, no spaces)");
  return raw;
}

const ORGANIZATION_SLUG = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** SVC_OAUTH_EXTERNAL_ORGS: comma-separated organization slugs. */
function readExternalOrgs(env: Env): string[] {
  const slugs = (env.SVC_OAUTH_EXTERNAL_ORGS ?? "")
    .split(",")
    .map((slug) => slug.trim())
    .filter(Boolean);
  const bad = slugs.find((slug) => !ORGANIZATION_SLUG.test(slug));
  if (bad !== undefined)
    throw new ConfigError("SVC_OAUTH_EXTERNAL_ORGS", `"${bad}" is not an organization slug (a-z, 0-9 and -)`);
  return [...new Set(slugs)];
}

function readExternalIssuer(env: Env): ExternalIssuerConfig | null {
  const issuer = readUrl(env, "SVC_OAUTH_EXTERNAL_ISSUER", ["http:", "https:"]);
  const jwksUrl = readUrl(env, "SVC_OAUTH_EXTERNAL_JWKS_URL", ["http:", "https:"]);
  const orgs = readExternalOrgs(env);
  if (!issuer && !jwksUrl) {
    if (orgs.length)
      throw new ConfigError("SVC_OAUTH_EXTERNAL_ORGS", "is only read together with SVC_OAUTH_EXTERNAL_ISSUER");
    return null;
  }
  if (!issuer)
    throw new ConfigError("SVC_OAUTH_EXTERNAL_ISSUER", "must be set together with SVC_OAUTH_EXTERNAL_JWKS_URL");
  if (!jwksUrl)
    throw new ConfigError("SVC_OAUTH_EXTERNAL_JWKS_URL", "must be set together with SVC_OAUTH_EXTERNAL_ISSUER");
  return {
    issuer,
    jwksUrl,
    audience: readClaimName(env, "SVC_OAUTH_EXTERNAL_AUDIENCE", TOKEN_AUDIENCE),
    orgClaim: readClaimName(env, "SVC_OAUTH_EXTERNAL_ORG_CLAIM", "org"),
    envClaim: readClaimName(env, "SVC_OAUTH_EXTERNAL_ENV_CLAIM", "env"),
    orgs,
  };
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "1s,2s,5s" or "5s, 5m, 30m, 2h" -> milliseconds. */
export function parseDurations(name: string, raw: string): number[] {
  const parts = raw
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return parts.map((part) => {
    const match = DURATION.exec(part);
    if (!match) throw new ConfigError(name, `"${part}" is not a duration such as 500ms, 5s, 5m, 2h or 1d`);
    return Math.round(Number(match[1]) * DURATION_UNITS[match[2]]);
  });
}

/** The decisions' schedule: roughly 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 h). */
export const DEFAULT_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";

/** An origin (scheme, host, port; no path): SVC_PUBLIC_ORIGIN, or the listening address. */
function readPublicOrigin(env: Env, host: string, port: number): string {
  const raw = readUrl(env, "SVC_PUBLIC_ORIGIN", ["http:", "https:"]);
  if (!raw) return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const url = new URL(raw);
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || url.username) {
    throw new ConfigError("SVC_PUBLIC_ORIGIN", "must be an origin such as https://equivalency.example.edu (no path)");
  }
  return url.origin;
}

function readDuration(env: Env, name: string, fallback: string, minMs: number, maxMs: number): number {
  const value = parseDurations(name, env[name] || fallback)[0];
  if (value === undefined || value < minMs || value > maxMs) {
    throw new ConfigError(name, `must be a duration from ${minMs / 1000} s to ${maxMs / 3_600_000} h`);
  }
  return value;
}

function readDashboard(env: Env): Config["dashboard"] {
  const sessionIdleMs = readDuration(env, "SVC_DASHBOARD_SESSION_IDLE", "30m", 60_000, 7 * 86_400_000);
  const sessionAbsoluteMs = readDuration(env, "SVC_DASHBOARD_SESSION_ABSOLUTE", "12h", 60_000, 30 * 86_400_000);
  if (sessionAbsoluteMs < sessionIdleMs) {
    throw new ConfigError("SVC_DASHBOARD_SESSION_ABSOLUTE", "must not be shorter than SVC_DASHBOARD_SESSION_IDLE");
  }
  return {
    sessionIdleMs,
    sessionAbsoluteMs,
    tokenTtlSeconds: readInteger(env, "SVC_DASHBOARD_TOKEN_TTL_SECONDS", 300, 30, 3600),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.SVC_LOG_LEVEL ?? "info").toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError("SVC_LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}`);
  }
  const nodeEnv = env.NODE_ENV ?? "development";
  const dispatcher = (env.SVC_WEBHOOK_DISPATCHER || "inline") as Config["webhooks"]["dispatcher"];
  if (!["inline", "off"].includes(dispatcher)) throw new ConfigError("SVC_WEBHOOK_DISPATCHER", "must be inline or off");
  const host = env.HOST ?? "127.0.0.1";
  if (host.trim() === "") throw new ConfigError("HOST", "must not be empty");
  const databaseUrl = readUrl(env, "DATABASE_URL", ["postgresql:", "postgres:"]);
  const port = readInteger(env, "PORT", 3000, 0, 65535);
  return {
    port,
    host,
    dataDir: path.resolve(env.SVC_DATA_DIR || "./data"),
    embeddedSharedBuffersMb: readInteger(env, "SVC_EMBEDDED_SHARED_BUFFERS_MB", 16, 1, 16_384),
    databaseUrl,
    publicSandboxKey: readSandboxKey(env),
    logLevel,
    nodeEnv,
    bodyLimitBytes: readInteger(env, "SVC_BODY_LIMIT_BYTES", 2 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    rateLimit: {
      credential: readBucket(env, "SVC_RATE_LIMIT_BURST", 600, "SVC_RATE_LIMIT_REFILL_PER_SECOND", 10),
      organization: readBucket(env, "SVC_RATE_LIMIT_ORG_BURST", 1200, "SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND", 20),
      authFailures: readBucket(env, "SVC_AUTH_FAILURE_BURST", 20, "SVC_AUTH_FAILURE_REFILL_PER_SECOND", 0.1),
      tokenEndpoint: readBucket(env, "SVC_TOKEN_ENDPOINT_BURST", 20, "SVC_TOKEN_ENDPOINT_REFILL_PER_SECOND", 0.2),
      signIn: readBucket(env, "SVC_SIGN_IN_BURST", 20, "SVC_SIGN_IN_REFILL_PER_SECOND", 0.2),
      redis: readRedis(env),
    },
    trustProxy: readBoolean(env, "SVC_TRUST_PROXY", false),
    seedSandbox: readBoolean(env, "SVC_SEED_SANDBOX", true),
    clusterWorkers: readClusterWorkers(env, databaseUrl),
    credentialCacheMs: readInteger(env, "SVC_CREDENTIAL_CACHE_MS", 2000, 0, 3_600_000),
    metrics: readMetrics(env),
    webhooks: {
      retrySchedule: parseDurations(
        "SVC_WEBHOOK_RETRY_SCHEDULE",
        env.SVC_WEBHOOK_RETRY_SCHEDULE || DEFAULT_RETRY_SCHEDULE,
      ),
      allowPrivateTargets: readPrivateTargets(env, host),
      timeoutMs: readInteger(env, "SVC_WEBHOOK_TIMEOUT_MS", 5000, 100, 60_000),
      dispatcher,
      disableAfterMs:
        parseDurations("SVC_WEBHOOK_DISABLE_AFTER", env.SVC_WEBHOOK_DISABLE_AFTER || "5d")[0] ?? 5 * 86_400_000,
    },
    datasets: {
      stalePendingDays: readInteger(env, "SVC_DATASET_STALE_PENDING_DAYS", 90, 1, 36_500),
    },
    exports: {
      perOrganization: readInteger(env, "SVC_EXPORTS_PER_ORGANIZATION", 2, 1, 1000),
      databaseConnections: readInteger(env, "SVC_EXPORT_DATABASE_CONNECTIONS", 3, 1, 1000),
    },
    events: {
      retentionDays: readInteger(env, "SVC_EVENTS_RETENTION_DAYS", 30, 30, 36_500),
      maxStreamsPerOrganization: readInteger(env, "SVC_EVENTS_MAX_STREAMS_PER_ORGANIZATION", 5, 1, 10_000),
      maxStreamsPerAddress: readInteger(env, "SVC_EVENTS_MAX_STREAMS_PER_ADDRESS", 2, 1, 10_000),
      maxStreamMs: 1000 * readInteger(env, "SVC_EVENTS_MAX_STREAM_SECONDS", 3600, 10, 86_400),
      keepAliveMs: 1000 * readInteger(env, "SVC_EVENTS_KEEPALIVE_SECONDS", 15, 1, 3600),
      pollIntervalMs: readInteger(env, "SVC_EVENTS_POLL_MS", 250, 10, 60_000),
    },
    oauth: {
      issuer: readUrl(env, "SVC_OAUTH_ISSUER", ["http:", "https:"]),
      tokenTtlSeconds: readInteger(env, "SVC_OAUTH_TOKEN_TTL_SECONDS", 3600, 60, 86400),
      external: readExternalIssuer(env),
    },
    publicOrigin: readPublicOrigin(env, host, port),
    dashboard: readDashboard(env),
    secrets: readSecrets(env, databaseUrl, nodeEnv),
  };
}

/**
 * Private webhook targets are refused unless SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS says otherwise;
 * unset, a server listening on loopback (local development) may deliver to loopback, which only
 * reaches its own machine.
 */
function readPrivateTargets(env: Env, host: string): boolean | "loopback" {
  const raw = env.SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS;
  if (raw !== undefined && raw.trim() !== "") return readBoolean(env, "SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS", false);
  return isLoopbackHost(host) ? "loopback" : false;
}

function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[|\]$/g, "")
    .toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

function readClusterWorkers(env: Env, databaseUrl: string | null): number {
  const workers = readInteger(env, "SVC_CLUSTER_WORKERS", 1, 1, 64);
  if (workers > 1 && !databaseUrl)
    throw new ConfigError(
      "SVC_CLUSTER_WORKERS",
      `${workers} API processes need PostgreSQL (DATABASE_URL): the embedded database belongs to one process`,
    );
  return workers;
}

function readMetrics(env: Env): Config["metrics"] {
  const raw = env.SVC_METRICS_PORT;
  if (raw === undefined || raw === "") return null;
  const token = env.SVC_METRICS_TOKEN?.trim() || null;
  if (token !== null && !/^[\x21-\x7e]{16,}$/.test(token))
    throw new ConfigError("SVC_METRICS_TOKEN", "must be at least 16 printable characters without spaces");
  return {
    port: readInteger(env, "SVC_METRICS_PORT", 9464, 0, 65535),
    host: env.SVC_METRICS_HOST?.trim() || "127.0.0.1",
    token,
  };
}

/** For entry points: an invalid configuration stops the process (exit 78, EX_CONFIG) naming the variable. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
