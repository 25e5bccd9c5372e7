// Events are written to the outbox inside the transaction of the change that
// causes them: a rolled-back change leaves no event, a committed one always has
// its event. The dispatcher delivers them later.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Environment } from "./types.ts";
import { newId } from "../ids.ts";

export type EventType = "equivalency.created" | "equivalency.updated" | "course.updated" | "dataset.published";

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

export async function recordEvents(tx: Prisma.TransactionClient, environment: Environment, events: PendingEvent[]): Promise<EventEnvelope[]> {
  if (!events.length) return [];
  const envelopes = events.map((event) => envelope(event));
  await tx.outboxEvent.createMany({
    data: envelopes.map((e) => ({ id: e.id, environment, type: e.type, payload: e as unknown as Prisma.InputJsonValue, createdAt: new Date(e.created) })),
  });
  return envelopes;
}
