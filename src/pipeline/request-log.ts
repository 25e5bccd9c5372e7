// A request's logger, made only when something logs: the request line is written with its fields
// directly, so a request that logs nothing else pays for no child logger (pino's child copies and
// serialises its bindings). The base logger sits on the app's context prototype, set once.
import type Koa from "koa";
import type { Context } from "koa";
import type { Logger } from "../kernel/logger.ts";

declare module "koa" {
  interface DefaultContext {
    /** The app's logger (installRequestLog). */
    baseLog?: Logger;
  }
}

export function installRequestLog(koa: Koa, log: Logger): void {
  koa.context.baseLog = log;
}

/** What every line about a request carries: its id and, once known, the caller and the operation. */
export function requestFields(ctx: Context): Record<string, unknown> {
  const fields: Record<string, unknown> = { requestId: ctx.state.requestId };
  if (ctx.state.serviceRequestId && ctx.state.serviceRequestId !== ctx.state.requestId)
    fields.serviceRequestId = ctx.state.serviceRequestId;
  const credentialId = (ctx.state.credential as { id?: string } | undefined)?.id;
  if (credentialId) fields.credentialId = credentialId;
  if (ctx.state.operationId) fields.operationId = ctx.state.operationId;
  return fields;
}

/** The request's own logger, made on first use and kept for the rest of the request. */
export function requestLog(ctx: Context): Logger {
  let log = ctx.state.log as Logger | undefined;
  if (!log) {
    log = (ctx.baseLog as Logger).child(requestFields(ctx));
    ctx.state.log = log;
  }
  return log;
}
