// The audit log's entry for a change made through the API: one per successful write (not a read,
// a dry run or a replayed idempotent answer), written right after it, outside the change's
// transaction. A failure to write it is logged as an error, and the change's answer stands.
// The entry names the record from the operation's path and the answer.
import type { Operation } from "openapi-backend";
import type { RequestContext } from "../handlers/types.ts";
import type { OperationResponse } from "./respond.ts";

export async function recordChange(
  operation: Operation,
  request: { params: Record<string, unknown>; query: unknown },
  result: OperationResponse,
  context: RequestContext,
): Promise<void> {
  if (!isChange(operation, request.query, result)) return;
  try {
    await context.services.audit.recordChange(context.caller, {
      operationId: operation.operationId as string,
      target: auditTarget(operation.path, request.params, result.body),
      requestId: context.requestId,
    });
  } catch (error) {
    context.log.error({ err: error }, "audit entry could not be written");
  }
}

/**
 * A write that succeeded and changed something: not a read (a GET, or a POST marked `x-read-only`
 * that asks a question in its body), a dry run, or a replayed idempotent answer.
 */
function isChange(operation: Operation, query: unknown, result: OperationResponse): boolean {
  const { status, headers } = result;
  if (operation.method === "get" || (operation as { "x-read-only"?: boolean })["x-read-only"] === true) return false;
  if (status < 200 || status >= 300) return false;
  if (headers?.["Idempotent-Replayed"] === "true") return false;
  const dryRun = (query as Record<string, unknown> | undefined)?.dryRun;
  return dryRun !== true && dryRun !== "true";
}

const RECORD_KINDS: Record<string, string> = {
  keys: "key",
  "oauth-clients": "oauth_client",
  webhooks: "webhook",
  members: "member",
  courses: "course",
  equivalencies: "equivalency",
  datasets: "dataset",
};

function idOf(value: unknown): string | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : null;
}

/** `/webhooks/{id}/deliveries/{deliveryId}/redeliver` names the delivery; other paths their first collection. */
function auditTarget(
  operationPath: string,
  params: Record<string, unknown>,
  body: unknown,
): { type: string | null; id: string | null } {
  if (operationPath.includes("{deliveryId}")) {
    return { type: "delivery", id: typeof params.deliveryId === "string" ? params.deliveryId : null };
  }
  const collection = operationPath.split("/")[1] ?? "";
  const type = RECORD_KINDS[collection] ?? (collection || null);
  if (typeof params.id === "string") return { type, id: params.id };
  const data = (body as { data?: unknown } | null)?.data;
  if (Array.isArray(data)) return { type, id: data.length === 1 ? idOf(data[0]) : null };
  return { type, id: idOf(data) };
}
