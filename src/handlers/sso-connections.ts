// The single sign-on connections of the caller's organization, read-only (admins' user tokens only).
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listSsoConnections: OperationHandler<"listSsoConnections"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.sso.listSsoConnections(caller, page));
};
