// Institutions: read-only reference records keyed by IPEDS unit id.
import { getInstitution as findInstitution, listInstitutions as findInstitutions } from "../services/institutions.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import type { OperationHandler } from "./types.ts";

export const listInstitutions: OperationHandler<"listInstitutions"> = async (request, { credential, services }) => {
  const page = pageParams(request.query);
  const { state, type, source, q } = request.query;
  const { items, total } = await findInstitutions(services.database.prisma, credential.environment, { state, type, source, q }, page);
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const getInstitution: OperationHandler<"getInstitution"> = async (request, { credential, services }) => ({
  status: 200,
  body: { data: await findInstitution(services.database.prisma, credential.environment, request.params.id) },
});
