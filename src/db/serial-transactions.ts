// A transaction's statements go to its one connection one at a time, on both databases.
//
// Prisma issues the statements of one read at once when it loads several relations (the
// children of a join run under Promise.all), and a repository may do the same over a
// transaction's client (two lookups in Promise.all). Outside a transaction each statement
// takes its own pooled connection; inside one they all share the transaction's connection.
// node-postgres then queued the second statement behind the first itself, a use it
// deprecates ("client.query() when the client is already executing a query", removed in
// pg 9); the embedded database's thread handed each to PGlite's transaction as it arrived.
// Here a transaction's statement waits for the previous one instead, in the order issued,
// and commit and rollback wait for every statement before them.
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from "@prisma/driver-adapter-utils";

/** The adapters of `factory`, whose transactions each run one statement at a time. */
export function serialTransactions(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => serialAdapter(await factory.connect()),
  };
}

function serialAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    executeScript: (script) => adapter.executeScript(script),
    startTransaction: async (isolationLevel) => serialTransaction(await adapter.startTransaction(isolationLevel)),
    getConnectionInfo: adapter.getConnectionInfo && (() => adapter.getConnectionInfo!()),
    dispose: () => adapter.dispose(),
  };
}

/** Each call on the transaction starts when the previous one has settled, failed or not. */
export function serialTransaction(transaction: Transaction): Transaction {
  let previous: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(call: () => Promise<T>): Promise<T> => {
    const next = previous.then(call, call);
    previous = next.catch(() => undefined);
    return next;
  };
  const savepoint = (method: ((name: string) => Promise<void>) | undefined) =>
    method && ((name: string) => inTurn(() => method.call(transaction, name)));
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query: SqlQuery): Promise<SqlResultSet> => inTurn(() => transaction.queryRaw(query)),
    executeRaw: (query: SqlQuery): Promise<number> => inTurn(() => transaction.executeRaw(query)),
    commit: () => inTurn(() => transaction.commit()),
    rollback: () => inTurn(() => transaction.rollback()),
    createSavepoint: savepoint(transaction.createSavepoint),
    rollbackToSavepoint: savepoint(transaction.rollbackToSavepoint),
    releaseSavepoint: savepoint(transaction.releaseSavepoint),
  };
}
