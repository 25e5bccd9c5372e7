// Events are written to the outbox inside the transaction of the change that
// causes them: a rolled-back change leaves no event, a committed one always has
// its event. The dispatcher delivers them later.
import fs from "node:fs";
import path from "node:path";
import type { components } from "../../generated/api-types.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Environment } from "./types.ts";
import { newId } from "../ids.ts";

/** A webhook event type: the contract's EventType schema is the one list of them. */
export type EventType = components["schemas"]["EventType"];

const CONTRACT_PATH = path.resolve(import.meta.dirname, "../../generated/openapi.json");
const contract = JSON.parse(fs.readFileSync(CONTRACT_PATH, "utf8")) as { components: { schemas: { EventType: { enum: EventType[] } } } };

/** Every event type, in the contract's order (read from the generated document, never retyped). */
export const EVENT_TYPES: readonly EventType[] = contract.components.schemas.EventType.enum;

export interface EventEnvelope<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  created: string;
  data: T;
}

export interface PendingEvent {
  type: EventType;
  data: Record<string, unknown>;
}

export function envelope(event: PendingEvent, created = new Date()): EventEnvelope {
  return { id: newId("evt"), type: event.type, created: created.toISOString(), data: event.data };
}

/**
 * One INSERT from a JSON array, in the caller's transaction: a batch of 500
 * course upserts writes its 500 events in one statement, where Prisma's
 * createMany binds every value separately (several times slower on the
 * embedded database).
 */
export async function recordEvents(tx: Prisma.TransactionClient, environment: Environment, events: PendingEvent[]): Promise<EventEnvelope[]> {
  if (!events.length) return [];
  const envelopes = events.map((event) => envelope(event));
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox_events (id, environment, type, payload, created_at)
     SELECT e.event->>'id', $2::"Environment", e.event->>'type', e.event, (e.event->>'created')::timestamp(3)
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e (event, position)
     ORDER BY e.position`,
    JSON.stringify(envelopes),
    environment,
  );
  return envelopes;
}
