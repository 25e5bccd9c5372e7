// Institutions: read-only reference records keyed by IPEDS unit id.
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";
import { institutionIdOf } from "../kernel/ids.ts";

export const listInstitutions: OperationHandler<"listInstitutions"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  const { state, type, source, q } = request.query;
  return listResponse(
    request.url,
    page,
    await services.institutions.listInstitutions(caller, { state, type, source, q }, page),
  );
};

export const getInstitution: OperationHandler<"getInstitution"> = async (request, { caller, services }) => ({
  status: 200,
  body: { data: await services.institutions.getInstitution(caller, institutionIdOf(request.params.id)) },
});
