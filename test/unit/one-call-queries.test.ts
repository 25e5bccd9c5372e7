// The embedded engine's statements in one call (src/db/one-call-queries.ts) must
// answer exactly what PGlite's own query() answers, in and outside transactions,
// and ask for a statement's parameter types once.
import { messages, PGlite, type QueryOptions } from "@electric-sql/pglite";
import { expect } from "chai";
import { OneCallQueries, type AdapterClient } from "../../src/db/one-call-queries.ts";

const ARRAY_PARSERS = { rowMode: "array" as const, parsers: { 20: (value: string) => `int8:${value}` } };

describe("the embedded engine's statements in one call", () => {
  let pglite: PGlite;
  let oneCall: OneCallQueries;
  let client: AdapterClient;
  /** How many calls into PostgreSQL `work` makes. */
  async function callsDuring(work: () => Promise<unknown>): Promise<number> {
    const original = pglite.execProtocol;
    let calls = 0;
    pglite.execProtocol = (...args) => {
      calls++;
      return original.apply(pglite, args);
    };
    try {
      await work();
    } finally {
      pglite.execProtocol = original;
    }
    return calls;
  }

  before(async () => {
    pglite = await PGlite.create();
    await pglite.exec(`CREATE TYPE mood AS ENUM ('calm', 'busy');
      CREATE TABLE items (id int PRIMARY KEY, name text, at timestamptz, tags text[], doc jsonb, big int8, raw bytea, state mood)`);
  });
  after(() => pglite.close());
  beforeEach(async () => {
    oneCall = new OneCallQueries(pglite, 3);
    client = oneCall.client();
    await pglite.exec("TRUNCATE items");
  });

  it("answers what query() answers: rows, fields and affected rows, with the caller's parsers and row mode", async () => {
    const insert =
      "INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7, $8), ($9, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";
    const params = [
      1,
      "one",
      new Date("2026-01-02T03:04:05.678Z"),
      ["a", "b,c"],
      JSON.stringify({ k: [1] }),
      9007199254740993n,
      new Uint8Array([0, 255]),
      "busy",
      2,
    ];
    const inOneCall = await client.query(insert, params);
    await pglite.exec("TRUNCATE items");
    expect(inOneCall).to.deep.equal(await pglite.query(insert, params));
    expect(inOneCall.affectedRows).to.equal(2);

    const reads: [string, unknown[], QueryOptions?][] = [
      ["SELECT * FROM items ORDER BY id", []],
      ["SELECT * FROM items WHERE id = $1", [1], ARRAY_PARSERS],
      ["SELECT $1::text IS NULL AS missing", [null]],
    ];
    for (const [sql, args, options] of reads)
      expect(await client.query(sql, args, options), sql).to.deep.equal(await pglite.query(sql, args, options));
    // Writes are compared inside transactions that roll back, so that both see the same rows.
    const writes: [string, unknown[], QueryOptions?][] = [
      ["UPDATE items SET name = $1 WHERE id > $2", ["many", 0]],
      ["DELETE FROM items WHERE id = $1 RETURNING id, big", [1], ARRAY_PARSERS],
    ];
    for (const [sql, args, options] of writes) {
      const mine = await client.transaction(async (tx) => {
        const result = await tx.query(sql, args, options);
        await tx.rollback();
        return result;
      });
      const theirs = await pglite.transaction(async (tx) => {
        const result = await tx.query(sql, args, options);
        await tx.rollback();
        return result;
      });
      expect(mine, sql).to.deep.equal(theirs);
      expect(mine.affectedRows, sql).to.be.above(0);
    }
  });

  it("asks for a statement's parameter types once, remembering a bounded number of statements", async () => {
    expect(await callsDuring(() => client.query("SELECT $1::int AS n", [1]))).to.equal(2);
    expect(await callsDuring(() => client.query("SELECT $1::int AS n", [2]))).to.equal(1);
    for (const n of [2, 3, 4]) await client.query(`SELECT $1::int + ${n} AS n`, [1]);
    expect(await callsDuring(() => client.query("SELECT $1::int AS n", [3])), "forgotten past the bound").to.equal(2);
    oneCall.invalidate();
    expect(await callsDuring(() => client.query("SELECT $1::int AS n", [4])), "forgotten after a script").to.equal(2);
  });

  it("plans each execution for its values, as query() does: a schema change shows at once", async () => {
    await pglite.exec("CREATE TABLE shapes (a int); INSERT INTO shapes VALUES (1)");
    for (let run = 0; run < 6; run++)
      expect((await client.query("SELECT * FROM shapes")).rows).to.deep.equal([{ a: 1 }]);
    await pglite.exec("ALTER TABLE shapes ADD COLUMN b int DEFAULT 2");
    expect((await client.query("SELECT * FROM shapes")).rows).to.deep.equal([{ a: 1, b: 2 }]);
    await pglite.exec("DROP TABLE shapes");
  });

  it("reports errors as PGlite's DatabaseError, with the statement", async () => {
    await client.query("INSERT INTO items (id) VALUES ($1)", [7]);
    const error = await client.query("INSERT INTO items (id) VALUES ($1)", [7]).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(messages.DatabaseError);
    expect(error).to.include({ code: "23505", query: "INSERT INTO items (id) VALUES ($1)" });
    const syntax = await client.query("SELEKT 1").then(
      () => null,
      (caught: { code?: string }) => caught,
    );
    expect(syntax?.code).to.equal("42601");
    expect((await client.query("SELECT count(*)::int AS n FROM items")).rows).to.deep.equal([{ n: 1 }]);
  });

  it("runs transactions on PGlite's lock: one call per statement inside, commit and rollback", async () => {
    await client.transaction(async (tx) => {
      await tx.query("INSERT INTO items (id, name) VALUES ($1, $2)", [10, "kept"]);
    });
    const rolledBack = await client
      .transaction(async (tx) => {
        await tx.query("INSERT INTO items (id, name) VALUES ($1, $2)", [11, "dropped"]);
        throw new Error("undo");
      })
      .catch((error: Error) => error.message);
    expect(rolledBack).to.equal("undo");
    // Had the outside statement run at once, it would have counted the uncommitted row (one session).
    let outside: Promise<unknown> = Promise.resolve();
    await client.transaction(async (tx) => {
      await tx.query("INSERT INTO items (id, name) VALUES ($1, $2)", [12, "later"]);
      outside = client.query("SELECT count(*)::int AS n FROM items").then((result) => result.rows);
      await tx.query("SELECT 1");
      await tx.rollback();
    });
    expect(await outside).to.deep.equal([{ n: 1 }]);
    expect((await client.query("SELECT id FROM items ORDER BY id")).rows).to.deep.equal([{ id: 10 }]);
  });
});
