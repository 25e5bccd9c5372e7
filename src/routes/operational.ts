// Routes outside the contract's operations: health, the public document and its
// reference page, and the OAuth token issuer. None needs a credential and none
// makes an outside request.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { Context, Next } from "koa";
import getRawBody from "raw-body";
import type { Database } from "../db/database.ts";
import { API_ROOT, SPEC_PATH } from "../pipeline/contract.ts";
import { type AccessTokens, OAuthError } from "../auth/oauth.ts";
import { SCOPES } from "../auth/credential.ts";
import { DATABASE_RETRY_AFTER_SECONDS, MalformedRequestError, ProblemError } from "../kernel/errors.ts";
import type { SharedStore } from "../auth/rate-limiter.ts";
import { unstorableFlaw } from "../pipeline/unstorable-text.ts";
import { projectPath } from "../kernel/project-root.ts";

const SPEC_YAML_PATH = projectPath("openapi.yaml");
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const SWAGGER_ASSETS = new Set([
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "swagger-ui-standalone-preset.js",
  "favicon-32x32.png",
]);
const ASSET_TYPES: Record<string, string> = { ".css": "text/css", ".js": "text/javascript", ".png": "image/png" };

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Course and Equivalency Repository API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#reference", validatorUrl: null, deepLinking: true });
  </script>
</body>
</html>`;

export interface OperationalDependencies {
  database: Database;
  accessTokens: AccessTokens;
  /** Counts a token request against its client address; throws the 429 when the address's bucket is empty. */
  throttleTokenRequest(ctx: Context): Promise<void>;
  /** The shared rate-limit store (Redis) when configured, reported by /readyz. */
  redis?: SharedStore | null;
}

/** How long /readyz waits for the database before calling it unreachable. */
const READY_TIMEOUT_MS = 2_000;

function withinTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function operationalRoutes(deps: OperationalDependencies) {
  const specJson = fs.readFileSync(SPEC_PATH, "utf8");
  const specYaml = fs.readFileSync(SPEC_YAML_PATH, "utf8");

  const routes: Record<string, (ctx: Context) => Promise<void> | void> = {
    // Where a person who opens the server's address in a browser goes next.
    "GET /": (ctx) => {
      ctx.body = {
        service: "Course and Equivalency Repository",
        docs: "/docs",
        api: API_ROOT,
        openapi: `${API_ROOT}/openapi.json`,
        health: "/healthz",
        tokenEndpoint: "/oauth/token",
      };
    },
    "GET /healthz": (ctx) => {
      ctx.body = { status: "ok" };
    },
    // Ready when the database answers. Redis, when configured, is reported but does not
    // make the process unready: without it requests are counted in process memory.
    "GET /readyz": async (ctx) => {
      const [database, redis] = await Promise.all([
        withinTimeout(deps.database.ping(), READY_TIMEOUT_MS).then(
          () => "ok" as const,
          () => "unreachable" as const,
        ),
        deps.redis ? deps.redis.ping().then((up) => (up ? ("ok" as const) : ("unreachable" as const))) : null,
      ]);
      const checks = {
        database: { kind: deps.database.kind, status: database },
        ...(deps.redis ? { redis: { at: deps.redis.where, status: redis, required: false } } : {}),
      };
      if (database !== "ok") {
        throw new ProblemError("service-unavailable", "The database is not reachable.", {
          headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
          extensions: { checks } as never,
        });
      }
      ctx.body = { status: "ok", database: deps.database.kind, checks };
    },
    "GET /api/v1/openapi.json": (ctx) => {
      ctx.type = "application/json";
      ctx.body = specJson;
    },
    "GET /api/v1/openapi.yaml": (ctx) => {
      ctx.type = "application/yaml";
      ctx.body = specYaml;
    },
    "GET /docs": (ctx) => {
      ctx.type = "text/html";
      ctx.body = DOCS_PAGE;
    },
    "GET /.well-known/jwks.json": (ctx) => {
      ctx.body = deps.accessTokens.jwks;
    },
    "GET /.well-known/oauth-authorization-server": (ctx) => {
      const issuer = deps.accessTokens.issuer;
      ctx.body = {
        issuer,
        token_endpoint: `${issuer}/oauth/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        grant_types_supported: ["client_credentials"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        scopes_supported: [...SCOPES],
        response_types_supported: ["token"],
      };
    },
    "POST /oauth/token": async (ctx) => {
      await deps.throttleTokenRequest(ctx);
      const form = await readForm(ctx);
      if (form.get("grant_type") !== "client_credentials") {
        throw new OAuthError("unsupported_grant_type", "Only grant_type=client_credentials is supported.");
      }
      const { clientId, clientSecret } = clientCredentials(ctx, form);
      ctx.set("Cache-Control", "no-store");
      ctx.body = await deps.accessTokens.issue(clientId, clientSecret, form.get("scope") ?? undefined);
    },
  };

  return async function operational(ctx: Context, next: Next) {
    const route = routes[`${ctx.method} ${ctx.path}`];
    if (route) {
      ctx.state.route = `${ctx.method} ${ctx.path}`;
      return route(ctx);
    }
    if (ctx.method === "GET" && ctx.path.startsWith("/docs/assets/")) return serveAsset(ctx);
    const known = Object.keys(routes).filter((key) => key.endsWith(` ${ctx.path}`));
    if (known.length) {
      const allowed = known.map((key) => key.split(" ")[0]);
      throw new ProblemError("method-not-allowed", `${ctx.method} is not allowed on ${ctx.path}.`, {
        headers: { Allow: allowed.join(", ") },
        extensions: { allowed },
      });
    }
    return next();
  };
}

function serveAsset(ctx: Context) {
  const name = ctx.path.slice("/docs/assets/".length);
  if (!SWAGGER_ASSETS.has(name)) throw new ProblemError("not-found", `No asset ${name}.`);
  ctx.type = ASSET_TYPES[path.extname(name)];
  ctx.set("Cache-Control", "public, max-age=86400");
  ctx.body = fs.createReadStream(path.join(SWAGGER_UI_DIR, name));
}

async function readForm(ctx: Context): Promise<URLSearchParams> {
  const type = ctx.get("content-type").split(";")[0].trim().toLowerCase();
  const text = await getRawBody(ctx.req, { limit: 16 * 1024, encoding: "utf8" });
  if (type === "application/x-www-form-urlencoded") return decodeForm(text);
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new MalformedRequestError("The token request body is not valid JSON.");
    }
    const fields = Object.entries(
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {},
    );
    const notText = fields.find(([, value]) => typeof value !== "string");
    if (notText) throw new OAuthError("invalid_request", `The token request field ${notText[0]} must be a string.`);
    // Before URLSearchParams, which would turn a lone surrogate into U+FFFD.
    rejectUnstorable(fields.flat() as string[]);
    return new URLSearchParams(fields as [string, string][]);
  }
  throw new ProblemError("unsupported-media-type", "Token requests must be application/x-www-form-urlencoded.");
}

/**
 * URLSearchParams quietly keeps malformed percent-encoding ("%ZZ") as text and
 * turns invalid UTF-8 into U+FFFD; a token request that is not well-formed is
 * refused instead (RFC 6749 §5.2 invalid_request).
 */
function decodeForm(text: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const separator = pair.indexOf("=");
    const [name, value] = separator < 0 ? [pair, ""] : [pair.slice(0, separator), pair.slice(separator + 1)];
    const decoded = [percentDecoded(name.replace(/\+/g, " ")), percentDecoded(value.replace(/\+/g, " "))] as const;
    rejectUnstorable(decoded);
    form.append(...decoded);
  }
  return form;
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new OAuthError("invalid_request", "The token request holds malformed percent-encoding.");
  }
}

/** PostgreSQL cannot compare U+0000 or a lone surrogate, and no client id, secret or scope holds one. */
function rejectUnstorable(texts: Iterable<string>): void {
  for (const text of texts) {
    const flaw = unstorableFlaw(text);
    if (flaw) throw new OAuthError("invalid_request", `Each field of the token request ${flaw}.`);
  }
}

function clientCredentials(ctx: Context, form: URLSearchParams): { clientId: string; clientSecret: string } {
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.get("authorization"));
  if (basic) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const separator = decoded.indexOf(":");
    if (separator > 0) {
      const clientId = percentDecoded(decoded.slice(0, separator));
      const clientSecret = percentDecoded(decoded.slice(separator + 1));
      rejectUnstorable([clientId, clientSecret]);
      return { clientId, clientSecret };
    }
  }
  const clientId = form.get("client_id");
  const clientSecret = form.get("client_secret");
  if (!clientId || !clientSecret) {
    throw new OAuthError("invalid_client", "Authenticate the client with HTTP Basic or client_id and client_secret.");
  }
  return { clientId, clientSecret };
}
