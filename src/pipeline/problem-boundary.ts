// The one place where errors become responses: every failure is answered as
// application/problem+json carrying the request id, and every request is logged
// once, without credentials.
import type { Context, Next } from "koa";
import type { Logger } from "../kernel/logger.ts";
import { toProblemError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { requestFields, requestLog } from "./request-log.ts";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function problemBoundary(log: Logger) {
  return async function boundary(ctx: Context, next: Next) {
    const started = process.hrtime.bigint();
    const incoming = ctx.get("x-request-id");
    // The service names every request itself (the audit log keeps that id, which no client can
    // choose); a safe X-Request-Id from the client is echoed and kept beside it.
    const serviceRequestId = newId("req");
    const clientRequestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : null;
    const requestId = clientRequestId ?? serviceRequestId;
    ctx.state.requestId = requestId;
    ctx.state.serviceRequestId = serviceRequestId;
    ctx.state.clientRequestId = clientRequestId;
    ctx.set("X-Request-Id", requestId);
    try {
      await next();
    } catch (error) {
      const problem = toProblemError(error);
      if (problem.status >= 500) requestLog(ctx).error({ err: error }, "request failed");
      // Headers set before the failure (rate limits) stay; the body is replaced.
      ctx.status = problem.status;
      for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
      ctx.body = problem.toProblem(requestId);
      ctx.type = "application/problem+json";
    }
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const line = {
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      durationMs: Math.round(durationMs * 10) / 10,
    };
    if (ctx.state.log) (ctx.state.log as Logger).info(line, "request");
    else log.info({ ...requestFields(ctx), ...line }, "request");
  };
}
