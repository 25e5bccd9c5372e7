// Organizations: the caller's own organization and what it stewards.
import { describeCredential } from "../services/organizations.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import type { OperationHandler } from "./types.ts";

export const getCurrentOrganization: OperationHandler<"getCurrentOrganization"> = async (request, { caller: credential, services }) => {
  const page = pageParams(request.query);
  const { view, total } = await describeCredential(services.adminDependencies.database.prisma, credential, page);
  return {
    status: 200,
    body: { data: view, pagination: pagination(page, total, view.stewardship.institutionIds.length) },
    headers: listHeaders(request.url, page, total),
  };
};
