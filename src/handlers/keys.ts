// Keys: API key management for the calling organization.
import { API_ROOT } from "../kernel/document.ts";
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listKeys: OperationHandler<"listKeys"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.keys.listKeys(caller, page));
};

export const createKey: OperationHandler<"createKey"> = async (request, { caller, services }) => {
  const { view, key } = await services.keys.createKey(caller, request.body ?? {});
  return { status: 201, body: { data: { ...view, key } }, headers: { Location: `${API_ROOT}/keys/${view.id}` } };
};

export const revokeKey: OperationHandler<"revokeKey"> = async (request, { caller, services }) => {
  await services.keys.revokeKey(caller, request.params.id);
  return { status: 204, body: undefined };
};
