// The feed's Server-Sent Events streams of one process. Each stream reads the feed after its
// own position, in feed order, and sends what it read; when it has caught up it waits for the
// process's watcher, which (only while streams are open) runs the feed's serialized step and
// reads the feed's last position every poll interval, or at once when woken: by a local write,
// or on PostgreSQL by the NOTIFY every committed event sends, so every API process streams every
// event. A stream that waited a keep-alive interval without sending sends a comment line.
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
type Filters = { types?: readonly EventType[] };

export interface FeedStreamsDependencies {
  settings: Config["events"];
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
  organizationId: string;
  body: PassThrough;
  closed: boolean;
}

/** One SSE message: the cursor as id, the type as event name, the envelope as data (one line of JSON). */
export function formatEvent(id: string, event: FeedEvent): string {
  return `id: ${id}\nevent: ${event.envelope.type}\ndata: ${JSON.stringify(event.envelope)}\n\n`;
}

export class FeedStreams {
  private readonly deps: FeedStreamsDependencies;
  private readonly open_ = new Set<OpenStream>();
  private readonly perOrganization = new Map<string, number>();
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

  /** TooManyStreamsError when the organization holds as many streams as allowed in this process. */
  checkRoom(organizationId: string): void {
    const limit = this.deps.settings.maxStreamsPerOrganization;
    if ((this.perOrganization.get(organizationId) ?? 0) >= limit) {
      eventStreamsRefused.inc();
      throw new TooManyStreamsError(limit);
    }
  }

  /** Starts a stream after `start`; its body ends when the client leaves or the server stops. */
  open(caller: Caller, start: bigint, filters: Filters): Readable {
    this.checkRoom(caller.organizationId);
    const stream: OpenStream = { organizationId: caller.organizationId, body: new PassThrough(), closed: false };
    this.open_.add(stream);
    this.perOrganization.set(caller.organizationId, (this.perOrganization.get(caller.organizationId) ?? 0) + 1);
    eventStreamsOpen.inc();
    stream.body.once("close", () => this.release(stream));
    this.startWatching();
    void this.run(stream, caller, start, filters).catch((error: unknown) => {
      if (!stream.closed) stream.body.destroy(error as Error);
    });
    return stream.body;
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

  private release(stream: OpenStream): void {
    if (!this.open_.delete(stream)) return;
    stream.closed = true;
    const count = (this.perOrganization.get(stream.organizationId) ?? 1) - 1;
    if (count > 0) this.perOrganization.set(stream.organizationId, count);
    else this.perOrganization.delete(stream.organizationId);
    eventStreamsOpen.dec();
    this.resolveWaiters();
    if (this.open_.size === 0) this.stopWatching();
  }

  private async run(stream: OpenStream, caller: Caller, start: bigint, filters: Filters): Promise<void> {
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
      if (!moved && !stream.closed) await this.write(stream, ": keep-alive\n\n");
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
