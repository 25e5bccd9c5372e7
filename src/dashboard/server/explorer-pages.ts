// Serves the public transfer explorer (dist/explorer/, from scripts/build-explorer.ts) at /explore,
// without sign-in: hashed assets under /explore/assets/ with a year-long immutable cache, and
// index.html for /explore and every path below it (/explore/{from}/{to} is a pair's permalink; the
// app reads it in the browser). The same Content-Security-Policy as the dashboard: the service's
// own origin only. The explorer reads its data through the API's public Explorer operations.
import path from "node:path";
import type { Context } from "koa";
import type { Router } from "@koa/router";
import { projectPath } from "../../kernel/project-root.ts";
import { CONTENT_TYPES, readOrNull, securityHeaders } from "./static.ts";

export const DEFAULT_EXPLORER_DIRECTORY = projectPath("dist", "explorer");

const ASSET = /^\/explore\/assets\/([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)$/;
const EXPLORER_PAGE = /^\/explore(?:\/.*)?$/;

function notFound(ctx: Context) {
  ctx.status = 404;
  ctx.type = "text/plain; charset=utf-8";
  ctx.body = "Not found";
}

/** Adds GET (and HEAD) of the explorer's page and assets to `router`, served from `directory`. */
export function explorerPages(router: Router, directory = DEFAULT_EXPLORER_DIRECTORY): void {
  router.get(EXPLORER_PAGE, async function serveExplorer(ctx: Context) {
    securityHeaders(ctx);
    const asset = ASSET.exec(ctx.path);
    if (asset) {
      const body = await readOrNull(path.join(directory, "assets", asset[1]));
      if (!body) return notFound(ctx);
      ctx.set("Cache-Control", "public, max-age=31536000, immutable");
      ctx.type = CONTENT_TYPES[path.extname(asset[1])] ?? "application/octet-stream";
      ctx.body = body;
      return;
    }
    if (ctx.path.startsWith("/explore/assets/")) return notFound(ctx);
    const index = await readOrNull(path.join(directory, "index.html"));
    ctx.set("Cache-Control", "no-cache");
    ctx.type = "text/html; charset=utf-8";
    if (!index) {
      ctx.status = 503;
      ctx.body =
        '<!doctype html><html lang="en"><title>Explorer not built</title>' +
        "<p>The transfer explorer has not been built. Run <code>npm run build</code> (it also runs after " +
        "<code>npm ci</code> and before <code>npm start</code>).</p></html>";
      return;
    }
    ctx.body = index;
  });
}
