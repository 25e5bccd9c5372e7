// The change feed (GET /events and GET /events/stream) for a client that keeps a copy of the
// catalog: `events.follow` pages through the feed from a stored cursor and keeps polling once
// caught up; `events.stream` reads the Server-Sent Events stream and reconnects with
// `Last-Event-ID` whenever the connection ends (a server restart, a network failure, or the
// server's `stream-closed` message: a maximum lifetime, an expired token). Both give
// each event once, in commit order, as long as you store the cursor they hand you after you have
// applied what came with it.
import type { components, operations } from "./api-types.js";
import { ApiError, apiErrorFrom, retryAfterMs } from "./errors.js";

/** An event of the feed: the webhook envelope, typed by `type` as verifyWebhook types it. */
export type FeedEvent = components["schemas"]["Event"];
type EventPage = operations["listEvents"]["responses"][200]["content"]["application/json"];
type FeedQuery = NonNullable<operations["listEvents"]["parameters"]["query"]>;
type StreamQuery = NonNullable<operations["streamEvents"]["parameters"]["query"]>;

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export interface FollowOptions extends Omit<FeedQuery, "after"> {
  /** The cursor you stored (a page's `pagination.nextCursor`); without it the feed is read from its start, or from `since`. */
  after?: string;
  /** The wait between two reads once the feed is caught up; 1000 ms by default. */
  pollIntervalMs?: number;
  /**
   * End the iteration once the feed is caught up (a page with `hasMore: false`) instead of polling:
   * for a job that reads to the end and stops. That last page is yielded even without events, so
   * its cursor can be stored.
   */
  untilCaughtUp?: boolean;
  /** Ends the iteration (between pages, or during the wait). */
  signal?: AbortSignal;
}

/** One page of the feed: apply `data`, then store `cursor`, from which `follow` resumes after a restart. */
export interface FollowedPage {
  data: FeedEvent[];
  cursor: string;
  /** No more events followed this page when it was read: the feed is caught up. */
  caughtUp: boolean;
}

export interface StreamOptions {
  /** The id of the last event you applied (stored from a StreamedEvent); without it, `after` of the query, or the end of the feed. */
  lastEventId?: string;
  /** The wait before reconnecting when the server sends no `retry:`; 2000 ms by default. */
  reconnectDelayMs?: number;
  /** Ends the iteration and closes the connection. */
  signal?: AbortSignal;
}

/** An event of the stream and its id: store the id after applying the event, and pass it as `lastEventId` to resume. */
export interface StreamedEvent {
  id: string;
  event: FeedEvent;
}

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

/**
 * The pages of the feed after `options.after`, forever (until the signal aborts, or with
 * `untilCaughtUp` until the feed is caught up): a page as soon as there are events, and a read every
 * `pollIntervalMs` once caught up. Pages without events are not yielded (but the last one with
 * `untilCaughtUp`); their cursor is kept for the next read.
 */
export async function* followEvents(
  fetchPage: (query: FeedQuery) => Promise<Outcome<EventPage>>,
  options: FollowOptions = {},
): AsyncGenerator<FollowedPage, void, undefined> {
  const { after: start, pollIntervalMs = 1000, untilCaughtUp = false, signal, ...filters } = options;
  let after = start;
  while (!signal?.aborted) {
    const query: FeedQuery = { limit: 100, ...filters, ...(after ? { after, since: undefined } : {}) };
    const { data, error, response } = await fetchPage(query);
    if (!response.ok || !data) throw apiErrorFrom(response, error);
    after = data.pagination.nextCursor ?? after;
    const caughtUp = !data.pagination.hasMore;
    if (data.data.length || (caughtUp && untilCaughtUp)) yield { data: data.data, cursor: after!, caughtUp };
    if (caughtUp && untilCaughtUp) return;
    if (caughtUp) await pause(pollIntervalMs, signal);
  }
}

/** Statuses after which reconnecting may succeed (the stream limit, a restarting server). */
const TRANSIENT = new Set([429, 502, 503, 504]);

/**
 * The events of the stream, reconnecting with `Last-Event-ID` whenever the connection ends, until
 * the signal aborts. A refusal that a retry cannot change (400, 401, 403, 410) is thrown as ApiError.
 * When the server ends the stream itself (`event: stream-closed`: its maximum lifetime, an expired
 * token, a revoked credential) the stream reconnects at once: with a credential still good (a fresh
 * token from the client's OAuth credentials) it resumes after the last event; a revoked one is
 * answered 401, thrown as AuthenticationError with the server's reason.
 */
export async function* eventStream(
  open: (query: StreamQuery, lastEventId: string | undefined, signal?: AbortSignal) => Promise<Outcome<unknown>>,
  query: StreamQuery = {},
  options: StreamOptions = {},
): AsyncGenerator<StreamedEvent, void, undefined> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  let delay = options.reconnectDelayMs ?? 2000;
  while (!signal?.aborted) {
    let outcome: Outcome<unknown>;
    try {
      outcome = await open(lastEventId ? { ...query, after: undefined } : query, lastEventId, signal);
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiError) throw error;
      await pause(delay, signal);
      continue;
    }
    const { response, error } = outcome;
    if (!response.ok) {
      if (!TRANSIENT.has(response.status)) throw apiErrorFrom(response, error);
      await pause(retryAfterMs(response.headers.get("retry-after"), Date.now()) ?? delay, signal);
      continue;
    }
    let closedByServer = false;
    try {
      for await (const message of messagesOf(response.body!, signal)) {
        if (message.retry !== undefined) delay = message.retry;
        if (message.event === STREAM_CLOSED) {
          closedByServer = true;
          break;
        }
        if (message.data === undefined || message.id === undefined) continue;
        lastEventId = message.id;
        yield { id: message.id, event: JSON.parse(message.data) as FeedEvent };
      }
    } catch {
      // The connection failed mid-stream: reconnect from the last event received.
    }
    // The server said why it ended the stream: ask again now; the answer decides (200, or 401 thrown).
    if (!signal?.aborted && !closedByServer) await pause(delay, signal);
  }
}

/** The last message of a stream the server ended: `data` says why and whether reconnecting can succeed. */
const STREAM_CLOSED = "stream-closed";

interface Message {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** The messages of a text/event-stream body, as they arrive. */
async function* messagesOf(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<Message> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", cancel, { once: true });
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        yield parseMessage(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
      }
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    cancel();
  }
}

function parseMessage(block: string): Message {
  const message: Message = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") message.id = value;
    else if (field === "event") message.event = value;
    else if (field === "data") message.data = message.data === undefined ? value : `${message.data}\n${value}`;
    else if (field === "retry" && /^\d+$/.test(value)) message.retry = Number(value);
  }
  return message;
}
