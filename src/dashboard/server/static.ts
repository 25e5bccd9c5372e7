// Serves the built dashboard (dist/dashboard/, from scripts/build-dashboard.ts) at /dashboard:
// hashed assets under /dashboard/assets/ with a year-long immutable cache, and index.html for
// every other path (the app routes in the browser), never cached. Every answer carries a
// Content-Security-Policy that allows only the service's own origin. /dashboard/auth/* belongs
// to the sign-in routes.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Context } from "koa";
import type { Router } from "@koa/router";
import { projectPath } from "../../kernel/project-root.ts";

export const DEFAULT_DASHBOARD_DIRECTORY = projectPath("dist", "dashboard");

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

const ASSET = /^\/dashboard\/assets\/([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)$/;

export function securityHeaders(ctx: Context) {
  ctx.set("Content-Security-Policy", DASHBOARD_CSP);
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Referrer-Policy", "same-origin");
  ctx.set("X-Frame-Options", "DENY");
}

export async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Every dashboard page but the sign-in routes (/dashboard/auth/…, session-routes.ts and sso/). */
const DASHBOARD_PAGE = /^\/dashboard(?:\/(?!auth\/).*)?$/;

/** Adds GET (and HEAD) of the dashboard's pages and assets to `router`, served from `directory`. */
export function dashboardPages(router: Router, directory = DEFAULT_DASHBOARD_DIRECTORY): void {
  router.get(DASHBOARD_PAGE, async function serveDashboard(ctx: Context) {
    const { path: urlPath } = ctx;
    securityHeaders(ctx);
    const asset = ASSET.exec(urlPath);
    if (asset) {
      const body = await readOrNull(path.join(directory, "assets", asset[1]));
      if (!body) {
        ctx.status = 404;
        ctx.type = "text/plain; charset=utf-8";
        ctx.body = "Not found";
        return;
      }
      ctx.set("Cache-Control", "public, max-age=31536000, immutable");
      ctx.type = CONTENT_TYPES[path.extname(asset[1])] ?? "application/octet-stream";
      ctx.body = body;
      return;
    }
    if (urlPath.startsWith("/dashboard/assets/")) {
      ctx.status = 404;
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = "Not found";
      return;
    }
    const index = await readOrNull(path.join(directory, "index.html"));
    ctx.set("Cache-Control", "no-cache");
    ctx.type = "text/html; charset=utf-8";
    if (!index) {
      ctx.status = 503;
      ctx.body =
        '<!doctype html><html lang="en"><title>Dashboard not built</title>' +
        "<p>The dashboard has not been built. Run <code>npm run build:dashboard</code> (it also runs after " +
        "<code>npm ci</code> and before <code>npm start</code>).</p></html>";
      return;
    }
    ctx.body = index;
  });
}
