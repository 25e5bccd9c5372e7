// The messages between the main thread and the thread that owns the embedded
// database (src/db/embedded-thread.ts). Everything crosses by structured clone,
// which keeps Date, bigint, Uint8Array, arrays and plain objects as they are, so
// the values Prisma's driver adapter produces in the database thread arrive unchanged.
// Class instances do not survive a clone: errors are sent as their fields and
// rebuilt on the other side.
import type { IsolationLevel, SqlQuery } from "@prisma/driver-adapter-utils";

/** Where the database thread's PGlite keeps its data, and the size of its shared buffers (PostgreSQL's default when absent). */
export type EmbeddedSource =
  /** A directory; a new one is loaded from `template` (a PGlite dump) when that file exists, else made by initdb. */
  (
    | { kind: "directory"; path: string; template?: string }
    /** In memory; from a dump (`PGlite.dumpDataDir`) when given (tests start from a migrated template). */
    | { kind: "memory"; dump?: Blob }
  ) & { sharedBuffersMb?: number };

/** `tx` names an open transaction; without it the statement runs outside any. */
export type EngineRequest =
  | { op: "open"; source: EmbeddedSource }
  | { op: "queryRaw"; query: SqlQuery; tx?: number }
  | { op: "executeRaw"; query: SqlQuery; tx?: number }
  | { op: "executeScript"; script: string }
  | { op: "begin"; isolationLevel?: IsolationLevel }
  | { op: "commit"; tx: number }
  | { op: "rollback"; tx: number }
  /** The SqlRunner of `Database.session`: PGlite's own exec/query with its default type parsers. */
  | { op: "exec"; sql: string }
  | { op: "query"; sql: string; params: unknown[] }
  /**
   * Database.statement: one statement outside transactions, sent in one call like the
   * adapter's (its prepared types stay valid: never a script that changes types).
   */
  | { op: "read"; sql: string; params: unknown[] }
  /** Database.readBytes: like read, one row, its text column `column` sent as bytes in a transferred buffer. */
  | { op: "readBytes"; sql: string; params: unknown[]; column: string }
  | { op: "close" };

export type EngineCall = EngineRequest & { id: number };

export type EngineReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

export interface SerializedError {
  /** A DriverAdapterError carries its mapped cause, which Prisma turns into P2002 and the like. */
  driverCause?: object;
  name: string;
  message: string;
  stack?: string;
  /** PostgreSQL's fields (code, detail, constraint…), kept for callers that read them. */
  fields: Record<string, unknown>;
}

const CLONEABLE = new Set(["string", "number", "boolean", "bigint"]);

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields = Object.fromEntries(Object.entries(error).filter(([, value]) => CLONEABLE.has(typeof value)));
  const cause = (error as { cause?: unknown }).cause;
  const driverCause =
    error.name === "DriverAdapterError" && typeof cause === "object" && cause !== null ? { ...cause } : undefined;
  return { driverCause, name: error.name, message: error.message, stack: error.stack, fields };
}
