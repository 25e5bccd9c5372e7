// Events are written to the outbox inside the transaction of the change that
// causes them: a rolled-back change leaves no event, a committed one always has
// its event (repositories/outbox.ts writes them). The dispatcher delivers them later.
// The event types and the envelope are shared by every layer, so they live at the root like ids.ts.
import fs from "node:fs";
import type { components } from "../../generated/api-types.ts";
import { newId } from "./ids.ts";
import { projectPath } from "./project-root.ts";

/** A webhook event type: the contract's EventType schema is the one list of them. */
export type EventType = components["schemas"]["EventType"];

const CONTRACT_PATH = projectPath("generated", "openapi.json");
const contract = JSON.parse(fs.readFileSync(CONTRACT_PATH, "utf8")) as {
  components: { schemas: { EventType: { enum: EventType[] } } };
};

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
