// Transfer evaluations: "will my courses transfer?", and the demand for the missing rules.
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";
import { institutionIdOf } from "../kernel/ids.ts";
import { canonicalEvaluation } from "./canonical-input.ts";

export const createTransferEvaluation: OperationHandler<"createTransferEvaluation"> = async (
  request,
  { caller, services, clientAddress },
) => ({
  status: 200,
  body: {
    data: await services.transferEvaluations.createTransferEvaluation(caller, canonicalEvaluation(request.body), {
      clientAddress,
    }),
  },
});

export const listEquivalencyRequests: OperationHandler<"listEquivalencyRequests"> = async (
  request,
  { caller, services },
) => {
  const page = pageParams(request, { caller, services });
  return listResponse(
    request.url,
    page,
    await services.transferEvaluations.listEquivalencyRequests(
      caller,
      institutionIdOf(request.query.targetInstitution),
      request.query.inCatalog,
      page,
    ),
  );
};
