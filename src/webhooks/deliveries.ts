// The delivery log of an endpoint: listing and reading attempts, queueing a
// redelivery, and sending a test event synchronously.
import type { WebhookDelivery } from "../../generated/prisma/client.ts";
import type { Credential } from "../auth/credential.ts";
import type { Config } from "../config.ts";
import { NotFoundError, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import type { EventType } from "../services/outbox.ts";
import type { Db, Page, PageResult } from "../services/types.ts";
import { createWebhooksRepository } from "../repositories/webhooks.ts";
import { sendSigned } from "./attempts.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import { serializeEnvelope } from "./fan-out.ts";
import { sampleData } from "./sample-events.ts";

/** The caller's endpoint, or 404 (another organization's, environment's or a deleted one included). */
async function visibleWebhook(db: Db, credential: Credential, webhookId: string) {
  const endpoint = await createWebhooksRepository(db).findVisible(credential, webhookId);
  if (!endpoint) throw notFound.webhook(webhookId);
  return endpoint;
}

export type DeliveryStatus = WebhookDelivery["status"];

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

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
}

export async function listDeliveries(
  db: Db,
  credential: Credential,
  webhookId: string,
  filter: DeliveryFilter,
  page: Page,
): Promise<PageResult<DeliveryView>> {
  const endpoint = await visibleWebhook(db, credential, webhookId);
  const where = { webhookId: endpoint.id, status: filter.status, eventType: filter.eventType };
  const [rows, total] = await Promise.all([
    db.webhookDelivery.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: page.offset, take: page.limit }),
    db.webhookDelivery.count({ where }),
  ]);
  return { items: rows.map(deliveryView), total };
}

async function findDelivery(db: Db, credential: Credential, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  const endpoint = await visibleWebhook(db, credential, webhookId);
  const delivery = await db.webhookDelivery.findFirst({ where: { id: deliveryId, webhookId: endpoint.id } });
  if (!delivery) throw new NotFoundError(`No delivery with id "${deliveryId}" for webhook endpoint "${webhookId}".`);
  return delivery;
}

export async function getDelivery(db: Db, credential: Credential, webhookId: string, deliveryId: string): Promise<DeliveryView> {
  return deliveryView(await findDelivery(db, credential, webhookId, deliveryId));
}

/** Queues a new attempt of the delivery's event, due now, with the same body; the dispatcher sends it. */
export async function redeliver(db: Db, credential: Credential, webhookId: string, deliveryId: string, now = new Date()): Promise<DeliveryView> {
  const original = await findDelivery(db, credential, webhookId, deliveryId);
  const created = await db.$transaction(async (tx) => {
    // Serializes redeliveries of one endpoint so attempt numbers stay distinct.
    await tx.$queryRaw`SELECT id FROM webhook_endpoints WHERE id = ${original.webhookId} FOR UPDATE`;
    const latest = await tx.webhookDelivery.aggregate({
      where: { webhookId: original.webhookId, eventId: original.eventId },
      _max: { attempt: true },
    });
    return tx.webhookDelivery.create({
      data: {
        id: newId("dlv"),
        webhookId: original.webhookId,
        eventId: original.eventId,
        eventType: original.eventType,
        attempt: (latest._max.attempt ?? 0) + 1,
        status: "pending",
        requestBody: original.requestBody,
        createdAt: now,
        nextRetryAt: now,
      },
    });
  });
  return deliveryView(created);
}

/**
 * Sends a test event of the endpoint's first subscribed type now and records
 * the attempt. It works on a disabled endpoint too (to check a receiver before
 * re-enabling it), is never retried and does not count toward the endpoint's health.
 */
export async function sendTestEvent(
  db: Db,
  secrets: SecretBox,
  credential: Credential,
  webhookId: string,
  settings: Pick<Config["webhooks"], "timeoutMs" | "allowPrivateTargets">,
  clock: () => Date = () => new Date(),
): Promise<DeliveryView> {
  const endpoint = await visibleWebhook(db, credential, webhookId);
  const type = endpoint.events[0] as EventType;
  const createdAt = clock();
  const envelope = { id: newId("evt"), type, created: createdAt.toISOString(), test: true, data: sampleData(type) };
  const delivery = { id: newId("dlv"), eventId: envelope.id, eventType: type, requestBody: serializeEnvelope(envelope) };
  const sent = await sendSigned(delivery, endpoint, clock(), settings, secrets);
  const { result } = sent;
  const record = await db.webhookDelivery.create({
    data: {
      ...delivery,
      webhookId: endpoint.id,
      attempt: 1,
      status: result.ok ? "succeeded" : "failed",
      signature: sent.signature,
      responseStatus: result.responseStatus,
      responseExcerpt: result.responseExcerpt,
      durationMs: result.durationMs,
      error: result.error,
      createdAt,
      attemptedAt: sent.attemptedAt,
      nextRetryAt: null,
    },
  });
  return deliveryView(record);
}
