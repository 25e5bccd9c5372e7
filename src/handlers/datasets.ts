// Datasets: publishing immutable snapshots of an organization's equivalencies.
import { API_ROOT } from "../kernel/document.ts";
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listDatasets: OperationHandler<"listDatasets"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.datasets.listDatasets(caller, page));
};

export const publishDataset: OperationHandler<"publishDataset"> = async (request, { caller, services }) => {
  const data = await services.datasets.publishDataset(caller, request.body);
  return { status: 201, body: { data }, headers: { Location: `${API_ROOT}/datasets/${data.id}` } };
};

export const getDataset: OperationHandler<"getDataset"> = async (request, { caller, services }) => ({
  status: 200,
  body: { data: await services.datasets.getDataset(caller, request.params.id) },
});

export const listDatasetIssues: OperationHandler<"listDatasetIssues"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.datasets.listDatasetIssues(caller, request.params.id, page));
};
