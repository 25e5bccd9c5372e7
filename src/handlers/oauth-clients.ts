// OAuth clients of the calling organization in the caller's environment.
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listOAuthClients: OperationHandler<"listOAuthClients"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.oauthClients.listCallerOAuthClients(caller, page));
};

export const createOAuthClient: OperationHandler<"createOAuthClient"> = async (request, { caller, services }) => {
  const { view, clientSecret } = await services.oauthClients.createCallerOAuthClient(caller, request.body ?? {});
  return { status: 201, body: { data: { ...view, clientSecret } } };
};

export const revokeOAuthClient: OperationHandler<"revokeOAuthClient"> = async (request, { caller, services }) => {
  await services.oauthClients.revokeCallerOAuthClient(caller, request.params.id);
  return { status: 204, body: undefined };
};
