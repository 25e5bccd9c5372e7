// Bounds on exports (exportData): an organization runs at most SVC_EXPORTS_PER_ORGANIZATION
// exports at once (one more is a 429 too-many-exports with Retry-After, until one closes), and the
// batch reads of all exports share SVC_EXPORT_DATABASE_CONNECTIONS connections, so a burst leaves
// the rest of the pool to other requests. Counted with a fake repository whose reads wait until
// the test lets them finish: no timing involved.
import { once } from "node:events";
import { expect } from "chai";
import type { Credential } from "../../src/auth/credential.ts";
import type { ExportsRepository } from "../../src/repositories/exports.ts";
import { createExportsService } from "../../src/services/exports/index.ts";
import { ProblemError } from "../../src/kernel/errors.ts";

const callerOf = (organizationId: string) => ({ organizationId, environment: "live" }) as Credential;

/** A table of three institutions whose reads wait for `release()` while `hold` is set; counts reads running at once. */
function gatedTable(hold: boolean) {
  const rows = [0, 1, 2].map((i) => ({ id: `inst_${i}`, name: `N${i}`, ipedsId: String(i) }));
  const state = { running: 0, most: 0, reads: 0, hold };
  const pending: (() => void)[] = [];
  const exports = {
    institutionBatches: () => async (after: { id: string } | null, take: number) => {
      state.running += 1;
      state.reads += 1;
      state.most = Math.max(state.most, state.running);
      if (state.hold) await new Promise<void>((resolve) => pending.push(resolve));
      state.running -= 1;
      const start = after ? rows.findIndex((row) => row.id === after.id) + 1 : 0;
      return rows.slice(start, start + take);
    },
  } as unknown as ExportsRepository;
  const release = () => pending.splice(0).forEach((resolve) => resolve());
  return { exports, state, release, pending };
}

/** Exports of batches of one row, one export per organization at once. */
function oneExportPerOrganization() {
  const { exports } = gatedTable(false);
  return createExportsService({ exports, batchSize: 1, limits: { perOrganization: 1, databaseConnections: 3 } });
}

describe("export limits (exportData)", () => {
  it("exportData: one export more than SVC_EXPORTS_PER_ORGANIZATION is a 429 too-many-exports with Retry-After, until one closes", async () => {
    const service = oneExportPerOrganization();
    const first = await service.exportData(callerOf("org_a"), "institutions", "json");
    const refused = await service.exportData(callerOf("org_a"), "institutions", "json").catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ProblemError);
    expect((refused as ProblemError).slug).to.equal("too-many-exports");
    expect((refused as ProblemError).status).to.equal(429);
    expect((refused as ProblemError).headers).to.deep.equal({ "Retry-After": "10" });
    // Another organization is not held back by org_a's export.
    const other = await service.exportData(callerOf("org_b"), "institutions", "json");
    // Read to the end, the first export gives its slot back.
    let text = "";
    for await (const chunk of first.stream) text += String(chunk);
    expect(JSON.parse(text)).to.have.length(3);
    if (!first.stream.closed) await once(first.stream, "close");
    const again = await service.exportData(callerOf("org_a"), "institutions", "json");
    // An abandoned export (the client went away: Koa destroys the stream) gives its slot back too.
    again.stream.destroy();
    await once(again.stream, "close");
    const third = await service.exportData(callerOf("org_a"), "institutions", "json");
    third.stream.destroy();
    other.stream.destroy();
  });

  it("exportData: an export that fails before its first byte gives its slot back", async () => {
    const service = oneExportPerOrganization();
    const ctdl = await service.exportData(callerOf("org_a"), "institutions", "ctdl").catch((e: unknown) => e);
    expect((ctdl as ProblemError).slug).to.equal("validation-failed");
    const next = await service.exportData(callerOf("org_a"), "institutions", "json");
    next.stream.destroy();
  });

  it("exportData: the reads of all exports run on at most SVC_EXPORT_DATABASE_CONNECTIONS connections at once", async () => {
    const { exports, state, release, pending } = gatedTable(true);
    const service = createExportsService({
      exports,
      batchSize: 1,
      limits: { perOrganization: 2, databaseConnections: 2 },
    });
    const started = ["a", "b", "c", "d", "e"].map((org) =>
      service.exportData(callerOf(`org_${org}`), "institutions", "csv"),
    );
    // Let the reads through a few at a time until every export has its first batch.
    let settled = false;
    const all = Promise.all(started).then((value) => {
      settled = true;
      return value;
    });
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(pending.length).to.be.at.most(2);
      release();
    }
    const streams = await all;
    state.hold = false;
    release();
    const texts = await Promise.all(
      streams.map(async ({ stream }) => {
        let text = "";
        for await (const chunk of stream) text += String(chunk);
        return text;
      }),
    );
    expect(texts.every((text) => text.split("\n").filter(Boolean).length === 4)).to.equal(true);
    expect(state.most).to.equal(2);
    expect(state.reads).to.equal(5 * 4);
  });
});
