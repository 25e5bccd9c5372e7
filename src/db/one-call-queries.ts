// PGlite's query() in one call into PostgreSQL instead of six. PGlite's own query()
// sends parse, describe-statement, bind, describe-portal, execute and sync as six
// separate calls, and the calls, not the work, are most of its cost: a single-row
// read through the "equivalency_expanded_json" function took 0.42–0.58 ms that way
// and 0.17–0.23 ms as one message of all six (measured on 1M equivalencies). The
// describe-statement step is there only to learn the parameters' types (which pick
// the serializer of each value); they depend on the statement's text alone, so they
// are asked once per text and remembered.
//
// Everything else is done as query() does it: the same unnamed statement, so
// PostgreSQL plans each execution for its values as before (a named, prepared
// statement may be given a generic plan, which for batches joined through
// json_to_recordset was twice as slow or worse); the same locks; parameters
// serialised by those types; each value parsed by the caller's parser for its type
// or else PGlite's (so the adapter's parsers apply unchanged); DatabaseError on
// failure, carrying the statement. One thing is not copied: query() merges the
// caller's parsers into a copy of its own 316 on every call, which cost a fifth of
// the engine thread's time on single-row reads; here each column looks its parser
// up once.
import {
  messages as pg,
  parse,
  protocol,
  types,
  type PGlite,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";

/** Statement texts whose parameter types are remembered; past this many the memory starts again. */
const MAX_REMEMBERED = 1_000;

/** What pglite-prisma-adapter uses of a PGlite. */
export type AdapterClient = Pick<PGlite, "query" | "exec" | "transaction">;

function concat(parts: Uint8Array[]): Uint8Array {
  const message = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

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

export class OneCallQueries {
  private readonly parameterTypes = new Map<string, number[]>();

  constructor(
    private readonly pglite: PGlite,
    private readonly maxRemembered = MAX_REMEMBERED,
  ) {}

  /** A PGlite for the adapter whose query(), in and outside transactions, makes one call. */
  client(): AdapterClient {
    const pglite = this.pglite;
    return {
      // Like PGlite's query(): wait for any open transaction, then hold the connection.
      query: ((sql: string, params?: unknown[], options?: QueryOptions) =>
        pglite._runExclusiveTransaction(() =>
          this.query(sql, params, options, { inTransaction: false }),
        )) as PGlite["query"],
      exec: (sql, options) => pglite.exec(sql, options),
      transaction: (callback) =>
        pglite.transaction((tx) => {
          const inOneCall: Transaction = {
            ...tx,
            query: (async (sql: string, params?: unknown[], options?: QueryOptions) => {
              if (tx.closed) throw new Error("Transaction is closed");
              return this.query(sql, params, options, { inTransaction: true });
            }) as Transaction["query"],
            get closed() {
              return tx.closed;
            },
          };
          return callback(inOneCall);
        }),
    };
  }

  /** After a script that may change the schema (migrations): a type may have been dropped and created anew. */
  invalidate(): void {
    this.parameterTypes.clear();
  }

  private query<T>(
    sql: string,
    params: unknown[] = [],
    options: QueryOptions | undefined,
    { inTransaction }: { inTransaction: boolean },
  ) {
    return this.pglite.runExclusive(async () => {
      try {
        return await this.execute<T>(sql, params, options, inTransaction);
      } catch (error) {
        throw Object.assign(error as object, { query: sql, params, queryOptions: options });
      }
    });
  }

  private async execute<T>(
    sql: string,
    params: unknown[],
    options: QueryOptions | undefined,
    inTransaction: boolean,
  ): Promise<Results<T>> {
    const paramTypes = await this.parameterTypesOf(sql, options);
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const type = paramTypes[index];
      const serialize = options?.serializers?.[type] ?? this.pglite.serializers[type];
      return serialize ? serialize(value) : String(value);
    });
    const { serialize } = protocol;
    const message = concat([
      serialize.parse({ text: sql, types: options?.paramTypes }),
      serialize.bind({ values: values as string[] }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    // PGlite's query() writes to the file system after each statement outside a transaction.
    const { messages } = await this.pglite.execProtocol(message, { syncToFs: !inTransaction });
    return this.results<T>(messages, options);
  }

  private async parameterTypesOf(sql: string, options: QueryOptions | undefined): Promise<number[]> {
    if (options?.paramTypes) return options.paramTypes;
    const known = this.parameterTypes.get(sql);
    if (known) return known;
    const { serialize } = protocol;
    const { messages } = await this.pglite.execProtocol(
      concat([serialize.parse({ text: sql }), serialize.describe({ type: "S" }), serialize.sync()]),
      {
        syncToFs: false,
      },
    );
    const types = parse.parseDescribeStatementResults(messages);
    if (this.parameterTypes.size >= this.maxRemembered) this.parameterTypes.clear();
    this.parameterTypes.set(sql, types);
    return types;
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
        const values = message.fields.map((value: string | null, index: number) =>
          value === null ? null : parsers[index](value),
        );
        rows.push(
          options?.rowMode === "array"
            ? values
            : Object.fromEntries(fields.map((field, index) => [field.name, values[index]])),
        );
      } else if (message instanceof pg.CommandCompleteMessage) {
        affectedRows += affectedRowsOf(message.text);
      }
    }
    return { rows: rows as T[], fields, affectedRows };
  }
}
