// Webhook deliveries: an endpoint's delivery log (listing and reading
// attempts), queueing a redelivery, and sending a test event synchronously.
import type { components } from "../../generated/api-types.ts";
import type { WebhookDelivery, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Credential } from "../auth/credential.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import type { Config } from "../kernel/config.ts";
import { notFound } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import type { Repositories } from "../repositories/index.ts";
import type { DeliveryFilter } from "../repositories/deliveries.ts";
import { sendSigned } from "../webhooks/attempts.ts";
import { serializeEnvelope } from "../webhooks/fan-out.ts";
import { sampleData } from "../webhooks/sample-events.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { noteNothingChanged } from "./change-origin.ts";
import type { Page, PageResult } from "./types.ts";

type EventType = components["schemas"]["EventType"];

export function deliveryView(record: WebhookDelivery) {
  return {
    id: record.id,
    webhookId: record.webhookId,
    eventId: record.eventId,
    eventType: record.eventType as EventType,
    attempt: record.attempt,
    status: record.status,
    requestBody: record.requestBody,
    signature: record.signature,
    responseStatus: record.responseStatus,
    responseExcerpt: record.responseExcerpt,
    durationMs: record.durationMs,
    createdAt: record.createdAt.toISOString(),
    attemptedAt: record.attemptedAt?.toISOString() ?? null,
    nextRetryAt: record.nextRetryAt?.toISOString() ?? null,
    error: record.error,
  };
}

export type DeliveryView = ReturnType<typeof deliveryView>;

export interface WebhookDeliveriesServiceDependencies
  extends Pick<Repositories, "webhooks" | "deliveries" | "transaction"> {
  /** Opens the endpoints' sealed secrets, to sign test events. */
  secrets: SecretBox;
  settings: Pick<Config["webhooks"], "timeoutMs" | "allowPrivateTargets">;
  clock?: () => Date;
}

export function createWebhookDeliveriesService({
  webhooks,
  deliveries,
  transaction,
  secrets,
  settings,
  clock = () => new Date(),
}: WebhookDeliveriesServiceDependencies) {
  const changed = (endpoint: WebhookEndpoint, type: "delivery" | "webhook", id: string): ChangedRecord => ({
    organizationId: endpoint.organizationId,
    environment: endpoint.environment,
    type,
    id,
  });

  /** The caller's endpoint, or 404 (another organization's, environment's or a deleted one included). */
  async function visibleWebhook(caller: Credential, webhookId: string) {
    const endpoint = await webhooks.findVisible(caller, webhookId);
    if (!endpoint) throw notFound.webhook(webhookId);
    return endpoint;
  }

  async function findDelivery(caller: Credential, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
    const endpoint = await visibleWebhook(caller, webhookId);
    const delivery = await deliveries.findForWebhook(endpoint.id, deliveryId);
    if (!delivery) throw notFound.webhookDelivery(deliveryId, webhookId);
    return delivery;
  }

  return {
    async listWebhookDeliveries(
      caller: Credential,
      webhookId: string,
      filter: DeliveryFilter,
      page: Page,
    ): Promise<PageResult<DeliveryView>> {
      const endpoint = await visibleWebhook(caller, webhookId);
      const { items, total, next } = await deliveries.listPage(endpoint.id, filter, page);
      return { items: items.map(deliveryView), total, next };
    },

    async getWebhookDelivery(caller: Credential, webhookId: string, deliveryId: string): Promise<DeliveryView> {
      return deliveryView(await findDelivery(caller, webhookId, deliveryId));
    },

    /** Queues a new attempt of the delivery's event, due now, with the same body; the dispatcher sends it. */
    async redeliverWebhookDelivery(caller: Credential, webhookId: string, deliveryId: string): Promise<DeliveryView> {
      const endpoint = await visibleWebhook(caller, webhookId);
      const original = await findDelivery(caller, webhookId, deliveryId);
      const queued = await transaction(async (writes) => {
        const attempt = await writes.deliveries.queueNextAttempt(original, newId("dlv"), clock());
        await auditChange(writes, [changed(endpoint, "delivery", original.id)]);
        return attempt;
      });
      return deliveryView(queued);
    },

    /** Queues again every delivery of the endpoint that failed for good since `since`; answers how many. */
    async redeliverFailedWebhookDeliveries(caller: Credential, webhookId: string, since: string): Promise<number> {
      const endpoint = await visibleWebhook(caller, webhookId);
      const queued = await transaction(async (writes) => {
        const count = await writes.deliveries.redeliverFailedSince(endpoint.id, new Date(since), clock(), () =>
          newId("dlv"),
        );
        if (count > 0) await auditChange(writes, [changed(endpoint, "webhook", endpoint.id)]);
        return count;
      });
      if (queued === 0) noteNothingChanged();
      return queued;
    },

    /**
     * Sends a test event of the endpoint's first subscribed type now and records
     * the attempt. It works on a disabled endpoint too (to check a receiver before
     * re-enabling it), is never retried and does not count toward the endpoint's health.
     */
    async testWebhook(caller: Credential, webhookId: string): Promise<DeliveryView> {
      const endpoint = await visibleWebhook(caller, webhookId);
      const type = endpoint.events[0] as EventType;
      const createdAt = clock();
      const envelope = { id: newId("evt"), type, created: createdAt.toISOString(), test: true, data: sampleData(type) };
      const delivery = {
        id: newId("dlv"),
        webhookId: endpoint.id,
        eventId: envelope.id,
        eventType: type,
        requestBody: serializeEnvelope(envelope),
      };
      const sent = await sendSigned(delivery, endpoint, clock(), settings, secrets);
      const { result } = sent;
      const record = await transaction(async (writes) => {
        const attempted = await writes.deliveries.createAttempted({
          ...delivery,
          status: result.ok ? "succeeded" : "failed",
          signature: sent.signature,
          responseStatus: result.responseStatus,
          responseExcerpt: result.responseExcerpt,
          durationMs: result.durationMs,
          error: result.error,
          createdAt,
          attemptedAt: sent.attemptedAt,
          nextRetryAt: null,
        });
        await auditChange(writes, [changed(endpoint, "delivery", attempted.id)]);
        return attempted;
      });
      return deliveryView(record);
    },
  };
}

export type WebhookDeliveriesService = ReturnType<typeof createWebhookDeliveriesService>;
