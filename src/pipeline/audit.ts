// Every change made through the API has its audit entries, written by the services inside the
// change's own transaction (services/audit.ts, auditChange). The pipeline runs each operation as a
// change of its caller (the origin the services read: caller, operationId, the service's request
// id and the client's X-Request-Id) and, after a successful change, checks that the operation
// did append an entry: one that did not is a gap in the log, reported loudly.
import type { Operation } from "openapi-backend";
import type { RequestContext } from "../handlers/types.ts";
import { runAsChange } from "../services/change-origin.ts";
import type { OperationResponse } from "./respond.ts";

export class UnauditedChangeError extends Error {}

export async function runAudited(
  operation: Operation,
  request: { query: unknown },
  context: RequestContext,
  requestIds: { requestId: string; clientRequestId: string | null },
  handle: () => Promise<OperationResponse>,
  strict: boolean,
): Promise<OperationResponse> {
  const operationId = operation.operationId as string;
  const { result, entries, unchanged } = await runAsChange(
    { actor: context.caller, operationId, ...requestIds },
    handle,
  );
  if (entries === 0 && !unchanged && isChange(operation, request.query, result)) {
    const message = `${operationId} answered ${result.status} without writing an audit entry`;
    context.log.error({ operationId }, message);
    if (strict) throw new UnauditedChangeError(message);
  }
  return result;
}

/**
 * A write that succeeded and may have changed something: not a read (a GET, or a POST marked
 * `x-read-only` that asks a question in its body), a dry run, or a replayed idempotent answer.
 */
function isChange(operation: Operation, query: unknown, result: OperationResponse): boolean {
  const { status, headers } = result;
  if (operation.method === "get" || (operation as { "x-read-only"?: boolean })["x-read-only"] === true) return false;
  if (status < 200 || status >= 300) return false;
  if (headers?.["Idempotent-Replayed"] === "true") return false;
  const dryRun = (query as Record<string, unknown> | undefined)?.dryRun;
  return dryRun !== true && dryRun !== "true";
}
