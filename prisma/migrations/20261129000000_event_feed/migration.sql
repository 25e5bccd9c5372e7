-- The change feed (issue 28): every outbox event gets a feed position, in commit order.
--
-- An event's `sequence` is taken when its row is inserted, inside a transaction that may commit
-- after a later-inserted one: a reader following `sequence` could pass an event that is not yet
-- visible and never see it. So positions are given after commit, by one serialized step
-- (src/repositories/event-feed.ts, assignPositions): holding the lock on the single row of
-- "event_feed", it numbers every committed event still without a position, in `sequence` order,
-- from "last_position" on. An event committed later is numbered by a later step, so a position
-- once read is never followed by a smaller one that appears afterwards.
ALTER TABLE "outbox_events" ADD COLUMN "feed_position" BIGINT;

CREATE TABLE "event_feed" (
    "id" SMALLINT NOT NULL,
    "last_position" BIGINT NOT NULL DEFAULT 0,
    -- Events up to this position were removed after the retention (cursors before it are 410).
    "pruned_through" BIGINT NOT NULL DEFAULT 0,
    -- Events created before this time were removed (a `since` before it is 410).
    "pruned_before" TIMESTAMP(3),

    CONSTRAINT "event_feed_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "event_feed_single_row" CHECK ("id" = 1)
);

-- Events already in the outbox join the feed in their insertion order.
UPDATE "outbox_events" AS o SET "feed_position" = n."position"
FROM (SELECT "sequence", row_number() OVER (ORDER BY "sequence") AS "position" FROM "outbox_events") AS n
WHERE o."sequence" = n."sequence";

INSERT INTO "event_feed" ("id", "last_position") SELECT 1, count(*) FROM "outbox_events";

CREATE UNIQUE INDEX "outbox_events_feed_position_key" ON "outbox_events"("feed_position");
CREATE INDEX "outbox_events_environment_feed_position_idx" ON "outbox_events"("environment", "feed_position");
-- The events the next step numbers (Prisma's schema cannot state a partial index).
CREATE INDEX "outbox_events_unpositioned_idx" ON "outbox_events"("sequence") WHERE "feed_position" IS NULL;

-- Every API process streaming the feed LISTENs here: a committed event wakes it at once
-- (src/services/event-stream.ts); without a listener (the embedded database) it costs nothing.
CREATE FUNCTION "svc_notify_event_committed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_event_committed', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER "outbox_events_committed_notify"
  AFTER INSERT ON "outbox_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "svc_notify_event_committed"();
