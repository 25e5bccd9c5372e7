// Webhooks: endpoint registration and management. The full secret appears only
// in the answers to createWebhook and rotateWebhookSecret.
import { listResponse, pageParams } from "./paging.ts";
import { API_ROOT } from "../kernel/document.ts";
import type { OperationHandler } from "./types.ts";

export const listWebhooks: OperationHandler<"listWebhooks"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  return listResponse(request.url, page, await services.webhooks.listWebhooks(caller, page));
};

export const createWebhook: OperationHandler<"createWebhook"> = async (request, { caller, services }) => {
  const data = await services.webhooks.createWebhook(caller, request.body);
  return { status: 201, body: { data }, headers: { Location: `${API_ROOT}/webhooks/${data.id}` } };
};

export const getWebhook: OperationHandler<"getWebhook"> = async (request, { caller, services }) => {
  const data = await services.webhooks.getWebhook(caller, request.params.id);
  return { status: 200, body: { data } };
};

export const updateWebhook: OperationHandler<"updateWebhook"> = async (request, { caller, services }) => {
  const data = await services.webhooks.updateWebhook(caller, request.params.id, request.body);
  return { status: 200, body: { data } };
};

export const deleteWebhook: OperationHandler<"deleteWebhook"> = async (request, { caller, services }) => {
  await services.webhooks.deleteWebhook(caller, request.params.id);
  return { status: 204, body: undefined };
};

export const rotateWebhookSecret: OperationHandler<"rotateWebhookSecret"> = async (request, { caller, services }) => {
  const data = await services.webhooks.rotateWebhookSecret(caller, request.params.id);
  return { status: 200, body: { data } };
};
