// The audit log of the caller's organization (admins' user tokens only).
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listAuditEvents: OperationHandler<"listAuditEvents"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  const { since, actorId, operationId } = request.query;
  return listResponse(
    request.url,
    page,
    await services.audit.listAuditEvents(caller, { since, actorId, operationId }, page),
  );
};
