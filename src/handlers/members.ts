// Members: the people of the caller's organization (admins' user tokens only).
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";
import type { MemberView } from "../services/users.ts";

export const listMembers: OperationHandler<"listMembers"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.users.listMembers(caller, page));
};

/** A member with the one-time link issued for them, as inviteMember and issueMemberSignInLink answer. */
function withLink({ member, signInUrl, expiresAt }: { member: MemberView; signInUrl: string; expiresAt: Date }) {
  return {
    status: 201 as const,
    body: { data: { ...member, signInUrl, signInUrlExpiresAt: expiresAt.toISOString() } },
  };
}

export const inviteMember: OperationHandler<"inviteMember"> = async (request, { caller, services }) =>
  withLink(await services.users.inviteMember(caller, request.body));

export const issueMemberSignInLink: OperationHandler<"issueMemberSignInLink"> = async (request, { caller, services }) =>
  withLink(await services.users.issueMemberSignInLink(caller, request.params.id));

export const updateMember: OperationHandler<"updateMember"> = async (request, { caller, services }) => {
  const data = await services.users.updateMember(caller, request.params.id, request.body);
  return { status: 200, body: { data } };
};
