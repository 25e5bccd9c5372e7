// List responses: the page asked for (limit, offset, after), the pagination
// object and the X-Total-Count / Link headers. Every list handler starts with
// pageParams and ends with listResponse; a list that reads its rows with
// pageOf (src/repositories/paging.ts) pages by cursor as well as by offset.
import type { Credential } from "../auth/credential.ts";
import type { KeyValue, Page } from "../kernel/paging.ts";
import type { Services } from "../services/index.ts";

/** The page asked for, and how the next page's cursor is sealed for this list. */
export interface PageParams extends Page {
  /** Whether the request used a cursor (`after`): its next link then carries the next cursor. */
  byCursor: boolean;
  /** The list pages by `after` only (it has no `offset`): every link is by cursor. */
  cursorOnly: boolean;
  /** The cursor of the row a page ends with, for this list, organization, environment and filters. */
  cursorOf(key: readonly KeyValue[]): string;
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  returned: number;
  nextCursor: string | null;
}

export const DEFAULT_LIMIT = 25;

/** Query parameters that move along a list rather than choosing it: left out of a cursor's scope. */
const POSITION_PARAMETERS = new Set(["limit", "offset", "after"]);

/** What a cursor is bound to: the list (its path), the caller's organization and environment, and the filters. */
function cursorScope(url: URL, caller: Pick<Credential, "organizationId" | "environment">): string {
  const filters = [...url.searchParams]
    .filter(([name]) => !POSITION_PARAMETERS.has(name))
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
  return JSON.stringify([url.pathname, caller.environment, caller.organizationId, filters]);
}

/** The page a list request asks for; a cursor (`after`) is opened here, so a bad one is a 400 before any query. */
export function pageParams(
  request: { query: { limit?: number; offset?: number; after?: string }; url: URL },
  context: { caller: Pick<Credential, "organizationId" | "environment">; services: Pick<Services, "cursors"> },
  options: { cursorOnly?: boolean } = {},
): PageParams {
  const { query, url } = request;
  const scope = cursorScope(url, context.caller);
  const cursors = context.services.cursors;
  return {
    limit: query.limit ?? DEFAULT_LIMIT,
    offset: query.offset ?? 0,
    ...(query.after !== undefined ? { after: cursors.open(scope, query.after) } : {}),
    byCursor: query.after !== undefined || options.cursorOnly === true,
    cursorOnly: options.cursorOnly === true,
    cursorOf: (key) => cursors.seal(scope, key),
  };
}

export function pagination(
  page: PageParams,
  result: { total: number; next: readonly KeyValue[] | null },
  returned: number,
): Pagination {
  const nextCursor = result.next ? page.cursorOf(result.next) : null;
  return { total: result.total, limit: page.limit, offset: page.offset, returned, nextCursor };
}

/** The link to another page: the request's query with its position replaced (a copy of the parameters, not of the URL). */
function at(url: URL, page: PageParams, position: { offset: number } | { after: string } | "start"): string {
  const target = new URLSearchParams(url.searchParams);
  target.set("limit", String(page.limit));
  if (position === "start") {
    target.delete("offset");
    target.delete("after");
  } else if ("after" in position) {
    target.delete("offset");
    target.set("after", position.after);
  } else {
    target.delete("after");
    target.set("offset", String(position.offset));
  }
  return `<${url.pathname}?${target}>`;
}

/**
 * RFC 8288 links: by offset, the first, previous, next and last pages; after a
 * cursor, the first page and the next page by cursor (its position by offset
 * is not known). A list without `offset` links its first page without a position.
 */
export function linkHeader(url: URL, page: PageParams, total: number, nextCursor: string | null = null): string {
  const links = [`${at(url, page, page.cursorOnly ? "start" : { offset: 0 })}; rel="first"`];
  if (page.byCursor) {
    if (nextCursor) links.push(`${at(url, page, { after: nextCursor })}; rel="next"`);
    return links.join(", ");
  }
  const lastOffset = total === 0 ? 0 : Math.floor((total - 1) / page.limit) * page.limit;
  if (page.offset > 0) {
    links.push(`${at(url, page, { offset: Math.max(0, Math.min(page.offset - page.limit, lastOffset)) })}; rel="prev"`);
  }
  if (page.offset + page.limit < total)
    links.push(`${at(url, page, { offset: page.offset + page.limit })}; rel="next"`);
  links.push(`${at(url, page, { offset: lastOffset })}; rel="last"`);
  return links.join(", ");
}

export function listHeaders(url: URL, page: PageParams, paging: Pagination): Record<string, string> {
  return { "X-Total-Count": String(paging.total), Link: linkHeader(url, page, paging.total, paging.nextCursor) };
}

/** The 200 answer of every list operation: the page's items, its pagination object and headers. */
export function listResponse<T>(
  url: URL,
  page: PageParams,
  result: { items: T[]; total: number; next: readonly KeyValue[] | null },
) {
  const paging = pagination(page, result, result.items.length);
  return {
    status: 200 as const,
    body: { data: result.items, pagination: paging },
    headers: listHeaders(url, page, paging),
  };
}

/**
 * listResponse for a page the database rendered: its items' JSON text goes into the body as it
 * came, beside the pagination object.
 */
export function renderedListResponse(
  url: URL,
  page: PageParams,
  result: { items: string; returned: number; total: number; next: readonly KeyValue[] | null },
) {
  const paging = pagination(page, result, result.returned);
  return {
    status: 200 as const,
    json: `{"data":${result.items},"pagination":${JSON.stringify(paging)}}`,
    headers: listHeaders(url, page, paging),
  };
}
