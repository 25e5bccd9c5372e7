// PGlite's query() with the statement kept prepared. PGlite's own query() makes
// six separate calls into PostgreSQL for every statement (parse, describe the
// statement, bind, describe the portal, execute, sync), and the calls, not the
// work, are most of its cost: a single-row read took 0.8 ms that way and 0.33 ms
// as one bind/describe/execute/sync of a statement parsed once (measured on
// 1M equivalencies). Prisma sends the same few statement texts over and over, so
// the engine's thread keeps each one prepared (by its text, up to MAX_STATEMENTS,
// least recently used first out) and sends one message per use.
//
// Everything else is done as PGlite's query() does it: the same locks, parameters
// serialised by the types PostgreSQL describes for them, each value parsed by the
// caller's parser for its type or else PGlite's (so the adapter's parsers apply
// unchanged), DatabaseError on failure. One thing is not copied: query() merges
// the caller's parsers into a copy of its own 316 on every call, which cost a
// fifth of the engine thread's time on single-row reads; here each column looks
// its parser up once.
import { messages as pg, parse, protocol, types, type PGlite, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";

const MAX_STATEMENTS = 256;

/** What pglite-prisma-adapter uses of a PGlite. */
export type AdapterClient = Pick<PGlite, "query" | "exec" | "transaction">;

interface Statement {
  name: string;
  paramTypes: number[];
}

/** PostgreSQL forgot the statement, or a schema change altered its result columns. */
const STALE_STATEMENT = new Set(["26000", "0A000"]);

/** The row count in a command tag ("INSERT 0 3", "UPDATE 2"), as PGlite reads it. */
function affectedRowsOf(tag: string): number {
  const words = tag.split(" ");
  switch (words[0]) {
    case "INSERT":
      return parseInt(words[2], 10);
    case "UPDATE":
    case "DELETE":
    case "COPY":
    case "MERGE":
      return parseInt(words[1], 10);
    default:
      return 0;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

export class PreparedStatements {
  /** By statement text; a Map keeps insertion order, so the first key is the least recently used. */
  private readonly statements = new Map<string, Statement>();
  private nextName = 1;
  /** Set by invalidate(): the statements are dropped before the next prepared query. */
  private stale = false;

  constructor(
    private readonly pglite: PGlite,
    private readonly maxStatements = MAX_STATEMENTS,
  ) {}

  /** A PGlite for the adapter whose query(), in and outside transactions, uses prepared statements. */
  client(): AdapterClient {
    const pglite = this.pglite;
    return {
      // Like PGlite's query(): wait for any open transaction, then hold the connection.
      query: ((sql: string, params?: unknown[], options?: QueryOptions) =>
        pglite._runExclusiveTransaction(() => this.query(sql, params, options, { inTransaction: false }))) as PGlite["query"],
      exec: (sql, options) => pglite.exec(sql, options),
      transaction: (callback) =>
        pglite.transaction((tx) => {
          const prepared: Transaction = {
            ...tx,
            query: (async (sql: string, params?: unknown[], options?: QueryOptions) => {
              if (tx.closed) throw new Error("Transaction is closed");
              return this.query(sql, params, options, { inTransaction: true });
            }) as Transaction["query"],
            get closed() {
              return tx.closed;
            },
          };
          return callback(prepared);
        }),
    };
  }

  /** After a script that may change the schema (migrations), start again from no prepared statement. */
  invalidate(): void {
    if (this.statements.size) this.stale = true;
    this.statements.clear();
  }

  private async query<T>(sql: string, params: unknown[] = [], options: QueryOptions | undefined, { inTransaction }: { inTransaction: boolean }) {
    return this.pglite.runExclusive(async () => {
      if (this.stale) {
        this.stale = false;
        await this.pglite.execProtocol(concat([protocol.serialize.query("DEALLOCATE ALL"), protocol.serialize.sync()]), { syncToFs: false });
      }
      try {
        return await this.execute<T>(sql, params, options, inTransaction);
      } catch (error) {
        const code = (error as { code?: string }).code;
        // Outside a transaction a failed statement leaves nothing behind: prepare it again once.
        if (!inTransaction && code && STALE_STATEMENT.has(code) && this.statements.has(sql)) {
          await this.forget(sql);
          return this.execute<T>(sql, params, options, inTransaction);
        }
        throw Object.assign(error as object, { query: sql, params, queryOptions: options });
      }
    });
  }

  private async execute<T>(sql: string, params: unknown[], options: QueryOptions | undefined, inTransaction: boolean): Promise<Results<T>> {
    const statement = await this.prepare(sql);
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const type = statement.paramTypes[index];
      const serialize = options?.serializers?.[type] ?? this.pglite.serializers[type];
      return serialize ? serialize(value) : String(value);
    });
    const { serialize } = protocol;
    const message = concat([
      serialize.bind({ statement: statement.name, values: values as string[] }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    // PGlite's query() writes to the file system after each statement outside a transaction.
    const { messages } = await this.pglite.execProtocol(message, { syncToFs: !inTransaction });
    return this.results<T>(messages, options);
  }

  /** What PGlite's parseResults() answers for one statement. */
  private results<T>(messages: readonly object[], options: QueryOptions | undefined): Results<T> {
    let fields: { name: string; dataTypeID: number }[] = [];
    let parsers: ((value: string) => unknown)[] = [];
    const rows: unknown[] = [];
    let affectedRows = 0;
    for (const message of messages) {
      if (message instanceof pg.RowDescriptionMessage) {
        fields = message.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
        parsers = fields.map(({ dataTypeID }) => {
          const parser = options?.parsers?.[dataTypeID] ?? this.pglite.parsers[dataTypeID] ?? types.parsers[dataTypeID];
          return parser ? (value: string) => parser(value, dataTypeID) : (value: string) => value;
        });
      } else if (message instanceof pg.DataRowMessage) {
        const values = message.fields.map((value: string | null, index: number) => (value === null ? null : parsers[index](value)));
        rows.push(options?.rowMode === "array" ? values : Object.fromEntries(fields.map((field, index) => [field.name, values[index]])));
      } else if (message instanceof pg.CommandCompleteMessage) {
        affectedRows += affectedRowsOf(message.text);
      }
    }
    return { rows: rows as T[], fields, affectedRows };
  }

  private async prepare(sql: string): Promise<Statement> {
    const known = this.statements.get(sql);
    if (known) {
      this.statements.delete(sql);
      this.statements.set(sql, known);
      return known;
    }
    const oldest = this.statements.size >= this.maxStatements ? this.statements.keys().next().value : undefined;
    if (oldest !== undefined) await this.forget(oldest);
    const name = `svc_${this.nextName++}`;
    const { serialize } = protocol;
    const { messages } = await this.pglite.execProtocol(
      concat([serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    this.statements.set(sql, statement);
    return statement;
  }

  private async forget(sql: string): Promise<void> {
    const statement = this.statements.get(sql);
    if (!statement) return;
    this.statements.delete(sql);
    const { serialize } = protocol;
    await this.pglite.execProtocol(concat([serialize.close({ type: "S", name: statement.name }), serialize.sync()]), { syncToFs: false });
  }
}
