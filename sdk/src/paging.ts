// Lists of the API are paged by `limit` and `offset`, or by cursor (`after`,
// from `pagination.nextCursor`). A list method returns a ListRequest: awaiting
// it gives the first page; iterating it with `for await` walks every item of
// every page, following the cursors (each page costs the server what the first
// does, and no item is repeated or skipped when items are added meanwhile).
import type { components } from "./api-types.js";

export type Pagination = components["schemas"]["Pagination"];

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export interface PageQuery {
  limit?: number;
  offset?: number;
  after?: string;
}

/** The largest page the API serves; used when iterating without an explicit `limit`. */
const ITERATION_PAGE_SIZE = 100;

export class ListRequest<T, Q extends PageQuery = PageQuery> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  #firstPage: Promise<Page<T>> | undefined;

  constructor(
    private readonly fetchPage: (query: Q) => Promise<Page<T>>,
    private readonly query: Q,
  ) {}

  /** The page the query asks for (the first one unless `offset` says otherwise). */
  then<R1 = Page<T>, R2 = never>(
    onFulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    // `any`, as in PromiseLike: a rejection can carry anything.
    onRejected?: ((reason: any) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.#firstPage ??= this.fetchPage(this.query);
    return this.#firstPage.then(onFulfilled, onRejected);
  }

  /**
   * Every page from the query's position (`offset` or `after`) on, fetched one
   * after the other as they are consumed: each next page by the cursor of the one before.
   */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const limit = this.query.limit ?? ITERATION_PAGE_SIZE;
    let query: Q = { ...this.query, limit };
    for (;;) {
      const page = await this.fetchPage(query);
      yield page;
      const next = page.pagination.nextCursor;
      if (!next || page.data.length === 0) return;
      const { offset: _offset, ...rest } = query;
      query = { ...rest, after: next } as Q;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page, in one array. Mind the size of what you ask for. */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
