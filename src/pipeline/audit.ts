// Every change made through the API has its audit entries, written by the services inside the
// change's own transaction (services/audit.ts, auditChange). The pipeline runs each operation that
// may change something as a change of its caller (the origin the services read: caller,
// operationId, the service's request id and the client's X-Request-Id) and, after a successful
// change, checks that the operation did append an entry: one that did not is a gap in the log,
// reported loudly. A read (a GET, or a POST marked `x-read-only`) changes nothing and owes no
// entry, so it runs outside any origin and pays nothing for one.
import type { Operation } from "openapi-backend";
import type { OperationId, OperationRequest, RequestContext } from "../handlers/types.ts";
import { runAsChange } from "../services/change-origin.ts";
import type { OperationResponse } from "./respond.ts";

export class UnauditedChangeError extends Error {}

/** The request's ids as the audit entries name them. */
export interface RequestIds {
  serviceRequestId: string;
  clientRequestId: string | null;
}

export type AnyHandler = (
  request: OperationRequest<OperationId>,
  context: RequestContext,
) => Promise<OperationResponse>;

export async function runAudited(
  operation: Operation,
  request: OperationRequest<OperationId>,
  context: RequestContext,
  ids: RequestIds,
  handler: AnyHandler,
  strict: boolean,
): Promise<OperationResponse> {
  if (isRead(operation)) return handler(request, context);
  const operationId = operation.operationId as string;
  const origin = {
    actor: context.caller,
    operationId,
    requestId: ids.serviceRequestId,
    clientRequestId: ids.clientRequestId,
  };
  const { result, entries, unchanged } = await runAsChange(origin, () => handler(request, context));
  if (entries === 0 && !unchanged && isChange(request.query, result)) {
    const message = `${operationId} answered ${result.status} without writing an audit entry`;
    context.log.error({ operationId }, message);
    if (strict) throw new UnauditedChangeError(message);
  }
  return result;
}

/** A GET, or a POST marked `x-read-only` that asks a question in its body. */
function isRead(operation: Operation): boolean {
  return operation.method === "get" || (operation as { "x-read-only"?: boolean })["x-read-only"] === true;
}

/** A write that succeeded and may have changed something: not a dry run or a replayed idempotent answer. */
function isChange(query: unknown, result: OperationResponse): boolean {
  const { status, headers } = result;
  if (status < 200 || status >= 300) return false;
  if (headers?.["Idempotent-Replayed"] === "true") return false;
  const dryRun = (query as Record<string, unknown> | undefined)?.dryRun;
  return dryRun !== true && dryRun !== "true";
}
