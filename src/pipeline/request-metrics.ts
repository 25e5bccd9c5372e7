// Request metrics: counts and latency per operationId and status, and the
// requests refused by a rate limit (served by src/process/metrics-server.ts).
import type { Context, Next } from "koa";
import { bucketLabel, rateLimitRejections, requestStats } from "../kernel/metrics.ts";

/** Counts every request once it is answered (outermost middleware, so it sees the final status). */
export function requestMetrics() {
  return async function measure(ctx: Context, next: Next) {
    // A double, not a BigInt: nothing allocated per request.
    const started = performance.now();
    try {
      await next();
    } finally {
      const operation = (ctx.state.operationId as string | undefined) ?? routeOf(ctx) ?? "unmatched";
      requestStats.record(operation, ctx.status, (performance.now() - started) / 1e3);
    }
  };
}

/** Labels of the routes outside the contract, made once each: "GET /healthz", "GET /docs/assets/:name". */
const routeLabels = new Map<string, Map<string | RegExp, string>>();

function routeOf(ctx: Context): string | undefined {
  const template = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  if (template === undefined) return undefined;
  let byTemplate = routeLabels.get(ctx.method);
  if (!byTemplate) {
    byTemplate = new Map();
    routeLabels.set(ctx.method, byTemplate);
  }
  let label = byTemplate.get(template);
  if (!label) {
    label = `${ctx.method} ${String(template)}`;
    byTemplate.set(template, label);
  }
  return label;
}

/** A 429: which bucket was empty. */
export function countRateLimited(subject: string): void {
  rateLimitRejections.inc({ bucket: bucketLabel(subject) });
}
