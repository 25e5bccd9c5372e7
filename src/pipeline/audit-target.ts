// What an audit entry names as the target of a change: the kind of record, from the operation's
// path, and its id, from the path parameters or the answer.

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
export function auditTarget(
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
