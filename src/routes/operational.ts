// The service's own routes outside the contract's operations: where to go next, health and
// readiness, the public document (also as its OpenAPI 3.0.3 rendition) and its reference page.
// None needs a credential and none makes an outside request.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { Router, RouterContext } from "@koa/router";
import type { Database } from "../db/database.ts";
import { API_ROOT, SPEC_30_PATH, SPEC_30_YAML_PATH, SPEC_PATH, SPEC_YAML_PATH } from "../kernel/document.ts";
import { DATABASE_RETRY_AFTER_SECONDS, ProblemError } from "../kernel/errors.ts";
import type { SharedStore } from "../auth/rate-limiter.ts";

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

/** Adds the routes to `router`. */
export function operationalRoutes(router: Router, deps: OperationalDependencies): void {
  // Where a person who opens the server's address in a browser goes next.
  router.get("/", (ctx) => {
    ctx.body = {
      service: "Course and Equivalency Repository",
      docs: "/docs",
      api: API_ROOT,
      openapi: `${API_ROOT}/openapi.json`,
      openapi30: `${API_ROOT}/openapi-3.0.json`,
      health: "/healthz",
      tokenEndpoint: "/oauth/token",
    };
  });
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  // Ready when the database answers. Redis, when configured, is reported but does not
  // make the process unready: without it requests are counted in process memory.
  router.get("/readyz", async (ctx) => {
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
  });
  // The documents are read from disk at each request rather than held: 1.6 MB of text that few
  // requests ask for would otherwise stay in the heap for the life of the process.
  router.get(`${API_ROOT}/openapi.json`, (ctx) => {
    ctx.type = "application/json";
    ctx.body = fs.createReadStream(SPEC_PATH);
  });
  router.get(`${API_ROOT}/openapi.yaml`, (ctx) => {
    ctx.type = "application/yaml";
    ctx.body = fs.createReadStream(SPEC_YAML_PATH);
  });
  // The same contract in OpenAPI 3.0.3, for client generators that read 3.0 better than 3.1.
  router.get(`${API_ROOT}/openapi-3.0.json`, (ctx) => {
    ctx.type = "application/json";
    ctx.body = fs.createReadStream(SPEC_30_PATH);
  });
  router.get(`${API_ROOT}/openapi-3.0.yaml`, (ctx) => {
    ctx.type = "application/yaml";
    ctx.body = fs.createReadStream(SPEC_30_YAML_PATH);
  });
  router.get("/docs", (ctx) => {
    ctx.type = "text/html";
    ctx.body = DOCS_PAGE;
  });
  router.get("/docs/assets/:name", serveAsset);
}

function serveAsset(ctx: RouterContext) {
  const name = ctx.params.name ?? "";
  if (!SWAGGER_ASSETS.has(name)) throw new ProblemError("not-found", `No asset ${name}.`);
  ctx.type = ASSET_TYPES[path.extname(name)];
  ctx.set("Cache-Control", "public, max-age=86400");
  ctx.body = fs.createReadStream(path.join(SWAGGER_UI_DIR, name));
}
