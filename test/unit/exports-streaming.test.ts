// Exports hold one batch at a time: the stream reads the next batch only when
// its reader asks for more (backpressure), and each read asks for at most one
// batch of rows, whatever the table's size. Measured by rows read and held,
// not by time. The equivalency reader is then run on the real database (both
// databases, with SVC_TEST_DATABASE_URL): its keyset batches cover every row
// once, in order, ties on the creation time included.
import { expect } from "chai";
import type { Equivalency } from "../../generated/prisma/client.ts";
import type { Credential } from "../../src/auth/credential.ts";
import type { ExportsRepository } from "../../src/repositories/exports.ts";
import { createExportsService } from "../../src/services/exports/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";

const caller = { environment: "live" } as Credential;
const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 3)));

function equivalency(i: number): Equivalency {
  return {
    id: `eq_${String(i).padStart(6, "0")}`,
    environment: "live",
    sourceCourseId: "crs_1",
    targetInstitutionId: "inst_1",
    targetCourseId: null,
    targetCode: `T ${i}`,
    targetKey: `T${i}`,
    status: "accepted",
    decidedBy: null,
    decidedAt: null,
    policyBasis: null,
    version: 1,
    provenance: "direct",
    datasetVersionId: null,
    organizationId: null,
    createdAt: at(i),
    updatedAt: at(i),
  } as Equivalency;
}

/** A table of `rows` equivalencies behind a reader that records every read. */
function fakeTable(rows: number) {
  const table = Array.from({ length: rows }, (_, i) => equivalency(i));
  const reads: number[] = [];
  const exports = {
    equivalencyBatches: () => async (after: { createdAt: Date; id: string } | null, take: number) => {
      const start = after ? table.findIndex((row) => row.id === after.id) + 1 : 0;
      const batch = table.slice(start, start + take);
      reads.push(batch.length);
      return batch;
    },
  } as unknown as ExportsRepository;
  return { exports, reads };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("exports: bounded chunks with backpressure", () => {
  for (const format of ["csv", "json"] as const) {
    it(`${format}: a consumer that does not read holds the export at one batch or two, however large the table`, async () => {
      for (const rows of [1_000, 20_000]) {
        const { exports, reads } = fakeTable(rows);
        const { stream } = await createExportsService({ exports, batchSize: 100 }).exportData(
          caller,
          "equivalencies",
          format,
        );
        await turns(50);
        // The first batch is read before the stream exists; a paused stream reads ahead at most one more.
        expect(reads.length, `${rows} rows`).to.be.at.most(2);
        stream.destroy();
      }
    });

    it(`${format}: every read asks for one batch, and each chunk holds one batch's rows`, async () => {
      const { exports, reads } = fakeTable(1_050);
      const { stream } = await createExportsService({ exports, batchSize: 100 }).exportData(
        caller,
        "equivalencies",
        format,
      );
      let chunks = 0;
      let largest = 0;
      for await (const chunk of stream) {
        chunks++;
        const text = String(chunk);
        const records = format === "csv" ? text.split("\r\n").length - 1 : text.split('"id":').length - 1;
        largest = Math.max(largest, records);
      }
      expect(reads).to.deep.equal([...Array(10).fill(100), 50]);
      expect(largest).to.be.at.most(100);
      expect(chunks).to.be.at.least(11);
    });
  }
});

describe("exports: the equivalency reader's keyset batches on the database", () => {
  let t: TestApp;
  const ROWS = 23;

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await t.database.prisma.course.create({
      data: {
        id: "crs_x",
        environment: "live",
        institutionId: "inst_110635",
        code: "CS 1",
        codeKey: "CS 1",
        title: "Course",
        credits: 3,
        level: "lower",
      },
    });
    await t.database.prisma.equivalency.createMany({
      data: Array.from({ length: ROWS }, (_, i) => ({
        ...equivalency((i * 5) % ROWS),
        sourceCourseId: "crs_x",
        targetInstitutionId: "inst_110662",
        createdAt: at(i),
        updatedAt: at(i),
      })),
    });
  });
  after(() => t.close());

  it("reads every row once, in (createdAt, id) order, at most one batch a read", async () => {
    const read = t.app.context.repositories.exports.equivalencyBatches("live");
    const expected = await t.database.prisma.equivalency.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const seen: Equivalency[] = [];
    let batch = await read(null, 4);
    for (;;) {
      expect(batch.length).to.be.at.most(4);
      seen.push(...batch);
      if (batch.length < 4) break;
      batch = await read(batch[batch.length - 1], 4);
    }
    expect(seen).to.deep.equal(expected);
    expect(await t.app.context.repositories.exports.equivalencyBatches("sandbox")(null, 4)).to.deep.equal([]);
  });
});
