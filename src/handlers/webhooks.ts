// Webhooks: endpoint registration and management. The full secret appears only
// in the answers to createWebhook and rotateWebhookSecret.
import * as webhooks from "../services/webhooks.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import { API_ROOT } from "../api.ts";
import type { OperationHandler, RequestContext } from "./types.ts";

function targetPolicy({ services }: RequestContext): webhooks.TargetPolicy {
  return { allowPrivateTargets: services.adminDependencies.config.webhooks.allowPrivateTargets };
}

export const listWebhooks: OperationHandler<"listWebhooks"> = async (request, { caller: credential, services }) => {
  const page = pageParams(request.query);
  const { items, total } = await webhooks.listWebhooks(services.adminDependencies.database.prisma, credential, page);
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const createWebhook: OperationHandler<"createWebhook"> = async (request, context) => {
  const { caller: credential, services } = context;
  const data = await webhooks.createWebhook(services.adminDependencies.database.prisma, services.adminDependencies.secrets, credential, request.body, targetPolicy(context));
  return { status: 201, body: { data }, headers: { Location: `${API_ROOT}/webhooks/${data.id}` } };
};

export const getWebhook: OperationHandler<"getWebhook"> = async (request, { caller: credential, services }) => {
  const data = await webhooks.getWebhook(services.adminDependencies.database.prisma, credential, request.params.id);
  return { status: 200, body: { data } };
};

export const updateWebhook: OperationHandler<"updateWebhook"> = async (request, context) => {
  const { caller: credential, services } = context;
  const data = await webhooks.updateWebhook(services.adminDependencies.database.prisma, credential, request.params.id, request.body, targetPolicy(context));
  return { status: 200, body: { data } };
};

export const deleteWebhook: OperationHandler<"deleteWebhook"> = async (request, { caller: credential, services }) => {
  await webhooks.deleteWebhook(services.adminDependencies.database.prisma, credential, request.params.id);
  return { status: 204, body: undefined };
};

export const rotateWebhookSecret: OperationHandler<"rotateWebhookSecret"> = async (request, { caller: credential, services }) => {
  const data = await webhooks.rotateWebhookSecret(services.adminDependencies.database.prisma, services.adminDependencies.secrets, credential, request.params.id);
  return { status: 200, body: { data } };
};
