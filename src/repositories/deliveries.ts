// Webhook deliveries and their attempts: the delivery log an endpoint's owner
// reads, and the dispatcher's statements (fan-out of outbox events, claims
// under a lease, recording outcomes). Each function that must be atomic runs
// its own transaction, so callers never hold one.
import { type Executor, inTransaction, statementsOn } from "./executor.ts";
import type { Database } from "../db/database.ts";
import type { WebhookDelivery, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { columnsOf, recordFromJson } from "./record-columns.ts";
import { pageOf, type Page, type PageResult } from "./paging.ts";

export type DeliveryStatus = WebhookDelivery["status"];
export type ClaimedDelivery = WebhookDelivery & { webhook: WebhookEndpoint };

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
}

/** A delivery to queue: the attempt's body and what it delivers. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  requestBody: string;
}

/** An outbox event not dispatched yet, claimed by a fan-out. */
export interface UndispatchedEvent {
  id: string;
  environment: Environment;
  type: string;
  payload: Record<string, unknown>;
}

/** An endpoint that may receive some of a fan-out's events. */
export interface SubscribedEndpoint {
  id: string;
  environment: Environment;
  events: string[];
}

/** What an attempt's HTTP exchange left to record on its row. */
export interface AttemptRecord {
  status: "succeeded" | "failed";
  signature: string;
  responseStatus: number | null;
  responseExcerpt: string | null;
  durationMs: number | null;
  error: string | null;
  attemptedAt: Date;
  nextRetryAt: Date | null;
}

/** A successful attempt recorded in a batch. */
export interface RecordedSuccess {
  id: string;
  signature: string;
  responseStatus: number | null;
  responseExcerpt: string | null;
  durationMs: number | null;
  attemptedAt: Date;
}

/** How an attempt changes its endpoint's health: a success clears a run of failures, a failure starts or extends one. */
export interface EndpointHealth {
  endpointId: string;
  ok: boolean;
  /** Whether the endpoint was failing when claimed (a success then has a run to clear). */
  wasFailing: boolean;
  now: Date;
  /** A run of failures that began at or before this disables the endpoint ... */
  disableIfFailingSince: Date;
  /** ... with this reason. */
  disabledReason: string;
}

/**
 * `statement` (Database.statement), when given, serves the dispatcher's poll outside transactions:
 * an idle server's polls then never load Prisma's query compiler.
 */
export function createDeliveriesRepository(db: Executor, statement?: Database["statement"]) {
  const run = statementsOn(db, statement);
  return {
    /** One page of an endpoint's deliveries, newest first. */
    listPage(webhookId: string, filter: DeliveryFilter, page: Page): Promise<PageResult<WebhookDelivery>> {
      const where = { webhookId, status: filter.status, eventType: filter.eventType };
      return pageOf(
        page,
        [
          ["createdAt", "desc"],
          ["id", "desc"],
        ],
        ({ take, skip, orderBy, after }) =>
          db.webhookDelivery.findMany({ where: { AND: [where, after] }, orderBy, skip, take }),
        () => db.webhookDelivery.count({ where }),
      );
    },

    findForWebhook(webhookId: string, deliveryId: string): Promise<WebhookDelivery | null> {
      return db.webhookDelivery.findFirst({ where: { id: deliveryId, webhookId } });
    },

    /** Records an attempt made outside the dispatcher (a test event): never retried. */
    createAttempted(delivery: NewDelivery & AttemptRecord & { createdAt: Date }): Promise<WebhookDelivery> {
      return db.webhookDelivery.create({ data: { ...delivery, attempt: 1 } });
    },

    /** Queues another attempt of a delivery's event, due at `now`, numbered after every attempt of that event so far. */
    queueNextAttempt(original: WebhookDelivery, id: string, now: Date): Promise<WebhookDelivery> {
      return inTransaction(db, async (tx) => {
        // Serializes redeliveries of one endpoint so attempt numbers stay distinct.
        await tx.$queryRaw`SELECT id FROM webhook_endpoints WHERE id = ${original.webhookId} FOR UPDATE`;
        const latest = await tx.webhookDelivery.aggregate({
          where: { webhookId: original.webhookId, eventId: original.eventId },
          _max: { attempt: true },
        });
        return tx.webhookDelivery.create({
          data: {
            id,
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
    },

    /**
     * Queues one new attempt, due at `now`, of every event of the endpoint whose latest attempt
     * failed for good and was created at or after `since`; answers how many. One transaction,
     * serialized per endpoint like single redeliveries.
     */
    redeliverFailedSince(webhookId: string, since: Date, now: Date, newId: () => string): Promise<number> {
      return inTransaction(db, async (tx) => {
        await tx.$queryRaw`SELECT id FROM webhook_endpoints WHERE id = ${webhookId} FOR UPDATE`;
        const latest = await tx.$queryRaw<
          {
            event_id: string;
            event_type: string;
            attempt: number;
            status: string;
            request_body: string;
            created_at: Date;
          }[]
        >`
          SELECT DISTINCT ON (event_id) event_id, event_type, attempt, status::text AS status, request_body, created_at
          FROM webhook_deliveries
          WHERE webhook_id = ${webhookId} AND event_id IN (
            SELECT event_id FROM webhook_deliveries
            WHERE webhook_id = ${webhookId} AND status = 'failed' AND created_at >= ${since})
          ORDER BY event_id, attempt DESC, created_at DESC`;
        const failed = latest.filter((d) => d.status === "failed" && d.created_at >= since);
        if (!failed.length) return 0;
        await tx.webhookDelivery.createMany({
          data: failed.map((d) => ({
            id: newId(),
            webhookId,
            eventId: d.event_id,
            eventType: d.event_type,
            attempt: d.attempt + 1,
            status: "pending" as const,
            requestBody: d.request_body,
            createdAt: now,
            nextRetryAt: now,
          })),
        });
        return failed.length;
      });
    },

    /**
     * Claims up to `batchSize` undispatched outbox events (skipping those another
     * fan-out holds), inserts the deliveries `plan` makes of them for the endpoints
     * subscribed to their types, and marks them dispatched: all of it or none of it,
     * in one transaction. A disabled endpoint gets its deliveries too: they wait
     * (claimDue skips them) until it is enabled again, so no event is lost to it.
     */
    async fanOutEvents(
      now: Date,
      batchSize: number,
      plan: (events: UndispatchedEvent[], endpoints: SubscribedEndpoint[]) => NewDelivery[],
    ): Promise<{ events: number; deliveries: number }> {
      // Most polls find nothing: one read on the driver answers them, without a transaction.
      if (statement) {
        const [{ pending }] = await statement<{ pending: boolean }>(
          "SELECT EXISTS (SELECT FROM outbox_events WHERE dispatched_at IS NULL) AS pending",
          [],
        );
        if (!pending) return { events: 0, deliveries: 0 };
      }
      return inTransaction(db, async (tx) => {
        const events = await tx.$queryRawUnsafe<UndispatchedEvent[]>(
          `SELECT id, environment::text AS environment, type, payload FROM outbox_events
           WHERE dispatched_at IS NULL ORDER BY sequence LIMIT $1 FOR UPDATE SKIP LOCKED`,
          batchSize,
        );
        if (!events.length) return { events: 0, deliveries: 0 };
        const endpoints = await tx.webhookEndpoint.findMany({
          where: {
            environment: { in: [...new Set(events.map((e) => e.environment))] },
            deletedAt: null,
            events: { hasSome: [...new Set(events.map((e) => e.type))] },
          },
          select: { id: true, environment: true, events: true },
        });
        const deliveries = plan(events, endpoints);
        // One INSERT from a JSON array rather than createMany, which binds every value on its own.
        if (deliveries.length) {
          await tx.$executeRawUnsafe(
            `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, attempt, status, request_body, created_at, next_retry_at)
             SELECT d.id, d."webhookId", d."eventId", d."eventType", 1, 'pending', d."requestBody", $2::timestamp(3), $2::timestamp(3)
             FROM json_to_recordset($1::json) AS d (id text, "webhookId" text, "eventId" text, "eventType" text, "requestBody" text)`,
            JSON.stringify(deliveries),
            now.toISOString(),
          );
        }
        await tx.outboxEvent.updateMany({
          where: { id: { in: events.map((e) => e.id) } },
          data: { dispatchedAt: now },
        });
        return { events: events.length, deliveries: deliveries.length };
      });
    },

    /**
     * Leases up to `limit` due deliveries of enabled endpoints to `owner`. Rows
     * another dispatcher holds (locked, or leased and not expired) are skipped, so
     * no attempt is sent by two dispatchers at once. One statement answers the
     * claimed rows with their endpoints, in due order.
     */
    async claimDue(owner: string, now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
      if (limit <= 0) return [];
      const rows = await run<{ claimed: string }>(
        `WITH claimed AS (
           UPDATE webhook_deliveries AS claim SET lease_owner = $1, lease_expires_at = $2::timestamp(3)
           FROM (
             SELECT d.id FROM webhook_deliveries AS d
             WHERE d.status = 'pending' AND d.next_retry_at <= $3::timestamp(3)
               AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $3::timestamp(3))
               AND EXISTS (SELECT FROM webhook_endpoints AS e WHERE e.id = d.webhook_id AND e.status = 'enabled' AND e.deleted_at IS NULL)
             ORDER BY d.next_retry_at, d.id
             LIMIT $4
             FOR UPDATE OF d SKIP LOCKED) AS due
           WHERE claim.id = due.id
           RETURNING claim.*)
         SELECT coalesce(json_agg(json_build_array(row_to_json(c), row_to_json(e)) ORDER BY c.next_retry_at, c.id), '[]')::text AS claimed
         FROM claimed AS c JOIN webhook_endpoints AS e ON e.id = c.webhook_id`,
        [owner, new Date(now.getTime() + leaseMs).toISOString(), now.toISOString(), limit],
      );
      const pairs = JSON.parse(rows[0].claimed) as [Record<string, unknown>, Record<string, unknown>][];
      return pairs.map(([delivery, endpoint]) => ({
        ...recordFromJson<WebhookDelivery>(delivery, columnsOf(db, "WebhookDelivery"))!,
        webhook: recordFromJson<WebhookEndpoint>(endpoint, columnsOf(db, "WebhookEndpoint"))!,
      }));
    },

    /** Gives claimed deliveries back (a stopping dispatcher), so another pass need not wait for the lease to expire. */
    async release(owner: string, ids: string[]): Promise<void> {
      if (!ids.length) return;
      await db.webhookDelivery.updateMany({
        where: { id: { in: ids }, leaseOwner: owner, status: "pending" },
        data: { leaseOwner: null, leaseExpiresAt: null },
      });
    },

    /** Records a batch of successes in one statement, on the rows `owner` still leases; answers their ids. */
    async recordSuccesses(owner: string, successes: RecordedSuccess[]): Promise<string[]> {
      const rows = successes.map((success) => ({ ...success, attemptedAt: success.attemptedAt.toISOString() }));
      const updated = await db.$queryRawUnsafe<{ id: string }[]>(
        `UPDATE webhook_deliveries AS d
         SET status = 'succeeded', signature = v.signature, response_status = v."responseStatus", response_excerpt = v."responseExcerpt",
             duration_ms = v."durationMs", error = NULL, attempted_at = v."attemptedAt"::timestamp(3), next_retry_at = NULL,
             lease_owner = NULL, lease_expires_at = NULL
         FROM json_to_recordset($1::json)
           AS v (id text, signature text, "responseStatus" int, "responseExcerpt" text, "durationMs" int, "attemptedAt" text)
         WHERE d.id = v.id AND d.lease_owner = $2 AND d.status = 'pending'
         RETURNING d.id`,
        JSON.stringify(rows),
        owner,
      );
      return updated.map((row) => row.id);
    },

    /**
     * Records an attempt on its row (only while `owner` still holds the lease),
     * queues `next` (the retry, if any) and applies the endpoint's health change,
     * atomically. Answers false, writing nothing, when the lease was lost.
     */
    recordAttempt(
      deliveryId: string,
      owner: string,
      attempt: AttemptRecord,
      next: (NewDelivery & { attempt: number }) | null,
      health: EndpointHealth,
    ): Promise<boolean> {
      return inTransaction(db, async (tx) => {
        const updated = await tx.webhookDelivery.updateMany({
          where: { id: deliveryId, leaseOwner: owner, status: "pending" },
          data: { ...attempt, leaseOwner: null, leaseExpiresAt: null },
        });
        if (updated.count === 0) return false;
        if (next) {
          await tx.webhookDelivery.create({
            data: { ...next, status: "pending", createdAt: health.now, nextRetryAt: attempt.nextRetryAt },
          });
        }
        const { endpointId, now } = health;
        if (health.ok) {
          if (health.wasFailing)
            await tx.webhookEndpoint.updateMany({ where: { id: endpointId }, data: { failingSince: null } });
          return true;
        }
        await tx.webhookEndpoint.updateMany({
          where: { id: endpointId, failingSince: null },
          data: { failingSince: now },
        });
        await tx.webhookEndpoint.updateMany({
          where: { id: endpointId, status: "enabled", failingSince: { lte: health.disableIfFailingSince } },
          data: { status: "disabled", disabledReason: health.disabledReason, disabledAt: now, updatedAt: now },
        });
        return true;
      });
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>;
