// The text values of a one-column select, concatenated, as the bytes PostgreSQL sends: what the
// largest exports stream, so that their text never becomes a JavaScript string (V8 collects
// large strings lazily, and the export's peak memory grew with its size: docs/benchmarks.md).
//
// The select runs as `COPY (select) TO STDOUT (FORMAT binary)`: the text format would escape
// backslashes, tabs and line breaks in the values, and the CSV format would quote them, where the
// binary format carries a text value's UTF-8 bytes as they are, each behind its length. This
// module strips that framing: an 11-byte signature, flags and a header extension, then per row a
// field count (16 bits) and the field's length (32 bits) before its bytes; a count of -1 ends it.
import { Transform, type TransformCallback } from "node:stream";

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** The signature, the flags field, the header extension's length. */
const HEADER_BYTES = SIGNATURE.length + 4 + 4;

/** COPY (select) TO STDOUT (FORMAT binary): the statement copyValues sends. */
export function binaryCopy(select: string): string {
  return `COPY (${select}) TO STDOUT (FORMAT binary)`;
}

/**
 * A transform from COPY's binary format, for a select of one text column, to the values' bytes
 * back to back (a NULL value is nothing). Each output chunk is one buffer of the values that
 * one or more input chunks completed, copied once; the framing may be cut anywhere.
 */
export function copyValuesOfBinary(): Transform {
  let pending: Buffer = Buffer.alloc(0);
  let headerSkipped = false;
  let ended = false;

  function parse(input: Buffer): { values: Buffer[]; rest: Buffer } {
    const values: Buffer[] = [];
    let at = 0;
    if (!headerSkipped) {
      if (input.length < HEADER_BYTES) return { values, rest: input };
      if (!input.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error("not COPY's binary format");
      const extension = input.readUInt32BE(SIGNATURE.length + 4);
      if (input.length < HEADER_BYTES + extension) return { values, rest: input };
      at = HEADER_BYTES + extension;
      headerSkipped = true;
    }
    while (!ended && at + 2 <= input.length) {
      const fields = input.readInt16BE(at);
      if (fields === -1) {
        ended = true;
        at += 2;
        break;
      }
      if (fields !== 1) throw new Error(`a COPY row of ${fields} fields where one was selected`);
      if (at + 6 > input.length) break;
      const length = input.readInt32BE(at + 2);
      const size = length === -1 ? 0 : length;
      if (at + 6 + size > input.length) break;
      if (size) values.push(input.subarray(at + 6, at + 6 + size));
      at += 6 + size;
    }
    return { values, rest: input.subarray(at) };
  }

  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        const { values, rest } = parse(pending.length ? Buffer.concat([pending, chunk]) : chunk);
        // The remainder is a part of one row: copied, so it does not hold the whole chunk.
        pending = rest.length ? Buffer.from(rest) : Buffer.alloc(0);
        callback(null, values.length ? Buffer.concat(values) : undefined);
      } catch (error) {
        callback(error as Error);
      }
    },
    flush(callback: TransformCallback) {
      callback(ended ? null : new Error("the COPY ended before its trailer"));
    },
  });
}
