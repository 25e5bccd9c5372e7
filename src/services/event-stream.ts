// The feed's Server-Sent Events streams of one process. Each stream reads the feed after its
// own position, in feed order, and sends what it read; when it has caught up it waits for the
// process's watcher, which (only while streams are open) runs the feed's serialized step and
// reads the feed's last position every poll interval, or at once when woken: by a local write,
// or on PostgreSQL by the NOTIFY every committed event sends, so every API process streams every
// event. A stream that waited a keep-alive interval without sending sends a comment line.
//
// A stream holds its credential to account while it is open: a revocation heard by this process
// ends the credential's streams at once, and each keep-alive, the token's `exp` and the maximum
// lifetime check it again. A stream the server ends that way gets a last message, `event:
// stream-closed`, saying why and whether reconnecting (with Last-Event-ID) can succeed.
import { PassThrough, type Readable } from "node:stream";
import type { Credential } from "../auth/credential.ts";
import type { Config } from "../kernel/config.ts";
import { TooManyStreamsError } from "../kernel/errors.ts";
import type { EventType } from "../kernel/events.ts";
import { eventStreamEvents, eventStreamsOpen, eventStreamsRefused } from "../kernel/metrics.ts";
import type { FeedEvent } from "../repositories/event-feed.ts";

/** The database's LISTEN (Database.listen): answers the function that stops listening. */
export type FeedListen = (
  channel: string,
  onNotice: (payload: string) => void,
  onGap: () => void,
) => () => Promise<void>;

/** Sent by the trigger of migration 20261129000000_event_feed when events commit. */
export const EVENT_CHANNEL = "svc_event_committed";

/** Events read at once by a stream that is catching up. */
const BATCH = 500;
/** What EventSource waits before reconnecting, in milliseconds (the `retry:` field). */
const RETRY_MS = 2000;

type Caller = Pick<Credential, "organizationId" | "environment">;
/** The credential a stream was opened with, as it is held to account. */
export type StreamCaller = Pick<Credential, "id" | "kind" | "organizationId" | "environment" | "expiresAt" | "user">;
type Filters = { types?: readonly EventType[] };

/** Why the server ended a stream (the `reason` of its `stream-closed` message). */
export type StreamEndReason = "credential-revoked" | "credential-expired" | "max-lifetime";

/** The largest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface FeedStreamsDependencies {
  settings: Config["events"];
  /** Milliseconds since the epoch (tests drive it). */
  now?: () => number;
  /** Why the credential is no longer accepted (revoked, session ended), or null while it is. */
  refusal?(caller: StreamCaller): Promise<string | null>;
  listen?: FeedListen;
  /** The feed's serialized step. */
  step(): Promise<number>;
  /** The feed's last position. */
  head(): Promise<bigint>;
  read(
    caller: Caller,
    after: bigint,
    filters: Filters,
    limit: number,
  ): Promise<{ events: FeedEvent[]; horizon: { lastPosition: bigint } }>;
  cursorOf(caller: Caller, position: bigint): string;
}

interface OpenStream {
  caller: StreamCaller;
  /** What the stream counts against: the organization, or for the public sandbox key the client address. */
  room: string;
  openedAt: number;
  body: PassThrough;
  closed: boolean;
  deadline: NodeJS.Timeout | null;
}

/** Where a stream comes from: the client address, and whether the credential is the public sandbox key (counted per address). */
export interface StreamOrigin {
  address: string;
  perAddress: boolean;
}

/** The last message of a stream the server ended. */
export function formatStreamClosed(reason: StreamEndReason, detail: string): string {
  const reconnect = reason !== "credential-revoked";
  return `event: stream-closed\ndata: ${JSON.stringify({ reason, reconnect, detail })}\n\n`;
}

/** One SSE message: the cursor as id, the type as event name, the envelope as data (one line of JSON). */
export function formatEvent(id: string, event: FeedEvent): string {
  return `id: ${id}\nevent: ${event.envelope.type}\ndata: ${JSON.stringify(event.envelope)}\n\n`;
}

export class FeedStreams {
  private readonly deps: FeedStreamsDependencies;
  private readonly open_ = new Set<OpenStream>();
  /** Open streams per room (organization, or client address for the public sandbox key). */
  private readonly perRoom = new Map<string, number>();
  /** Streams waiting for the feed to move. */
  private waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private ticking: Promise<void> | null = null;
  private tickAgain = false;
  private lastHead = -1n;

  constructor(deps: FeedStreamsDependencies) {
    this.deps = deps;
  }

  private now(): number {
    return this.deps.now ? this.deps.now() : Date.now();
  }

  /** The room a stream counts against and its limit. */
  private roomOf(caller: Caller, origin: StreamOrigin): { room: string; limit: number; perAddress: boolean } {
    const { settings } = this.deps;
    return origin.perAddress
      ? { room: `address:${origin.address}`, limit: settings.maxStreamsPerAddress, perAddress: true }
      : { room: `organization:${caller.organizationId}`, limit: settings.maxStreamsPerOrganization, perAddress: false };
  }

  /** TooManyStreamsError when the organization (or the address) holds as many streams as allowed in this process. */
  checkRoom(caller: Caller, origin: StreamOrigin): void {
    const { room, limit, perAddress } = this.roomOf(caller, origin);
    if ((this.perRoom.get(room) ?? 0) >= limit) {
      eventStreamsRefused.inc();
      throw new TooManyStreamsError(limit, perAddress ? "address" : "organization");
    }
  }

  /** Starts a stream after `start`; its body ends when the client leaves, the server stops or the credential lapses. */
  open(caller: StreamCaller, origin: StreamOrigin, start: bigint, filters: Filters): Readable {
    this.checkRoom(caller, origin);
    const { room } = this.roomOf(caller, origin);
    const stream: OpenStream = {
      caller,
      room,
      openedAt: this.now(),
      body: new PassThrough(),
      closed: false,
      deadline: null,
    };
    this.open_.add(stream);
    this.perRoom.set(room, (this.perRoom.get(room) ?? 0) + 1);
    eventStreamsOpen.inc();
    stream.body.once("close", () => this.release(stream));
    this.startWatching();
    this.scheduleDeadline(stream);
    void this.run(stream, caller, start, filters).catch((error: unknown) => {
      if (!stream.closed) stream.body.destroy(error as Error);
    });
    return stream.body;
  }

  /** Ends, at once, the streams of a revoked credential (an API key's or OAuth client's record id, a user's id). */
  revoked(credentialId: string): void {
    for (const stream of [...this.open_]) {
      if (stream.caller.id === credentialId) this.end(stream, "credential-revoked", "The credential was revoked.");
    }
  }

  /**
   * Holds every open stream to account now: its token's `exp`, its maximum lifetime and whether its
   * credential is still accepted (after revocation notices may have been missed, and in tests).
   */
  async recheck(now = this.now()): Promise<void> {
    await Promise.all([...this.open_].map((stream) => this.recheckOne(stream, now)));
  }

  /** Look for new events now. */
  wake(): void {
    if (this.open_.size) void this.tick();
  }

  async closeAll(): Promise<void> {
    for (const stream of [...this.open_]) {
      stream.closed = true;
      stream.body.end();
      this.release(stream);
    }
    this.resolveWaiters();
    await this.ticking;
  }

  /** Ends a stream with its last message: why, and whether reconnecting can succeed. */
  private end(stream: OpenStream, reason: StreamEndReason, detail: string): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.body.end(formatStreamClosed(reason, detail));
    this.release(stream);
  }

  private async recheckOne(stream: OpenStream, now = this.now()): Promise<void> {
    if (stream.closed) return;
    const { expiresAt } = stream.caller;
    if (expiresAt !== undefined && expiresAt <= now) {
      this.end(
        stream,
        "credential-expired",
        "The access token expired: reconnect with a fresh token and Last-Event-ID.",
      );
      return;
    }
    const lifetime = this.deps.settings.maxStreamMs;
    if (now - stream.openedAt >= lifetime) {
      this.end(
        stream,
        "max-lifetime",
        `The stream reached its maximum lifetime (${lifetime / 1000} s): reconnect with Last-Event-ID.`,
      );
      return;
    }
    let refusal: string | null = null;
    try {
      refusal = (await this.deps.refusal?.(stream.caller)) ?? null;
    } catch {
      // The database did not answer: the next check asks again.
    }
    if (refusal) this.end(stream, "credential-revoked", refusal);
  }

  /** Checks the stream again when its token expires or its lifetime ends, whichever comes first. */
  private scheduleDeadline(stream: OpenStream): void {
    const ends = Math.min(stream.openedAt + this.deps.settings.maxStreamMs, stream.caller.expiresAt ?? Infinity);
    const delay = Math.min(Math.max(0, ends - this.now()), MAX_TIMER_MS);
    stream.deadline = setTimeout(() => {
      stream.deadline = null;
      void this.recheckOne(stream).then(() => {
        if (!stream.closed) this.scheduleDeadline(stream);
      });
    }, delay);
    stream.deadline.unref();
  }

  private release(stream: OpenStream): void {
    if (!this.open_.delete(stream)) return;
    stream.closed = true;
    if (stream.deadline) clearTimeout(stream.deadline);
    stream.deadline = null;
    const count = (this.perRoom.get(stream.room) ?? 1) - 1;
    if (count > 0) this.perRoom.set(stream.room, count);
    else this.perRoom.delete(stream.room);
    eventStreamsOpen.dec();
    this.resolveWaiters();
    if (this.open_.size === 0) this.stopWatching();
  }

  private async run(stream: OpenStream, caller: StreamCaller, start: bigint, filters: Filters): Promise<void> {
    let position = start;
    await this.write(stream, `retry: ${RETRY_MS}\n\n`);
    while (!stream.closed) {
      const { events, horizon } = await this.deps.read(caller, position, filters, BATCH);
      if (stream.closed) return;
      for (const event of events) {
        position = event.position;
        await this.write(stream, formatEvent(this.deps.cursorOf(caller, position), event));
        eventStreamEvents.inc();
        if (stream.closed) return;
      }
      if (events.length === BATCH) continue;
      // Caught up: nothing up to the feed's last position is left for this stream.
      if (horizon.lastPosition > position) position = horizon.lastPosition;
      if (this.lastHead > position) continue;
      const moved = await this.waitForChange(this.deps.settings.keepAliveMs);
      if (moved || stream.closed) continue;
      await this.recheckOne(stream);
      if (!stream.closed) await this.write(stream, ": keep-alive\n\n");
    }
  }

  /** Writes, waiting while the client reads slower than events come. */
  private async write(stream: OpenStream, text: string): Promise<void> {
    if (stream.closed) return;
    if (stream.body.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        stream.body.off("drain", done);
        stream.body.off("close", done);
        resolve();
      };
      stream.body.once("drain", done);
      stream.body.once("close", done);
    });
  }

  /** Resolves true when the feed moved (or a stream closed), false after `timeoutMs`. */
  private waitForChange(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private resolveWaiters(): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const waiter of waiters) waiter();
  }

  private startWatching(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.deps.settings.pollIntervalMs);
    this.timer.unref();
    this.stopListening =
      this.deps.listen?.(
        EVENT_CHANNEL,
        () => void this.tick(),
        () => void this.tick(),
      ) ?? null;
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const stop = this.stopListening;
    this.stopListening = null;
    void stop?.().catch(() => undefined);
  }

  /** One look at the feed: number what committed, and wake the streams when its end moved. */
  private tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        do {
          this.tickAgain = false;
          await this.deps.step();
          const head = await this.deps.head();
          if (head !== this.lastHead) {
            this.lastHead = head;
            this.resolveWaiters();
          }
        } while (this.tickAgain && this.open_.size);
      } catch {
        // The next tick tries again; streams keep waiting meanwhile.
      } finally {
        this.ticking = null;
      }
    })();
    return this.ticking;
  }
}
