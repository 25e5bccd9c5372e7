// What a handler is given, built once per request as two objects of fixed shape: no closures, and
// the request's URL parsed only when a handler asks for it (lists do, for their Link headers; a
// read by id never does).
import type { Context } from "koa";
import { clientAddressKey } from "../auth/client-address.ts";
import type { ApiCredential } from "../auth/credential.ts";
import type { OperationId, OperationRequest, RequestContext } from "../handlers/types.ts";
import type { Logger } from "../kernel/logger.ts";
import type { Services } from "../services/index.ts";
import { requestLog } from "./request-log.ts";

export class PipelineContext implements RequestContext {
  constructor(
    private readonly ctx: Context,
    readonly caller: ApiCredential,
    readonly requestId: string,
    readonly services: Services,
  ) {}

  /** The client's address as rate limits count it, made on first use. */
  get clientAddress(): string {
    return clientAddressKey(this.ctx.ip);
  }

  /** The request's child logger, made on first use (request-log.ts). */
  get log(): Logger {
    return requestLog(this.ctx);
  }
}

export class OperationInput implements OperationRequest<OperationId> {
  private parsedUrl?: URL;

  constructor(
    readonly params: never,
    readonly query: never,
    readonly body: never,
    readonly headers: Record<string, string | undefined>,
    private readonly originalUrl: string,
  ) {}

  get url(): URL {
    this.parsedUrl ??= new URL(this.originalUrl, "http://localhost");
    return this.parsedUrl;
  }
}
