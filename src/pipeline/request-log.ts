// A request's logger, made only when something logs: the request line is written with its fields
// directly, so a request that logs nothing else pays for no child logger (pino's child copies and
// serialises its bindings). The base logger sits on the app's context prototype, set once.
import type Koa from "koa";
import type { Context } from "koa";
import { symbols } from "pino";
import type { Logger } from "../kernel/logger.ts";

declare module "koa" {
  interface DefaultContext {
    /** The app's logger (installRequestLog). */
    baseLog?: Logger;
  }
}

/** What the pipeline keeps about a request in Koa's ctx.state, read by its log lines. */
export interface RequestState {
  requestId: string;
  /** The service's own id; differs from requestId when the client sent a safe X-Request-Id. */
  serviceRequestId: string;
  clientRequestId: string | null;
  operationId?: string;
  credential?: { id: string };
  log?: Logger;
}

export function installRequestLog(koa: Koa, log: Logger): void {
  koa.context.baseLog = log;
}

/** What every line about a request carries: its id and, once known, the caller and the operation. */
export function requestFields(ctx: Context): Record<string, unknown> {
  const state = ctx.state as RequestState;
  const fields: Record<string, unknown> = { requestId: state.requestId };
  if (state.serviceRequestId && state.serviceRequestId !== state.requestId)
    fields.serviceRequestId = state.serviceRequestId;
  const credentialId = state.credential?.id;
  if (credentialId) fields.credentialId = credentialId;
  if (state.operationId) fields.operationId = state.operationId;
  return fields;
}

/** The request's own logger, made on first use and kept for the rest of the request. */
export function requestLog(ctx: Context): Logger {
  const state = ctx.state as RequestState;
  let log = state.log;
  if (!log) {
    log = (ctx.baseLog as Logger).child(requestFields(ctx));
    state.log = log;
  }
  return log;
}

const INFO = 30;
const quoted = JSON.stringify;

/**
 * Writes the line that closes every request: pino's own line for `info`, with the request's fields
 * and then method, path, status and durationMs, in that order. Without a child logger it is written
 * from those fields straight into the logger's destination (the block buffer): pino would copy
 * them into an object, walk it for its redaction paths (none of these fields is one) and serialise
 * it key by key, a measurable share of a single read (docs/benchmarks.md).
 * test/unit/request-log.test.ts holds the two lines equal.
 */
export function logRequest(ctx: Context, base: Logger, status: number, durationMs: number): void {
  const state = ctx.state as RequestState;
  if (state.log) {
    state.log.info({ method: ctx.method, path: ctx.path, status, durationMs }, "request");
    return;
  }
  if (base.levelVal > INFO) return;
  const destination = (base as unknown as Record<symbol, { write(line: string): void; [key: symbol]: unknown }>)[
    symbols.streamSym
  ];
  // A multistream wants each line's level beside it: pino tells it, so pino writes those.
  if (destination[symbols.needsMetadataGsym] === true) {
    base.info({ ...requestFields(ctx), method: ctx.method, path: ctx.path, status, durationMs }, "request");
    return;
  }
  const logger = base as unknown as Record<symbol, unknown>;
  let line = `{"level":${INFO}${(logger[symbols.timeSym] as () => string)()}${logger[symbols.chindingsSym] as string},"requestId":${quoted(state.requestId)}`;
  if (state.serviceRequestId && state.serviceRequestId !== state.requestId)
    line += `,"serviceRequestId":${quoted(state.serviceRequestId)}`;
  const credentialId = state.credential?.id;
  if (credentialId) line += `,"credentialId":${quoted(credentialId)}`;
  if (state.operationId) line += `,"operationId":${quoted(state.operationId)}`;
  destination.write(
    `${line},"method":${quoted(ctx.method)},"path":${quoted(ctx.path)},"status":${status},"durationMs":${durationMs},"msg":"request"}\n`,
  );
}
