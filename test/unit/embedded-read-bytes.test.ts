// Database.readBytes on the embedded database (src/db/embedded-thread.ts): one row's text column
// crosses from the database's thread as UTF-8 bytes in a buffer of its own, transferred rather
// than copied, and the other columns as the driver parses them. What the exports' rendered
// batches are read with (src/repositories/exports.ts), so that a batch's text never becomes a
// string on the main thread.
import { expect } from "chai";
import type { Database } from "../../src/db/database.ts";
import { freshEmbeddedDatabase } from "../helpers/database.ts";

describe("the embedded database's readBytes", () => {
  let database: Database;

  before(async () => {
    database = await freshEmbeddedDatabase();
  });
  after(() => database.close());

  it("answers the text column as its UTF-8 bytes in a buffer of their own, and the other columns parsed", async () => {
    const text = `ünïcödé — 😀 "quoted" \\ ${"x".repeat(100_000)}\r\n`;
    const { bytes, row } = await database.readBytes!(
      "SELECT $1::text AS text, 3::int AS rows, timestamp '2025-01-02 03:04:05.678' AS at, NULL::text AS id",
      [text],
      "text",
    );
    expect(Buffer.isBuffer(bytes)).to.equal(true);
    expect(bytes.equals(Buffer.from(text, "utf8"))).to.equal(true);
    expect(bytes.buffer.byteLength, "the transferred buffer, not a slice of a shared pool").to.equal(bytes.length);
    expect(row).to.deep.equal({ rows: 3, at: new Date("2025-01-02T03:04:05.678Z"), id: null });
  });

  it("a NULL text is no bytes; no row is no bytes and a null row; a failing statement is thrown", async () => {
    const empty = await database.readBytes!("SELECT NULL::text AS text, 1 AS n", [], "text");
    expect(empty.bytes.length).to.equal(0);
    expect(empty.row).to.deep.equal({ n: 1 });
    const none = await database.readBytes!("SELECT 'a'::text AS text WHERE false", [], "text");
    expect(none).to.deep.equal({ bytes: Buffer.alloc(0), row: null });
    const error = await database.readBytes!("SELECT * FROM no_such_table", [], "text").catch((e: Error) => e);
    expect((error as Error).message).to.match(/no_such_table/);
  });
});
