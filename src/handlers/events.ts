// The change feed: pages of events in commit order, one event, and the Server-Sent Events stream.
import type { EventType } from "../kernel/events.ts";
import { DEFAULT_LIMIT } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

/** `type` once or repeated: one value or a list. */
function typesOf(type: EventType | EventType[] | undefined): EventType[] | undefined {
  return type === undefined ? undefined : Array.isArray(type) ? type : [type];
}

/** The first page (without a cursor) and, when more events follow now, the next one. */
function feedLinks(url: URL, limit: number, nextCursor: string, hasMore: boolean): string {
  const at = (after: string | null) => {
    const target = new URL(url);
    target.searchParams.set("limit", String(limit));
    if (after === null) target.searchParams.delete("after");
    else target.searchParams.set("after", after);
    return `<${target.pathname}${target.search}>`;
  };
  const links = [`${at(null)}; rel="first"`];
  if (hasMore) links.push(`${at(nextCursor)}; rel="next"`);
  return links.join(", ");
}

export const listEvents: OperationHandler<"listEvents"> = async (request, { caller, services }) => {
  const { type, since, after } = request.query;
  const limit = request.query.limit ?? DEFAULT_LIMIT;
  const page = await services.events.listEvents(caller, { types: typesOf(type), since }, { limit, after });
  return {
    status: 200,
    body: {
      data: page.items,
      pagination: {
        total: page.total,
        limit,
        offset: 0,
        returned: page.items.length,
        nextCursor: page.nextCursor,
        hasMore: page.hasMore,
      },
    },
    headers: {
      "X-Total-Count": String(page.total),
      Link: feedLinks(request.url, limit, page.nextCursor, page.hasMore),
    },
  };
};

export const getEvent: OperationHandler<"getEvent"> = async (request, { caller, services }) => ({
  status: 200,
  body: { data: await services.events.getEvent(caller, request.params.id) },
});

export const streamEvents: OperationHandler<"streamEvents"> = async (request, { caller, services, clientAddress }) => {
  const { type, since, after } = request.query;
  const lastEventId = request.headers["last-event-id"];
  const stream = await services.events.streamEvents(
    caller,
    { types: typesOf(type), since },
    { lastEventId, after },
    clientAddress,
  );
  return {
    status: 200,
    stream,
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      // Proxies that buffer responses (nginx) pass each event on at once.
      "X-Accel-Buffering": "no",
    },
  };
};
