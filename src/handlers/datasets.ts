// Datasets: publishing immutable snapshots of an organization's equivalencies.
import * as datasets from "../services/datasets.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import type { OperationHandler } from "./types.ts";

export const listDatasets: OperationHandler<"listDatasets"> = async (request, { credential, services }) => {
  const page = pageParams(request.query);
  const { items, total } = await datasets.listDatasets(services.database.prisma, credential, page);
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const publishDataset: OperationHandler<"publishDataset"> = async (request, { credential, services }) => ({
  status: 201,
  body: {
    data: await datasets.publishDataset(services.database.prisma, credential, request.body, {
      stalePendingDays: services.config.datasets.stalePendingDays,
    }),
  },
});

export const getDataset: OperationHandler<"getDataset"> = async (request, { credential, services }) => ({
  status: 200,
  body: { data: await datasets.getDataset(services.database.prisma, credential, request.params.id) },
});
