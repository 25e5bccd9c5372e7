// List responses: the pagination object and the X-Total-Count / Link headers.
import type { PageResult } from "../services/types.ts";

export interface PageParams {
  limit: number;
  offset: number;
}

export interface Pagination extends PageParams {
  total: number;
  returned: number;
}

export const DEFAULT_LIMIT = 25;

export function pageParams(query: { limit?: number; offset?: number }): PageParams {
  return { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 };
}

export function pagination(page: PageParams, total: number, returned: number): Pagination {
  return { total, limit: page.limit, offset: page.offset, returned };
}

/** RFC 8288 links to the first, previous, next and last pages of a list. */
export function linkHeader(url: URL, page: PageParams, total: number): string {
  const at = (offset: number) => {
    const target = new URL(url);
    target.searchParams.set("limit", String(page.limit));
    target.searchParams.set("offset", String(offset));
    return `<${target.pathname}${target.search}>`;
  };
  const lastOffset = total === 0 ? 0 : Math.floor((total - 1) / page.limit) * page.limit;
  const links = [`${at(0)}; rel="first"`];
  if (page.offset > 0) links.push(`${at(Math.max(0, Math.min(page.offset - page.limit, lastOffset)))}; rel="prev"`);
  if (page.offset + page.limit < total) links.push(`${at(page.offset + page.limit)}; rel="next"`);
  links.push(`${at(lastOffset)}; rel="last"`);
  return links.join(", ");
}

export function listHeaders(url: URL, page: PageParams, total: number): Record<string, string> {
  return { "X-Total-Count": String(total), Link: linkHeader(url, page, total) };
}

/** A list operation's 200 answer: the page's items, its pagination object and the X-Total-Count / Link headers. */
export function listResponse<T>(url: URL, page: PageParams, result: PageResult<T>) {
  return {
    status: 200 as const,
    body: { data: result.items, pagination: pagination(page, result.total, result.items.length) },
    headers: listHeaders(url, page, result.total),
  };
}
