// One page of a list: the page's rows and the total they are counted from,
// read at the same time (the count does not wait for the rows).

export interface Page {
  limit: number;
  offset: number;
}

export interface PageResult<T> {
  items: T[];
  total: number;
}

/** `items` is given the page to read (a function that ignores it, `() => ...`, fits too). */
export async function pageOf<T>(
  page: Page,
  items: (page: Page) => Promise<T[]>,
  total: () => Promise<number>,
): Promise<PageResult<T>> {
  const [rows, count] = await Promise.all([items(page), total()]);
  return { items: rows, total: count };
}
