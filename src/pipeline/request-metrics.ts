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
        operation:
          (ctx.state.operationId as string | undefined) ?? (ctx.state.route as string | undefined) ?? "unmatched",
        status: String(ctx.status),
      };
      httpRequests.inc(labels);
      httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

/** A 429: which bucket was empty. */
export function countRateLimited(subject: string): void {
  rateLimitRejections.inc({ bucket: bucketLabel(subject) });
}
