// Members: the people of the caller's organization (admins' user tokens only).
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listMembers: OperationHandler<"listMembers"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.users.listMembers(caller, page));
};

export const inviteMember: OperationHandler<"inviteMember"> = async (request, { caller, services }) => {
  const { member, signInUrl, expiresAt } = await services.users.inviteMember(caller, request.body);
  return { status: 201, body: { data: { ...member, signInUrl, signInUrlExpiresAt: expiresAt.toISOString() } } };
};

export const updateMember: OperationHandler<"updateMember"> = async (request, { caller, services }) => {
  const data = await services.users.updateMember(caller, request.params.id, request.body);
  return { status: 200, body: { data } };
};
