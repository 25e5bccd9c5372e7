// The outbox: events written in the transaction of the change that causes them
// (see services/outbox.ts), read later by the dispatcher.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Database } from "../db/database.ts";
import { statementsOn } from "./executor.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { envelope, type EventEnvelope, type PendingEvent } from "../kernel/events.ts";

/** `statement` (Database.statement), when given, serves the metrics' backlog without Prisma's query compiler. */
export function createOutboxRepository(db: Prisma.TransactionClient, statement?: Database["statement"]) {
  const run = statementsOn(db, statement);
  return {
    /**
     * One INSERT from a JSON array, in the caller's transaction: a batch of 500
     * course upserts writes its 500 events in one statement, where Prisma's
     * createMany binds every value separately (several times slower on the
     * embedded database).
     */
    async recordEvents(environment: Environment, events: PendingEvent[]): Promise<EventEnvelope[]> {
      if (!events.length) return [];
      const envelopes = events.map((event) => envelope(event));
      await db.$executeRawUnsafe(
        `INSERT INTO outbox_events (id, environment, type, payload, created_at)
         SELECT e.event->>'id', $2::"Environment", e.event->>'type', e.event, (e.event->>'created')::timestamp(3)
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e (event, position)
         ORDER BY e.position`,
        JSON.stringify(envelopes),
        environment,
      );
      return envelopes;
    },

    /** Events not yet fanned out, and the age of the oldest in seconds (0 when none), for metrics. */
    async backlog(now = new Date()): Promise<{ pending: number; oldestAgeSeconds: number }> {
      // The oldest as epoch milliseconds, a whole number (the column keeps milliseconds): a timestamp
      // column holds UTC, which the drivers would read as local time. The age is a difference of
      // whole milliseconds, exact, divided once.
      const [row] = await run<{ pending: number; oldest: number | null }>(
        `SELECT count(*)::int AS pending, round(extract(epoch FROM min(created_at)) * 1000)::float8 AS oldest
         FROM outbox_events WHERE dispatched_at IS NULL`,
        [],
      );
      const oldestAgeSeconds = row.oldest === null ? 0 : Math.max(0, now.getTime() - row.oldest) / 1000;
      return { pending: row.pending, oldestAgeSeconds };
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
