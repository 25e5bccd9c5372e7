// Keys: API key management for the calling organization.
import { listResponse, pageParams } from "../http/paging.ts";
import type { OperationHandler } from "./types.ts";

export const listKeys: OperationHandler<"listKeys"> = async (request, { credential, services }) => {
  const page = pageParams(request.query);
  return listResponse(request.url, page, await services.keys.listKeys(credential, page));
};

export const createKey: OperationHandler<"createKey"> = async (request, { credential, services }) => {
  const { view, key } = await services.keys.createKey(credential, request.body ?? {});
  return { status: 201, body: { data: { ...view, key } } };
};

export const revokeKey: OperationHandler<"revokeKey"> = async (request, { credential, services }) => {
  await services.keys.revokeKey(credential, request.params.id);
  return { status: 204, body: undefined };
};
