// The one place where errors become responses: every failure is answered as
// application/problem+json carrying the request id, and every request is logged
// once, without credentials.
import type { Context, Next } from "koa";
import type { Logger } from "../kernel/logger.ts";
import { toProblemError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { logRequest, requestLog, type RequestState } from "./request-log.ts";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function problemBoundary(log: Logger) {
  return async function boundary(ctx: Context, next: Next) {
    const started = performance.now();
    const incoming = ctx.get("x-request-id");
    // The service names every request itself (the audit log keeps that id, which no client can
    // choose); a safe X-Request-Id from the client is echoed and kept beside it.
    const serviceRequestId = newId("req");
    const clientRequestId = incoming !== "" && CLIENT_REQUEST_ID.test(incoming) ? incoming : null;
    const requestId = clientRequestId ?? serviceRequestId;
    const state = ctx.state as RequestState;
    state.requestId = requestId;
    state.serviceRequestId = serviceRequestId;
    state.clientRequestId = clientRequestId;
    ctx.set("X-Request-Id", requestId);
    try {
      await next();
    } catch (error) {
      const problem = toProblemError(error);
      if (problem.status >= 500) requestLog(ctx).error({ err: error }, "request failed");
      // Headers set before the failure (rate limits) stay; the body is replaced.
      ctx.status = problem.status;
      for (const name in problem.headers) ctx.set(name, problem.headers[name]);
      ctx.body = problem.toProblem(requestId);
      ctx.type = "application/problem+json";
    }
    logRequest(ctx, log, ctx.status, Math.round((performance.now() - started) * 10) / 10);
  };
}
