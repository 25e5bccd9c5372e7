// Successful deliveries are recorded in batches: those that finish close
// together share one statement; a full batch goes at once.
import { expect } from "chai";
import { SuccessBatch } from "../../src/webhooks/success-batch.ts";
import type { SentAttempt } from "../../src/webhooks/sender.ts";
import type { DeliveriesRepository, RecordedSuccess } from "../../src/repositories/deliveries.ts";

const sent: SentAttempt = {
  signature: "t=1,v1=ab",
  attemptedAt: new Date("2026-01-01T00:00:00Z"),
  result: { responseStatus: 200, responseExcerpt: null, durationMs: 3, error: null, ok: true },
};

type SuccessRecorder = Pick<DeliveriesRepository, "recordSuccesses">;

/** A repository that records each statement's rows and reports all but `lost` as updated. */
function fakeDeliveries(lost: string[] = []) {
  const statements: { ids: string[]; owner: unknown }[] = [];
  const deliveries: SuccessRecorder = {
    async recordSuccesses(owner: string, rows: RecordedSuccess[]) {
      const ids = rows.map((row) => row.id);
      statements.push({ ids, owner });
      return ids.filter((id) => !lost.includes(id));
    },
  };
  return { deliveries, statements };
}

describe("SuccessBatch", () => {
  it("records successes that arrive together in one statement, under the dispatcher's lease", async () => {
    const { deliveries, statements } = fakeDeliveries(["dlv_2"]);
    const batch = new SuccessBatch(deliveries, "dispatcher-a", 500, 5);
    const results = await Promise.all(["dlv_1", "dlv_2", "dlv_3"].map((id) => batch.record(id, sent)));
    expect(results).to.deep.equal([true, false, true]);
    expect(statements).to.deep.equal([{ ids: ["dlv_1", "dlv_2", "dlv_3"], owner: "dispatcher-a" }]);
  });

  it("writes a full batch at once and the rest in the next statement", async () => {
    const { deliveries, statements } = fakeDeliveries();
    const batch = new SuccessBatch(deliveries, "dispatcher-a", 2, 20);
    const first = [batch.record("dlv_1", sent), batch.record("dlv_2", sent)];
    await Promise.all(first);
    expect(statements.map((s) => s.ids)).to.deep.equal([["dlv_1", "dlv_2"]]);
    const rest = [batch.record("dlv_3", sent), batch.record("dlv_4", sent), batch.record("dlv_5", sent)];
    expect(await Promise.all(rest)).to.deep.equal([true, true, true]);
    expect(statements.map((s) => s.ids)).to.deep.equal([["dlv_1", "dlv_2"], ["dlv_3", "dlv_4"], ["dlv_5"]]);
  });

  it("rejects every success of a statement that failed", async () => {
    const deliveries: SuccessRecorder = { recordSuccesses: async () => Promise.reject(new Error("connection lost")) };
    const batch = new SuccessBatch(deliveries, "dispatcher-a", 500, 1);
    const results = await Promise.allSettled([batch.record("dlv_1", sent), batch.record("dlv_2", sent)]);
    expect(results.map((r) => r.status)).to.deep.equal(["rejected", "rejected"]);
  });
});
