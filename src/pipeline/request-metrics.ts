// Request metrics: counts and latency per operationId and status, and the
// requests refused by a rate limit (served by src/process/metrics-server.ts).
import type { Context, Next } from "koa";
import { bucketLabel, httpDuration, httpRequests, rateLimitRejections } from "../kernel/metrics.ts";

/** Counts every request once it is answered (outermost middleware, so it sees the final status). */
export function requestMetrics() {
  return async function measure(ctx: Context, next: Next) {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const labels = {
        operation: (ctx.state.operationId as string | undefined) ?? routeOf(ctx) ?? "unmatched",
        status: String(ctx.status),
      };
      httpRequests.inc(labels);
      httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

/** A route outside the contract, as its template: "GET /healthz", "GET /docs/assets/:name". */
function routeOf(ctx: Context): string | undefined {
  const template = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return template === undefined ? undefined : `${ctx.method} ${String(template)}`;
}

/** A 429: which bucket was empty. */
export function countRateLimited(subject: string): void {
  rateLimitRejections.inc({ bucket: bucketLabel(subject) });
}
