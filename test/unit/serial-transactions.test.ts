import { expect } from "chai";
import type { SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import { serialTransaction } from "../../src/db/serial-transactions.ts";

/** A transaction whose statements settle only when the test says so, recording what ran when. */
function heldTransaction() {
  const log: string[] = [];
  const pending = new Map<string, { resolve(): void; reject(error: Error): void }>();
  let running = 0;
  const run = (name: string) =>
    new Promise<void>((resolve, reject) => {
      running++;
      log.push(`${name} starts${running > 1 ? " while another runs" : ""}`);
      const settle = () => running--;
      pending.set(name, {
        resolve: () => (settle(), resolve()),
        reject: (error) => (settle(), reject(error)),
      });
    });
  const transaction = {
    provider: "postgres",
    adapterName: "held",
    options: { usePhantomQuery: false },
    queryRaw: async (query: SqlQuery) => {
      await run(query.sql);
      return { columnNames: [], columnTypes: [], rows: [] };
    },
    executeRaw: async (query: SqlQuery) => (await run(query.sql), 1),
    commit: () => run("COMMIT"),
    rollback: () => run("ROLLBACK"),
  } as Transaction;
  const settled = async (name: string, error?: Error) => {
    await new Promise((resolve) => setImmediate(resolve));
    const statement = pending.get(name);
    if (!statement) throw new Error(`${name} has not started`);
    if (error) statement.reject(error);
    else statement.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { log, transaction, settled };
}

const sql = (text: string): SqlQuery => ({ sql: text, args: [], argTypes: [] });

describe("db: serialTransaction (a transaction's statements one at a time)", () => {
  it("starts each statement after the previous one settles, in the order issued, commit last", async () => {
    const { log, transaction, settled } = heldTransaction();
    const serial = serialTransaction(transaction);
    const done = Promise.all([serial.queryRaw(sql("A")), serial.executeRaw(sql("B")), serial.commit()]);
    await settled("A");
    await settled("B");
    await settled("COMMIT");
    await done;
    expect(log).to.deep.equal(["A starts", "B starts", "COMMIT starts"]);
  });

  it("a failed statement fails alone: the next one still runs, and the rollback after it", async () => {
    const { log, transaction, settled } = heldTransaction();
    const serial = serialTransaction(transaction);
    const failed = serial.queryRaw(sql("A")).then(
      () => "resolved",
      (error: Error) => error.message,
    );
    const next = serial.queryRaw(sql("B"));
    const rollback = serial.rollback();
    await settled("A", new Error("duplicate key"));
    expect(await failed).to.equal("duplicate key");
    await settled("B");
    await settled("ROLLBACK");
    await Promise.all([next, rollback]);
    expect(log).to.deep.equal(["A starts", "B starts", "ROLLBACK starts"]);
  });
});
