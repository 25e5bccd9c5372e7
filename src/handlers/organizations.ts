// Organizations: the caller's own organization and what it stewards.
import { listHeaders, pageParams, pagination } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const getCurrentOrganization: OperationHandler<"getCurrentOrganization"> = async (
  request,
  { caller, services },
) => {
  const page = pageParams(request, { caller, services });
  const { view, total, next } = await services.organizations.getCurrentOrganization(caller, page);
  // Not a list of items: the page is of view.stewardship.institutionIds, inside one organization.
  const paging = pagination(page, { total, next }, view.stewardship.institutionIds.length);
  return {
    status: 200,
    body: { data: view, pagination: paging },
    headers: listHeaders(request.url, page, paging),
  };
};
