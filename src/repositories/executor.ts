// What a repository runs its statements on: the database client, or an open transaction's client
// when a service's change (with its audit entry) is one transaction.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../db/database.ts";

export type Executor = Db | Prisma.TransactionClient;

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
