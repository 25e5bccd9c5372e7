// List totals (X-Total-Count, pagination.total) of large results. Counting
// hundreds of thousands of matching rows costs more than reading the page
// itself, so a total above EXACT_TOTAL_LIMIT is reused for up to TOTAL_TTL_MS
// per database and filter combination. Writes made through this process forget
// the remembered totals at once; the TTL bounds how long a write made by
// another process (a second server, the CLI) can go unseen. Totals up to the
// limit are never remembered, so small lists are always counted exactly.
import type { Db } from "../db/database.ts";

export const EXACT_TOTAL_LIMIT = 10_000;
export const TOTAL_TTL_MS = 10_000;

interface Remembered {
  total: Promise<number>;
  expiresAt: number;
}

class TotalsOfOneDatabase {
  /** Bumped by every write, so a count that started before it is not kept. */
  generation = 0;
  readonly entries = new Map<string, Remembered>();
}

export class ListTotals {
  private readonly byDatabase = new WeakMap<Db, TotalsOfOneDatabase>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = TOTAL_TTL_MS,
    private readonly exactLimit = EXACT_TOTAL_LIMIT,
  ) {}

  /** The remembered total for this key, or count() (once, however many requests ask at the same time). */
  total(db: Db, key: string, count: () => Promise<number>): Promise<number> {
    const totals = this.of(db);
    const remembered = totals.entries.get(key);
    if (remembered && remembered.expiresAt > this.now()) return remembered.total;
    const generation = totals.generation;
    const total = count();
    totals.entries.set(key, { total, expiresAt: this.now() + this.ttlMs });
    const forgetUnlessKept = (keep: boolean) => {
      if (!keep && totals.entries.get(key)?.total === total) totals.entries.delete(key);
    };
    total.then(
      (value) => forgetUnlessKept(value > this.exactLimit && totals.generation === generation),
      () => forgetUnlessKept(false),
    );
    return total;
  }

  /** Called after every committed write that can change what a list counts. */
  forget(db: Db): void {
    const totals = this.of(db);
    totals.generation += 1;
    totals.entries.clear();
  }

  private of(db: Db): TotalsOfOneDatabase {
    const existing = this.byDatabase.get(db);
    if (existing) return existing;
    const totals = new TotalsOfOneDatabase();
    this.byDatabase.set(db, totals);
    return totals;
  }
}
