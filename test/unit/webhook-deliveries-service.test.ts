// The webhook deliveries service's rules (listWebhookDeliveries, getWebhookDelivery,
// redeliverWebhookDelivery) against in-memory repositories: a delivery is only
// reachable through an endpoint the caller can see.
import type { TransactionRepositories } from "../../src/repositories/index.ts";
import { expect } from "chai";
import type { WebhookDelivery, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { SecretBox } from "../../src/kernel/secret-box.ts";
import type { DeliveriesRepository } from "../../src/repositories/deliveries.ts";
import type { WebhooksRepository } from "../../src/repositories/webhooks.ts";
import { createWebhookDeliveriesService } from "../../src/services/webhook-deliveries.ts";
import { rejection } from "../helpers/services.ts";

const CREATED_AT = new Date("2026-01-01T00:00:00Z");
const NOW = new Date("2026-03-01T12:00:00Z");

const notUsed = async (): Promise<never> => {
  throw new Error("the deliveries service does not use this");
};

function caller(organizationId: string): Credential {
  return {
    kind: "api_key",
    id: `key_${organizationId}`,
    organizationId,
    organizationSlug: organizationId,
    channel: "direct",
    environment: "live",
    scopes: ["read:public", "write:contribute"],
  };
}

function endpoint(id: string, organizationId: string): WebhookEndpoint {
  return {
    id,
    organizationId,
    environment: "live",
    url: "https://receiver.example/hook",
    events: ["course.updated"],
    description: null,
    status: "enabled",
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    secret: "sealed",
    secretPrefix: "whsec_ab",
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    deletedAt: null,
  } as WebhookEndpoint;
}

function delivery(id: string, webhookId: string, attempt = 1): WebhookDelivery {
  return {
    id,
    webhookId,
    eventId: "evt_1",
    eventType: "course.updated",
    attempt,
    status: "failed",
    requestBody: '{"id":"evt_1"}',
    signature: null,
    responseStatus: 500,
    responseExcerpt: null,
    durationMs: 12,
    error: null,
    createdAt: CREATED_AT,
    attemptedAt: CREATED_AT,
    nextRetryAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
  } as WebhookDelivery;
}

function setup() {
  const endpoints = [endpoint("wh_ours", "org_ours"), endpoint("wh_theirs", "org_theirs")];
  const rows = [delivery("dlv_ours", "wh_ours"), delivery("dlv_theirs", "wh_theirs")];
  const queued: { original: string; id: string; now: Date }[] = [];
  const webhooks: WebhooksRepository = {
    create: notUsed,
    findById: notUsed,
    async findVisible(owner, id) {
      return (
        endpoints.find(
          (e) =>
            e.id === id &&
            e.organizationId === owner.organizationId &&
            e.environment === owner.environment &&
            !e.deletedAt,
        ) ?? null
      );
    },
    listPage: notUsed,
    updateVisible: notUsed,
    replaceSecretIf: notUsed,
  };
  const deliveries: DeliveriesRepository = {
    async listPage(webhookId, _filter, page) {
      const all = rows.filter((row) => row.webhookId === webhookId);
      return { items: all.slice(page.offset, page.offset + page.limit), total: all.length, next: null };
    },
    async findForWebhook(webhookId, deliveryId) {
      return rows.find((row) => row.id === deliveryId && row.webhookId === webhookId) ?? null;
    },
    createAttempted: notUsed,
    async queueNextAttempt(original, id, now) {
      queued.push({ original: original.id, id, now });
      return {
        ...original,
        id,
        attempt: original.attempt + 1,
        status: "pending",
        createdAt: now,
        nextRetryAt: now,
        attemptedAt: null,
      };
    },
    redeliverFailedSince: notUsed,
    fanOutEvents: notUsed,
    claimDue: notUsed,
    release: notUsed,
    recordSuccesses: notUsed,
    recordAttempt: notUsed,
  };
  const service = createWebhookDeliveriesService({
    webhooks,
    deliveries,
    transaction: (work) => work({ webhooks, deliveries } as unknown as TransactionRepositories),
    secrets: new SecretBox(Buffer.alloc(32, 7)),
    settings: { timeoutMs: 1000, allowPrivateTargets: false },
    clock: () => NOW,
  });
  return { service, queued };
}

describe("webhook deliveries service (listWebhookDeliveries, getWebhookDelivery, redeliverWebhookDelivery)", () => {
  it("redeliverWebhookDelivery: another organization's delivery is not found, and nothing is queued", async () => {
    const { service, queued } = setup();
    const error = await rejection(service.redeliverWebhookDelivery(caller("org_ours"), "wh_theirs", "dlv_theirs"));
    expect(error.slug).to.equal("not-found");
    expect(error.message).to.equal('No webhook endpoint with id "wh_theirs".');
    expect(queued).to.deep.equal([]);
  });

  it("getWebhookDelivery: a delivery of another endpoint, named under the caller's own endpoint, is not found", async () => {
    const { service } = setup();
    const error = await rejection(service.getWebhookDelivery(caller("org_ours"), "wh_ours", "dlv_theirs"));
    expect(error.slug).to.equal("not-found");
    expect(error.message).to.equal('No delivery with id "dlv_theirs" for webhook endpoint "wh_ours".');
  });

  it("redeliverWebhookDelivery: queues the next attempt of the caller's delivery, due at the service's clock", async () => {
    const { service, queued } = setup();
    const view = await service.redeliverWebhookDelivery(caller("org_ours"), "wh_ours", "dlv_ours");
    expect(queued).to.have.length(1);
    expect(queued[0]).to.include({ original: "dlv_ours", now: NOW });
    expect(queued[0].id).to.match(/^dlv_/);
    expect(view).to.include({
      id: queued[0].id,
      webhookId: "wh_ours",
      attempt: 2,
      status: "pending",
      nextRetryAt: NOW.toISOString(),
    });
  });

  it("listWebhookDeliveries: lists only through a visible endpoint", async () => {
    const { service } = setup();
    const page = { limit: 10, offset: 0 };
    const ours = await service.listWebhookDeliveries(caller("org_ours"), "wh_ours", {}, page);
    expect(ours.items.map((item) => item.id)).to.deep.equal(["dlv_ours"]);
    const error = await rejection(service.listWebhookDeliveries(caller("org_ours"), "wh_theirs", {}, page));
    expect(error.message).to.equal('No webhook endpoint with id "wh_theirs".');
  });
});
