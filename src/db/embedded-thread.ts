// The thread that owns the embedded database. PGlite runs PostgreSQL compiled to
// WebAssembly synchronously on whichever thread calls it; here that is this thread,
// so a long query occupies this thread's core and never the server's event loop.
//
// It hosts the same driver adapter Prisma used on the main thread
// (pglite-prisma-adapter), so statements, type parsing and error mapping are the
// adapter's own; src/db/embedded-engine.ts forwards Prisma's calls here. The
// adapter's PGlite sends each statement in one call (src/db/one-call-queries.ts).
// Each message is handled as it arrives, without waiting for the previous one: a
// statement outside a transaction then queues on PGlite's own lock while the
// transaction's statements keep running, exactly as on the main thread.
import fs from "node:fs";
import path from "node:path";
import { parentPort } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import type { SqlDriverAdapter, Transaction } from "@prisma/driver-adapter-utils";
import { serializeError, type EmbeddedSource, type EngineCall, type EngineReply } from "./embedded-protocol.ts";
import { pgliteRunner } from "./pglite-runner.ts";
import { OneCallQueries } from "./one-call-queries.ts";

const port = parentPort!;

let pglite: PGlite | null = null;
let adapter: SqlDriverAdapter | null = null;
let oneCall: OneCallQueries | null = null;
const transactions = new Map<number, Transaction>();
let nextTransaction = 1;

function open(source: EmbeddedSource): Promise<PGlite> {
  const startParams = source.sharedBuffersMb
    ? [...PGlite.defaultStartParams, "-c", `shared_buffers=${source.sharedBuffersMb}MB`]
    : undefined;
  if (source.kind === "directory") {
    const isNew = !fs.existsSync(path.join(source.path, "PG_VERSION"));
    if (isNew && source.template && fs.existsSync(source.template)) {
      const template = new Blob([fs.readFileSync(source.template)]);
      return PGlite.create({ dataDir: source.path, loadDataDir: template, startParams });
    }
    return PGlite.create(source.path, { startParams });
  }
  return PGlite.create({ ...(source.dump ? { loadDataDir: source.dump } : {}), startParams });
}

function database(): { pglite: PGlite; adapter: SqlDriverAdapter } {
  if (!pglite || !adapter) throw new Error("The embedded database is not open.");
  return { pglite, adapter };
}

function target(tx: number | undefined) {
  if (tx === undefined) return database().adapter;
  const transaction = transactions.get(tx);
  if (!transaction) throw new Error(`No open transaction ${tx} in the embedded database.`);
  return transaction;
}

function take(tx: number): Transaction {
  const transaction = target(tx) as Transaction;
  transactions.delete(tx);
  return transaction;
}

async function handle(call: EngineCall): Promise<unknown> {
  switch (call.op) {
    case "open":
      pglite = await open(call.source);
      oneCall = new OneCallQueries(pglite);
      adapter = await new PrismaPGlite(oneCall.client() as PGlite).connect();
      return null;
    case "queryRaw":
      return target(call.tx).queryRaw(call.query);
    case "executeRaw":
      return target(call.tx).executeRaw(call.query);
    case "executeScript":
      // The adapter's own executeScript does not wait for the script (nor report its failure).
      oneCall?.invalidate();
      return pgliteRunner(database().pglite).exec(call.script);
    case "begin": {
      const transaction = await database().adapter.startTransaction(call.isolationLevel);
      const id = nextTransaction++;
      transactions.set(id, transaction);
      return { id, options: transaction.options };
    }
    case "commit":
      return take(call.tx).commit();
    case "rollback":
      return take(call.tx).rollback();
    // Sessions run migrations and other scripts, which may drop and create the types of parameters.
    case "exec":
      oneCall?.invalidate();
      return pgliteRunner(database().pglite).exec(call.sql);
    case "read":
      return (await (oneCall!.client() as PGlite).query(call.sql, call.params)).rows;
    case "readBytes":
      return rowWithBytes(
        (await (oneCall!.client() as PGlite).query<Record<string, unknown>>(call.sql, call.params)).rows[0],
        call.column,
      );
    case "query":
      oneCall?.invalidate();
      return pgliteRunner(database().pglite).query(call.sql, call.params);
    case "close":
      await pglite?.close();
      pglite = null;
      adapter = null;
      oneCall = null;
      return null;
  }
}

/** A reply whose buffers are moved to the main thread rather than copied. */
class Transferred {
  constructor(
    readonly value: unknown,
    readonly buffers: ArrayBuffer[],
  ) {}
}

const encoder = new TextEncoder();

/**
 * The row's text column `column` encoded here, into a buffer of its own that is transferred: the
 * main thread gets the bytes without a copy and without decoding a string (a batch's text is about
 * a megabyte, and a string that size is collected lazily on each thread that holds one).
 */
function rowWithBytes(row: Record<string, unknown> | undefined, column: string): Transferred {
  if (!row) return new Transferred({ bytes: new Uint8Array(0), row: null }, []);
  const { [column]: text, ...rest } = row;
  const bytes = encoder.encode(typeof text === "string" ? text : "");
  return new Transferred({ bytes, row: rest }, [bytes.buffer as ArrayBuffer]);
}

function reply(message: EngineReply): void {
  try {
    if (message.ok && message.value instanceof Transferred) {
      const { value, buffers } = message.value;
      port.postMessage({ ...message, value }, buffers);
      return;
    }
    port.postMessage(message);
  } catch (error) {
    // A result that cannot be cloned must fail its own request, not end this thread.
    port.postMessage({ id: message.id, ok: false, error: serializeError(error) } satisfies EngineReply);
  }
}

port.on("message", (call: EngineCall) => {
  handle(call).then(
    (value) => reply({ id: call.id, ok: true, value: value ?? null }),
    (error: unknown) => reply({ id: call.id, ok: false, error: serializeError(error) }),
  );
});
