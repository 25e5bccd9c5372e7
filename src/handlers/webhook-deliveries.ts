// Webhook deliveries: an endpoint's delivery log, redelivery and test events.
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listWebhookDeliveries: OperationHandler<"listWebhookDeliveries"> = async (
  request,
  { caller, services },
) => {
  const page = pageParams(request, { caller, services });
  const filter = { status: request.query.status, eventType: request.query.eventType };
  return listResponse(
    request.url,
    page,
    await services.webhookDeliveries.listWebhookDeliveries(caller, request.params.id, filter, page),
  );
};

export const getWebhookDelivery: OperationHandler<"getWebhookDelivery"> = async (request, { caller, services }) => {
  const data = await services.webhookDeliveries.getWebhookDelivery(
    caller,
    request.params.id,
    request.params.deliveryId,
  );
  return { status: 200, body: { data } };
};

export const redeliverWebhookDelivery: OperationHandler<"redeliverWebhookDelivery"> = async (
  request,
  { caller, services },
) => {
  const data = await services.webhookDeliveries.redeliverWebhookDelivery(
    caller,
    request.params.id,
    request.params.deliveryId,
  );
  return { status: 202, body: { data } };
};

export const testWebhook: OperationHandler<"testWebhook"> = async (request, { caller, services }) => {
  const data = await services.webhookDeliveries.testWebhook(caller, request.params.id);
  return { status: 200, body: { data } };
};

export const redeliverFailedWebhookDeliveries: OperationHandler<"redeliverFailedWebhookDeliveries"> = async (
  request,
  { caller, services },
) => {
  const count = await services.webhookDeliveries.redeliverFailedWebhookDeliveries(
    caller,
    request.params.id,
    request.body.since,
  );
  return { status: 202, body: { count } };
};
