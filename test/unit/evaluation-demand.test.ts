// The demand batch (src/services/rules/evaluation-demand.ts): an evaluation's asks stay in memory,
// one per requester, course, target institution and UTC day, until a flush writes them in one call.
import { expect } from "chai";
import type { DemandAsk } from "../../src/repositories/equivalency-requests.ts";
import { createDemandBatch } from "../../src/services/rules/evaluation-demand.ts";
import { requesterOf } from "../../src/services/rules/evaluation-service.ts";
import type { Credential } from "../../src/auth/credential.ts";

const ask = (courseKey: string) => ({
  environment: "live" as const,
  targetInstitutionId: "inst_110635",
  courseKey,
  sourceCourseId: courseKey,
  institutionId: null,
  code: null,
  title: null,
  at: new Date("2026-03-01T10:00:00Z"),
});

describe("evaluation demand batch", () => {
  it("writes nothing per evaluation; 500 asks of one requester for one course and day are one row of the flush", async () => {
    const written: DemandAsk[][] = [];
    const batch = createDemandBatch(
      { countBatch: async (asks: readonly DemandAsk[]) => (written.push([...asks]), asks.length) },
      Buffer.from("key"),
      { intervalMs: 0 },
    );
    const day = new Date("2026-03-01T10:00:00Z");
    for (let n = 0; n < 500; n += 1) batch.add([ask("crs_a")], "api_key:key_1", day);
    batch.add([ask("crs_a"), ask("crs_b")], "api_key:key_2", day);
    batch.add([ask("crs_a")], "api_key:key_1", new Date("2026-03-02T00:00:01Z"));
    expect(written).to.deep.equal([]);
    expect(batch.pending()).to.equal(4);
    await batch.flush();
    expect(written).to.have.length(1);
    expect(written[0].map((one) => [one.courseKey, one.day])).to.deep.equal([
      ["crs_a", "2026-03-01"],
      ["crs_a", "2026-03-01"],
      ["crs_b", "2026-03-01"],
      ["crs_a", "2026-03-02"],
    ]);
    // Only keyed hashes: the requester is never written as given.
    expect(written[0].some((one) => one.requester.includes("key_1") || one.fingerprint.includes("key_1"))).to.equal(
      false,
    );
    expect(batch.pending()).to.equal(0);
    await batch.close();
  });

  it("a failed write keeps the asks for the next flush", async () => {
    let fail = true;
    const written: DemandAsk[] = [];
    const batch = createDemandBatch(
      {
        countBatch: async (asks: readonly DemandAsk[]) => {
          if (fail) throw new Error("database away");
          written.push(...asks);
          return asks.length;
        },
      },
      Buffer.from("key"),
      { intervalMs: 0 },
    );
    batch.add([ask("crs_a")], "api_key:key_1", new Date("2026-03-01T10:00:00Z"));
    let failed = false;
    await batch.flush().catch(() => {
      failed = true;
    });
    expect(failed).to.equal(true);
    expect(batch.pending()).to.equal(1);
    fail = false;
    await batch.close();
    expect(written.map((one) => one.courseKey)).to.deep.equal(["crs_a"]);
  });

  it("the requester: the credential, or for the public sandbox key the client address", () => {
    const key = { kind: "api_key", id: "key_1" } as Credential;
    const sandbox = { kind: "api_key", id: "key_public_sandbox" } as Credential;
    expect(requesterOf(key, "10.0.0.1")).to.equal(requesterOf(key, "10.0.0.2"));
    expect(requesterOf(sandbox, "10.0.0.1")).to.not.equal(requesterOf(sandbox, "10.0.0.2"));
  });
});
