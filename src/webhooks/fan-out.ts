// Fan-out: turns committed outbox events into one pending delivery per
// subscribed endpoint. Claiming the events, inserting their deliveries and
// marking them dispatched happen in one transaction, so a crash leaves either
// all of it or none of it.
import type { Db } from "../services/types.ts";
import type { EventEnvelope } from "../services/outbox.ts";
import { newId } from "../ids.ts";

interface ClaimedEvent {
  id: string;
  environment: string;
  type: string;
  payload: EventEnvelope & { test?: boolean };
}

/** The body every attempt sends: the envelope with its members in the documented order. */
export function serializeEnvelope(envelope: EventEnvelope & { test?: boolean }): string {
  const { id, type, created, test, data } = envelope;
  return JSON.stringify({ id, type, created, ...(test ? { test: true } : {}), data });
}

/** Returns how many events were dispatched and how many deliveries they produced. */
export async function fanOutEvents(db: Db, now: Date, batchSize = 500): Promise<{ events: number; deliveries: number }> {
  return db.$transaction(async (tx) => {
    const events = await tx.$queryRawUnsafe<ClaimedEvent[]>(
      `SELECT id, environment::text AS environment, type, payload FROM outbox_events
       WHERE dispatched_at IS NULL ORDER BY sequence LIMIT $1 FOR UPDATE SKIP LOCKED`,
      batchSize,
    );
    if (!events.length) return { events: 0, deliveries: 0 };
    const endpoints = await tx.webhookEndpoint.findMany({
      where: {
        environment: { in: [...new Set(events.map((e) => e.environment))] as ("live" | "sandbox")[] },
        status: "enabled",
        deletedAt: null,
        events: { hasSome: [...new Set(events.map((e) => e.type))] },
      },
      select: { id: true, environment: true, events: true },
    });
    const deliveries = events.flatMap((event) =>
      endpoints
        .filter((endpoint) => endpoint.environment === event.environment && endpoint.events.includes(event.type))
        .map((endpoint) => ({ id: newId("dlv"), webhookId: endpoint.id, eventId: event.id, eventType: event.type, requestBody: serializeEnvelope(event.payload) })),
    );
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
    await tx.outboxEvent.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: now } });
    return { events: events.length, deliveries: deliveries.length };
  });
}
