// One page of a list: the page's rows, the total they are counted from (read
// at the same time: the count does not wait for the rows), and the sort key of
// the page's last row when more rows follow (what a cursor stands for).
//
// A page is asked by `offset`, or by the key a cursor stands for (`after`): a
// keyset page starts with an index range scan at that key, so it costs what
// the first page costs whatever its depth. Every list declares its order (the
// fields it sorts by, the last one unique) and reads its rows with the
// PageQuery it is given; pageOf does the rest.

import { InvalidCursorError } from "../kernel/errors.ts";
import type { KeyValue, Page, PageResult } from "../kernel/paging.ts";

export type { KeyValue, Page, PageResult };

export type Direction = "asc" | "desc";

/** A list's order: the fields it sorts by, each with its direction; the last field (or the whole key) is unique. */
export type Order = readonly (readonly [field: string, direction: Direction])[];

/** What a list's query is given: apply all of it (`after` combined with the list's filters by AND). */
export interface PageQuery {
  /** One row more than the page holds: whether it comes back tells whether a next page exists. */
  take: number;
  skip: number;
  /** The list's order, as Prisma's orderBy. */
  orderBy: Record<string, Direction>[];
  /** A Prisma where condition: the rows after the cursor's key ({} without a cursor). */
  after: Record<string, unknown>;
}

/** Whether a decoded key has one value of a sortable kind for each field of the order. */
export function checkKey(order: Order, after: readonly KeyValue[]): void {
  const ok =
    after.length === order.length &&
    after.every((value) => typeof value === "string" || typeof value === "number" || value instanceof Date);
  if (!ok) throw new InvalidCursorError("the cursor does not fit this list's order");
}

/**
 * The rows after `key` in `order`, as a Prisma condition. For the order
 * (a asc, b asc) and key (x, y): a >= x AND (a > x OR b > y). The leading
 * bound on the first field is what lets the list's index start at the key.
 */
export function afterCondition(order: Order, key: readonly KeyValue[]): Record<string, unknown> {
  checkKey(order, key);
  const beyond = (index: number): Record<string, unknown> => {
    const [field, direction] = order[index];
    const strictly = { [field]: { [direction === "asc" ? "gt" : "lt"]: key[index] } };
    if (index === order.length - 1) return strictly;
    return { OR: [strictly, { AND: [{ [field]: key[index] }, beyond(index + 1)] }] };
  };
  const [first, direction] = order[0];
  if (order.length === 1) return beyond(0);
  return { AND: [{ [first]: { [direction === "asc" ? "gte" : "lte"]: key[0] } }, beyond(0)] };
}

/** The query of a page: one row more than the limit, from the offset, after the cursor's key. */
export function pageQuery(page: Page, order: Order): PageQuery {
  return {
    take: page.limit + 1,
    skip: page.offset,
    orderBy: order.map(([field, direction]) => ({ [field]: direction })),
    after: page.after ? afterCondition(order, page.after) : {},
  };
}

/** The page of rows read with pageQuery: at most `limit` of them, and the key of the last when more follow. */
export function pageFromRows<T>(
  page: Page,
  order: Order,
  rows: T[],
  total: number,
  keyOf: (row: T) => readonly KeyValue[] = (row) => order.map(([field]) => (row as Record<string, KeyValue>)[field]),
): PageResult<T> {
  const items = rows.length > page.limit ? rows.slice(0, page.limit) : rows;
  const next = rows.length > page.limit ? [...keyOf(items[items.length - 1])] : null;
  return { items, total, next };
}

/**
 * A page of a list sorted by `order`: `items` reads the rows with the query it
 * is given (its take, skip, orderBy and the `after` condition), `total` counts
 * the whole list.
 */
export async function pageOf<T>(
  page: Page,
  order: Order,
  items: (query: PageQuery) => Promise<T[]>,
  total: () => Promise<number>,
): Promise<PageResult<T>> {
  const [rows, count] = await Promise.all([items(pageQuery(page, order)), total()]);
  return pageFromRows(page, order, rows, count);
}
