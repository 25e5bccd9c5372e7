import { expect } from "chai";
import { ListTotals } from "../../src/repositories/totals.ts";
import type { Db } from "../../src/services/types.ts";

describe("list totals", () => {
  const db = {} as Db;
  const otherDb = {} as Db;

  function counter(values: number[]) {
    let calls = 0;
    return {
      count: async () => values[Math.min(calls++, values.length - 1)],
      get calls() {
        return calls;
      },
    };
  }

  it("counts small totals every time, so they are always exact", async () => {
    const totals = new ListTotals(() => 0, 10_000, 100);
    const source = counter([5, 6]);
    expect(await totals.total(db, "k", source.count)).to.equal(5);
    expect(await totals.total(db, "k", source.count)).to.equal(6);
    expect(source.calls).to.equal(2);
  });

  it("reuses a large total until it expires, per database and key", async () => {
    let now = 0;
    const totals = new ListTotals(() => now, 10_000, 100);
    const source = counter([500, 600]);
    expect(await totals.total(db, "k", source.count)).to.equal(500);
    now = 9_999;
    expect(await totals.total(db, "k", source.count)).to.equal(500);
    expect(source.calls).to.equal(1);
    expect(await totals.total(otherDb, "k", counter([7]).count)).to.equal(7);
    now = 10_000;
    expect(await totals.total(db, "k", source.count)).to.equal(600);
  });

  it("forgets on a write, including a count that was running when the write happened", async () => {
    const totals = new ListTotals(() => 0, 10_000, 100);
    let release: (value: number) => void = () => undefined;
    const running = totals.total(db, "k", () => new Promise<number>((resolve) => (release = resolve)));
    totals.forget(db);
    release(500);
    expect(await running).to.equal(500);
    const fresh = counter([700]);
    expect(await totals.total(db, "k", fresh.count)).to.equal(700);
    expect(fresh.calls).to.equal(1);
  });

  it("asks once for concurrent requests and does not keep a failed count", async () => {
    const totals = new ListTotals(() => 0, 10_000, 100);
    const source = counter([900]);
    const [a, b] = await Promise.all([totals.total(db, "k", source.count), totals.total(db, "k", source.count)]);
    expect([a, b, source.calls]).to.deep.equal([900, 900, 1]);
    const failing = totals.total(db, "x", () => Promise.reject(new Error("down")));
    await failing.catch(() => undefined);
    expect(await totals.total(db, "x", counter([901]).count)).to.equal(901);
  });
});
