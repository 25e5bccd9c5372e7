// Fan-out: turns committed outbox events into one pending delivery per
// subscribed endpoint. Claiming the events, inserting their deliveries and
// marking them dispatched happen in one transaction (the deliveries
// repository's), so a crash leaves either all of it or none of it.
import type { components } from "../../generated/api-types.ts";
import type {
  DeliveriesRepository,
  NewDelivery,
  SubscribedEndpoint,
  UndispatchedEvent,
} from "../repositories/deliveries.ts";
import { newId } from "../kernel/ids.ts";

/** The contract's envelope, its `data` any event's payload. */
type EventEnvelope = Omit<components["schemas"]["EventEnvelope"], "data"> & { data: Record<string, unknown> };

/** The body every attempt sends: the envelope with its members in the documented order. */
export function serializeEnvelope(envelope: EventEnvelope): string {
  const { id, type, created, test, data } = envelope;
  return JSON.stringify({ id, type, created, ...(test ? { test: true } : {}), data });
}

/**
 * One delivery per event and endpoint of its environment subscribed to its type, enabled or not: a
 * disabled endpoint's deliveries wait until it is enabled again (docs/webhooks.md).
 */
export function planDeliveries(events: UndispatchedEvent[], endpoints: SubscribedEndpoint[]): NewDelivery[] {
  return events.flatMap((event) =>
    endpoints
      .filter((endpoint) => endpoint.environment === event.environment && endpoint.events.includes(event.type))
      .map((endpoint) => ({
        id: newId("dlv"),
        webhookId: endpoint.id,
        eventId: event.id,
        eventType: event.type,
        requestBody: serializeEnvelope(event.payload as EventEnvelope),
      })),
  );
}

/** Returns how many events were dispatched and how many deliveries they produced. */
export function fanOutEvents(
  deliveries: Pick<DeliveriesRepository, "fanOutEvents">,
  now: Date,
  batchSize = 500,
): Promise<{ events: number; deliveries: number }> {
  return deliveries.fanOutEvents(now, batchSize, planDeliveries);
}
