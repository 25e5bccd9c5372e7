// The public transfer explorer's operations (tag Explorer): no credential, one bucket per client
// address (the pipeline's admitPublic); each reads the environment its request names.
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listExplorerEnvironments: OperationHandler<"listExplorerEnvironments"> = async (
  _request,
  { services },
) => ({
  status: 200,
  body: await services.explorer.listExplorerEnvironments(),
});

export const searchExplorerInstitutions: OperationHandler<"searchExplorerInstitutions"> = async (request, context) => {
  const page = pageParams(request, context);
  const { environment = "live", q, state } = request.query;
  return listResponse(
    request.url,
    page,
    await context.services.explorer.searchExplorerInstitutions(environment, { q, state }, page),
  );
};

export const listExplorerCourses: OperationHandler<"listExplorerCourses"> = async (request, context) => {
  const page = pageParams(request, context);
  const { environment = "live", q } = request.query;
  return listResponse(
    request.url,
    page,
    await context.services.explorer.listExplorerCourses(environment, request.params.id, q, page),
  );
};

export const getExplorerAgreement: OperationHandler<"getExplorerAgreement"> = async (request, { services }) => ({
  status: 200,
  body: {
    data: await services.explorer.getExplorerAgreement(
      request.query.environment ?? "live",
      request.params.from,
      request.params.to,
    ),
  },
});

export const createExplorerTransferEvaluation: OperationHandler<"createExplorerTransferEvaluation"> = async (
  request,
  { services },
) => ({
  status: 200,
  body: {
    data: await services.explorer.createExplorerTransferEvaluation(request.query.environment ?? "live", request.body),
  },
});
