// What a repository runs its statements on: the database client, or an open transaction's client
// when a service's change (with its audit entry) is one transaction.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Database, Db } from "../db/database.ts";

export type Executor = Db | Prisma.TransactionClient;

/** One hand-written statement, with its rows as the driver parses them. */
export type Statement = <T>(sql: string, params: unknown[]) => Promise<T[]>;

/**
 * Where a repository's hand-written statements run: straight on the driver (Database.statement)
 * when the repository is not bound to a transaction, so the work that must not load Prisma's query
 * compiler (start-up, the dispatcher's idle poll) never does; inside a transaction, or without a
 * driver (tests over a bare client), on the executor. Statements meant for both answer only text and
 * integers, which both parse alike.
 */
export function statementsOn(db: Executor, driver?: Database["statement"]): Statement {
  return driver ?? (<T>(sql: string, params: unknown[]) => db.$queryRawUnsafe<T[]>(sql, ...params));
}

/** The clients of the transactions Repositories.transaction opened (a transaction client cannot open another). */
const openTransactions = new WeakSet<object>();

/** Marks `tx` as an open transaction's client: statements run on it join that transaction. */
export function markTransaction<T extends object>(tx: T): T {
  openTransactions.add(tx);
  return tx;
}

/** Runs `work` in a transaction of its own, or inside the one `executor` already is. */
export function inTransaction<T>(
  executor: Executor,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
  options?: { maxWait?: number; timeout?: number },
): Promise<T> {
  if (openTransactions.has(executor) || !("$transaction" in executor)) return work(executor);
  return executor.$transaction(work, options);
}
