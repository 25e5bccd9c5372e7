// Prisma's driver adapter for the embedded database on its own thread: every call
// is forwarded to the adapter that runs beside PGlite in the database
// thread (src/db/embedded-thread.ts), and transactions are named by a number the thread
// hands out. Prisma sees the same results and errors as with the adapter in-process.
import type {
  ConnectionInfo,
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
  TransactionOptions,
} from "@prisma/driver-adapter-utils";
import type { EmbeddedEngine } from "./embedded-engine.ts";

const ADAPTER_NAME = "pglite-prisma-adapter (database thread)";

class ForwardingQueryable {
  readonly provider = "postgres" as const;
  readonly adapterName = ADAPTER_NAME;

  constructor(
    protected readonly engine: EmbeddedEngine,
    private readonly tx?: number,
  ) {}

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.engine.call({ op: "queryRaw", query, tx: this.tx });
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.engine.call({ op: "executeRaw", query, tx: this.tx });
  }
}

class ForwardingTransaction extends ForwardingQueryable implements Transaction {
  constructor(
    engine: EmbeddedEngine,
    private readonly id: number,
    readonly options: TransactionOptions,
  ) {
    super(engine, id);
  }

  async commit(): Promise<void> {
    await this.engine.call({ op: "commit", tx: this.id });
  }

  async rollback(): Promise<void> {
    await this.engine.call({ op: "rollback", tx: this.id });
  }
}

class ForwardingAdapter extends ForwardingQueryable implements SqlDriverAdapter {
  async executeScript(script: string): Promise<void> {
    await this.engine.call({ op: "executeScript", script });
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    const { id, options } = await this.engine.call<{ id: number; options: TransactionOptions }>({
      op: "begin",
      isolationLevel,
    });
    return new ForwardingTransaction(this.engine, id, options);
  }

  getConnectionInfo(): ConnectionInfo {
    return { supportsRelationJoins: true };
  }

  async dispose(): Promise<void> {}
}

export function embeddedAdapterFactory(engine: EmbeddedEngine): SqlDriverAdapterFactory {
  return {
    provider: "postgres",
    adapterName: ADAPTER_NAME,
    connect: async () => new ForwardingAdapter(engine),
  };
}
