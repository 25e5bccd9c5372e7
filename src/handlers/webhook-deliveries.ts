// Webhook deliveries: an endpoint's delivery log, redelivery and test events.
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import { getDelivery, listDeliveries, redeliver, sendTestEvent } from "../webhooks/deliveries.ts";
import type { OperationHandler } from "./types.ts";

export const listWebhookDeliveries: OperationHandler<"listWebhookDeliveries"> = async (request, { caller, services }) => {
  const page = pageParams(request.query);
  const filter = { status: request.query.status, eventType: request.query.eventType };
  const { items, total } = await listDeliveries(services.adminDependencies.database.prisma, caller, request.params.id, filter, page);
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const getWebhookDelivery: OperationHandler<"getWebhookDelivery"> = async (request, { caller, services }) => {
  const data = await getDelivery(services.adminDependencies.database.prisma, caller, request.params.id, request.params.deliveryId);
  return { status: 200, body: { data } };
};

export const redeliverWebhookDelivery: OperationHandler<"redeliverWebhookDelivery"> = async (request, { caller, services }) => {
  const data = await redeliver(services.adminDependencies.database.prisma, caller, request.params.id, request.params.deliveryId);
  return { status: 202, body: { data } };
};

export const testWebhook: OperationHandler<"testWebhook"> = async (request, { caller, services }) => {
  const data = await sendTestEvent(services.adminDependencies.database.prisma, services.adminDependencies.secrets, caller, request.params.id, services.adminDependencies.config.webhooks);
  return { status: 200, body: { data } };
};
