// The change feed: the events of an environment in commit order, paged (listEvents), one by one
// (getEvent) or streamed as Server-Sent Events (streamEvents, see event-stream.ts). Positions
// are given by the feed's serialized step (repositories/event-feed.ts), which every read runs
// first, so a consumer sees an event as soon as its change committed.
//
// A feed cursor is the encrypted position of an event (or of the end of the feed,
// kernel/feed-cursors.ts): positions number both environments' commits, so a cursor in the clear
// would count the other environment's writes. It is bound to the organization and environment,
// not to the filters: a position means the same in every view of the feed, so the cursor of a
// filtered page resumes an unfiltered stream and back. A signed cursor handed out before cursors
// were encrypted (`<payload>.<tag>`) is still accepted: it says nothing its holder did not see.
import type { Readable } from "node:stream";
import type { components } from "../../generated/api-types.ts";
import type { Credential } from "../auth/credential.ts";
import type { Config } from "../kernel/config.ts";
import { CursorExpiredError, InvalidCursorError, notFound } from "../kernel/errors.ts";
import type { EventEnvelope, EventType } from "../kernel/events.ts";
import type { FeedCursors } from "../kernel/feed-cursors.ts";
import type { Cursors } from "../kernel/paging.ts";
import type { EventFeedRepository, FeedHorizon } from "../repositories/event-feed.ts";
import { PUBLIC_SANDBOX_KEY_ID } from "./sandbox.ts";
import { FeedStreams, type FeedListen, type StreamCaller, type StreamOrigin } from "./event-stream.ts";

export interface FeedFilters {
  types?: readonly EventType[];
  since?: string;
}

/** The envelope as the contract types it: the `Event` union, its `data` typed by `type`. */
type ContractEnvelope = components["schemas"]["Event"];
const asContract = (envelope: EventEnvelope) => envelope as unknown as ContractEnvelope;

export interface EventPage {
  items: ContractEnvelope[];
  total: number;
  /** Where to resume: after the page's last event, or the end of the feed on the last page. */
  nextCursor: string;
  hasMore: boolean;
}

type Caller = Pick<Credential, "organizationId" | "environment">;

/** Pruning runs from the reads, at most this often per process. */
const PRUNE_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

export interface EventsServiceDependencies {
  eventFeed: EventFeedRepository;
  /** Opens the signed cursors handed out before feed cursors were encrypted. */
  cursors: Cursors;
  feedCursors: FeedCursors;
  settings: Config["events"];
  /** Wakes the streams of this process when another process commits an event (PostgreSQL's NOTIFY). */
  listen?: FeedListen;
  clock?: () => Date;
  /** Why a stream's credential is no longer accepted (revoked, session ended), or null while it is. */
  refusal?(caller: StreamCaller): Promise<string | null>;
}

export function createEventsService(deps: EventsServiceDependencies) {
  const { eventFeed, cursors, feedCursors, settings } = deps;
  const clock = deps.clock ?? (() => new Date());
  let lastPrune = 0;

  const scope = (caller: Caller) => JSON.stringify(["/events", caller.environment, caller.organizationId]);
  const cursorOf = (caller: Caller, position: bigint) => feedCursors.seal(scope(caller), position);

  /** The position a cursor stands for; InvalidCursorError (at `pointer`) when it is not one of this feed's. */
  function positionOf(caller: Caller, cursor: string, pointer = "/query/after"): bigint {
    let key: unknown[];
    try {
      if (feedCursors.isSealed(cursor)) return feedCursors.open(scope(caller), cursor);
      key = cursors.open(scope(caller), cursor);
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw new InvalidCursorError(error.message.replace(/^\/query\/after: /, ""), pointer);
      throw error;
    }
    if (key.length !== 1 || typeof key[0] !== "string" || !/^\d{1,19}$/.test(key[0]))
      throw new InvalidCursorError("not a cursor of the event feed", pointer);
    return BigInt(key[0]);
  }

  /** 410 when events after the cursor, or since the time, were removed. */
  function checkHorizon(horizon: FeedHorizon, after: bigint | null, since: Date | undefined): void {
    const cursorExpired = after !== null && after < horizon.prunedThrough;
    const sinceExpired = after === null && since && horizon.prunedBefore && since < horizon.prunedBefore;
    if (cursorExpired || sinceExpired) throw new CursorExpiredError(settings.retentionDays);
  }

  /** Runs the serialized step, and now and then removes what retention let go. */
  async function prepare(): Promise<void> {
    await eventFeed.assignPositions();
    const now = clock();
    if (now.getTime() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now.getTime();
      await pruneExpiredEvents(now);
    }
  }

  /** Removes the events older than the retention that were numbered and fanned out; answers how many. */
  async function pruneExpiredEvents(now = clock()): Promise<number> {
    await eventFeed.assignPositions();
    return eventFeed.prune(new Date(now.getTime() - settings.retentionDays * DAY_MS));
  }

  const streams = new FeedStreams({
    settings,
    now: () => clock().getTime(),
    refusal: deps.refusal,
    listen: deps.listen,
    step: () => eventFeed.assignPositions(),
    head: async () => (await eventFeed.horizon()).lastPosition,
    read: (caller, after, filters, limit) =>
      eventFeed.read({ environment: caller.environment, after, limit, types: filters.types }),
    cursorOf,
  });

  return {
    async listEvents(
      caller: Credential,
      filters: FeedFilters,
      page: { limit: number; after?: string },
    ): Promise<EventPage> {
      const after = page.after !== undefined ? positionOf(caller, page.after) : null;
      const since = filters.since ? new Date(filters.since) : undefined;
      await prepare();
      const query = { environment: caller.environment, types: filters.types, since };
      const { events, horizon } = await eventFeed.read({ ...query, after: after ?? 0n, limit: page.limit + 1 });
      checkHorizon(horizon, after, since);
      const hasMore = events.length > page.limit;
      const items = hasMore ? events.slice(0, page.limit) : events;
      // On the last page the cursor stands for the end of the feed as this read saw it.
      const resume = hasMore ? items[items.length - 1].position : horizon.lastPosition;
      return {
        items: items.map((event) => asContract(event.envelope)),
        total: await eventFeed.count(query),
        nextCursor: cursorOf(caller, resume),
        hasMore,
      };
    },

    async getEvent(caller: Credential, id: string): Promise<ContractEnvelope> {
      const event = await eventFeed.byId(caller.environment, id);
      if (!event) throw notFound.event(id, caller.environment);
      return asContract(event);
    },

    /**
     * Opens a stream of the feed after the cursor (`Last-Event-ID` or `after`), from `since`, or
     * from the end of the feed. Refuses (before anything is sent) a foreign or expired cursor and
     * a stream beyond the organization's (or, for the public sandbox key, the address's) limit.
     */
    async streamEvents(
      caller: Credential,
      filters: FeedFilters,
      cursor: { lastEventId?: string; after?: string },
      clientAddress: string,
    ): Promise<Readable> {
      // The public sandbox key is everyone's: its streams count per client address, not as one pool.
      const origin: StreamOrigin = { address: clientAddress, perAddress: caller.id === PUBLIC_SANDBOX_KEY_ID };
      const after =
        cursor.lastEventId !== undefined
          ? positionOf(caller, cursor.lastEventId, "/header/last-event-id")
          : cursor.after !== undefined
            ? positionOf(caller, cursor.after)
            : null;
      const since = after === null && filters.since ? new Date(filters.since) : undefined;
      streams.checkRoom(caller, origin);
      await prepare();
      let start = after;
      if (start === null && since) {
        const { events, horizon } = await eventFeed.read({
          environment: caller.environment,
          after: 0n,
          since,
          limit: 1,
        });
        checkHorizon(horizon, null, since);
        start = events.length ? events[0].position - 1n : horizon.lastPosition;
      } else if (start === null) {
        start = (await eventFeed.horizon()).lastPosition;
      } else {
        checkHorizon(await eventFeed.horizon(), start, undefined);
      }
      return streams.open(caller, origin, start, filters);
    },

    /**
     * The administrator's tail (CLI `events tail`): the environment's events after a position (or
     * from the end of the feed), then each new one as it commits, until the signal aborts.
     */
    async *tailEvents(
      environment: Credential["environment"],
      options: { after?: bigint; types?: readonly EventType[] },
      signal?: AbortSignal,
    ): AsyncGenerator<{ position: bigint; envelope: EventEnvelope }, void, undefined> {
      await eventFeed.assignPositions();
      let after = options.after ?? (await eventFeed.horizon()).lastPosition;
      while (!signal?.aborted) {
        await eventFeed.assignPositions();
        const { events, horizon } = await eventFeed.read({ environment, after, types: options.types, limit: 100 });
        for (const event of events) {
          after = event.position;
          yield event;
          if (signal?.aborted) return;
        }
        if (events.length === 100) continue;
        if (horizon.lastPosition > after) after = horizon.lastPosition;
        await pause(settings.pollIntervalMs, signal);
      }
    },

    pruneExpiredEvents,

    /** A local write may have committed events: streams look now rather than at the next poll. */
    wake(): void {
      streams.wake();
    },

    /** A credential was revoked (in this process, or heard from the database's notices): its streams end now. */
    credentialRevoked(credentialId: string): void {
      streams.revoked(credentialId);
    },

    /** Holds every open stream's credential to account (expiry, lifetime, revocation) as at `now`. */
    recheckStreams(now = clock()): Promise<void> {
      return streams.recheck(now.getTime());
    },

    /** Ends every open stream (the server is stopping); clients reconnect with Last-Event-ID. */
    closeStreams(): Promise<void> {
      return streams.closeAll();
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
