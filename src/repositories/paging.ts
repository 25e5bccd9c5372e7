// The one place a list query is paired with its count: both run together and
// answer one page of items with the total the page belongs to. The page is
// taken so every list reads the same way, though the queries already apply it.
import type { Page, PageResult } from "../services/types.ts";

export async function pageOf<T>(_page: Page, items: () => Promise<T[]>, total: () => Promise<number>): Promise<PageResult<T>> {
  const [pageItems, count] = await Promise.all([items(), total()]);
  return { items: pageItems, total: count };
}
