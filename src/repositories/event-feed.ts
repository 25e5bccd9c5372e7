// The change feed: the outbox's events in commit order (migration 20261129000000_event_feed).
//
// A writer inserts its events with the change that causes them and knows nothing of the feed.
// assignPositions is the one serialized step that numbers them: holding the row lock of
// "event_feed", it gives every committed event without a position the next positions, in
// `sequence` order. Two steps never overlap (the lock), and a step sees only committed events,
// so an event that commits after a step is numbered by a later step, above every position a
// reader may already have passed. Readers only ever see numbered events.
import { type Executor, inTransaction } from "./executor.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import type { EventEnvelope, EventType } from "../kernel/events.ts";

/** One event of the feed and its position. */
export interface FeedEvent {
  position: bigint;
  envelope: EventEnvelope;
}

export interface FeedQuery {
  environment: Environment;
  /** Events after this position (0: from the start). */
  after: bigint;
  types?: readonly EventType[];
  since?: Date;
  /** At most this many events. */
  limit: number;
}

/** How far retention removed events: positions up to `prunedThrough`, times before `prunedBefore`. */
export interface FeedHorizon {
  lastPosition: bigint;
  prunedThrough: bigint;
  prunedBefore: Date | null;
}

/** Events the step numbers at once; a larger backlog is numbered by the following steps. */
const STEP_BATCH = 5000;

interface Row {
  position: bigint;
  payload: EventEnvelope;
}

function filters(query: Omit<FeedQuery, "limit" | "after">, first: number): { sql: string; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  if (query.types?.length) {
    values.push(query.types);
    clauses.push(`AND type = ANY($${first + values.length - 1}::text[])`);
  }
  if (query.since) {
    values.push(query.since);
    clauses.push(`AND created_at >= $${first + values.length - 1}::timestamp(3)`);
  }
  return { sql: clauses.join(" "), values };
}

export function createEventFeedRepository(db: Executor) {
  return {
    /**
     * Numbers the committed events that have no position yet (the serialized step). Answers how
     * many it numbered. Cheap when there are none: one index probe, no lock.
     */
    async assignPositions(): Promise<number> {
      const [pending] = await db.$queryRaw<{ any: boolean }[]>`
        SELECT EXISTS (SELECT 1 FROM outbox_events WHERE feed_position IS NULL) AS any`;
      if (!pending.any) return 0;
      return inTransaction(db, async (tx) => {
        const [feed] = await tx.$queryRaw<{ last: bigint }[]>`
          SELECT last_position AS last FROM event_feed WHERE id = 1 FOR UPDATE`;
        const numbered = await tx.$executeRaw`
          UPDATE outbox_events AS o SET feed_position = n.position
          FROM (
            SELECT sequence, ${feed.last}::bigint + row_number() OVER (ORDER BY sequence) AS position
            FROM (SELECT sequence FROM outbox_events WHERE feed_position IS NULL ORDER BY sequence LIMIT ${STEP_BATCH}) AS p
          ) AS n
          WHERE o.sequence = n.sequence`;
        if (numbered > 0) {
          await tx.$executeRaw`UPDATE event_feed SET last_position = last_position + ${numbered} WHERE id = 1`;
        }
        return numbered;
      });
    },

    /** The feed's last position and its retention horizon, as one reading. */
    async horizon(): Promise<FeedHorizon> {
      const [row] = await db.$queryRaw<FeedHorizon[]>`
        SELECT last_position AS "lastPosition", pruned_through AS "prunedThrough", pruned_before AS "prunedBefore"
        FROM event_feed WHERE id = 1`;
      return row;
    },

    /**
     * Up to `limit` events after `after`, in feed order, with the feed's horizon read in the same
     * statement: every matching event up to `lastPosition` is in the answer or after it.
     */
    async read(query: FeedQuery): Promise<{ events: FeedEvent[]; horizon: FeedHorizon }> {
      const extra = filters(query, 4);
      const rows = await db.$queryRawUnsafe<(Row & FeedHorizon)[]>(
        `SELECT o.feed_position AS position, o.payload, f.last_position AS "lastPosition",
           f.pruned_through AS "prunedThrough", f.pruned_before AS "prunedBefore"
         FROM event_feed f
         LEFT JOIN LATERAL (
           SELECT feed_position, payload FROM outbox_events
           WHERE environment = $1::"Environment" AND feed_position > $2 ${extra.sql}
           ORDER BY feed_position LIMIT $3
         ) o ON true
         WHERE f.id = 1`,
        query.environment,
        query.after,
        query.limit,
        ...extra.values,
      );
      const [first] = rows;
      const horizon = {
        lastPosition: first.lastPosition,
        prunedThrough: first.prunedThrough,
        prunedBefore: first.prunedBefore,
      };
      const events = rows
        .filter((row) => row.position !== null)
        .map((row) => ({ position: row.position, envelope: row.payload }));
      return { events, horizon };
    },

    /** How many numbered events of the environment match the filters (the list's total). */
    async count(query: Omit<FeedQuery, "limit" | "after">): Promise<number> {
      const extra = filters(query, 2);
      const [row] = await db.$queryRawUnsafe<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM outbox_events
         WHERE environment = $1::"Environment" AND feed_position IS NOT NULL ${extra.sql}`,
        query.environment,
        ...extra.values,
      );
      return row.count;
    },

    /** One event of the environment by id, numbered or not. */
    async byId(environment: Environment, id: string): Promise<EventEnvelope | null> {
      const row = await db.outboxEvent.findFirst({ where: { id, environment }, select: { payload: true } });
      return row ? (row.payload as unknown as EventEnvelope) : null;
    },

    /**
     * Removes the numbered events created before `before` that the dispatcher has fanned out, and
     * records how far it went (cursors and `since` before it are answered 410). Answers how many.
     */
    async prune(before: Date): Promise<number> {
      return inTransaction(db, async (tx) => {
        const [removed] = await tx.$queryRaw<{ count: number; through: bigint | null }[]>`
          WITH gone AS (
            DELETE FROM outbox_events
            WHERE created_at < ${before}::timestamp(3) AND feed_position IS NOT NULL AND dispatched_at IS NOT NULL
            RETURNING feed_position
          )
          SELECT count(*)::int AS count, max(feed_position) AS through FROM gone`;
        if (removed.count > 0) {
          await tx.$executeRaw`
            UPDATE event_feed SET pruned_through = GREATEST(pruned_through, ${removed.through}::bigint),
              pruned_before = GREATEST(COALESCE(pruned_before, ${before}::timestamp(3)), ${before}::timestamp(3))
            WHERE id = 1`;
        }
        return removed.count;
      });
    },
  };
}

export type EventFeedRepository = ReturnType<typeof createEventFeedRepository>;
