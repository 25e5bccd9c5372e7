// Exports hold one batch at a time: the stream reads the next batch only when
// its reader asks for more (backpressure), and each read asks for at most one
// batch of rows, whatever the table's size. Measured by rows read and held,
// not by time. The equivalency reader is then run on the real database (both
// databases, with SVC_TEST_DATABASE_URL): its keyset batches cover every row
// once, in order, ties on the creation time included; and the CSV the database
// renders (the equivalency export) is byte for byte what csv-stringify writes.
import { expect } from "chai";
import type { Equivalency } from "../../generated/prisma/client.ts";
import type { Credential } from "../../src/auth/credential.ts";
import type { CsvBatch, ExportsRepository } from "../../src/repositories/exports.ts";
import { CSV_COLUMNS } from "../../src/services/exports/index.ts";
import { csvChunks } from "../../src/services/exports/tabular.ts";
import { equivalencyView } from "../../src/views/catalog.ts";
import type { RuleTarget } from "../../src/services/rules/model.ts";
import { createExportsService } from "../../src/services/exports/index.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";

const caller = { environment: "live" } as Credential;

/** "A", "A + B", "A or AH", "(A + AL) or (AH + AL)"; null without sets. */
function setCodes(sets: string[][], codeOf: (id: string) => string): string | null {
  if (!sets.length) return null;
  const parts = sets.map((set) => set.map(codeOf).join(" + "));
  return sets.length === 1
    ? parts[0]
    : sets.map((set, i) => (set.length > 1 ? `(${parts[i]})` : parts[i])).join(" or ");
}

/** The equivalency CSV's columns of names (EQUIVALENCY_NAME_COLUMNS), computed here from the records. */
async function nameColumns(t: TestApp) {
  const courses = new Map(
    (await t.database.prisma.course.findMany({ include: { institution: true } })).map((c) => [c.id, c]),
  );
  const institutions = new Map(
    (await t.database.prisma.institution.findMany()).map((i) => [`${i.environment}:${i.id}`, i]),
  );
  const joined = (list: string[]) => (list.length ? list.join(" | ") : null);
  return (row: Equivalency) => {
    const sources = row.sourceCourseIds.flatMap((id) => (courses.has(id) ? [courses.get(id)!] : []));
    const targets = row.targets as RuleTarget[];
    return {
      sourceCourseCodes: joined(sources.map((c) => c.code)),
      sourceCourseTitles: joined(sources.map((c) => c.title)),
      sourceInstitutionName: sources[0]?.institution.name ?? null,
      targetInstitutionName: institutions.get(`${row.environment}:${row.targetInstitutionId}`)?.name ?? null,
      targetCodes: joined(targets.map((target) => target.code ?? "")),
      targetCourseTitles: joined(
        targets.map((target) => (target.courseId && courses.get(target.courseId)?.title) || ""),
      ),
      // 1.2.0: the sets and targets as the CSV import writes them (docs/exports.md).
      sourceCourseSetCodes: setCodes(row.sourceCourseSets as string[][], (id) => courses.get(id)?.code ?? id),
      targetCourseCodes:
        targets
          .map((target) => {
            const course = target.courseId ? courses.get(target.courseId) : undefined;
            return course ? [course.code, ...course.crossListedCodes].join(" = ") : (target.code ?? "");
          })
          .join(row.targetChoice === "one_of" ? " or " : " + ") || null,
    };
  };
}
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
    inLatestDataset: false,
    organizationId: null,
    createdAt: at(i),
    updatedAt: at(i),
  } as Equivalency;
}

/** A table of `rows` equivalencies behind a reader that records every read. */
function fakeTable(rows: number) {
  const table = Array.from({ length: rows }, (_, i) => equivalency(i));
  const reads: number[] = [];
  const rendered = (after: CsvBatch | null, take: number, row: (e: Equivalency) => string, separator: string) => {
    const start = after ? table.findIndex((e) => e.id === after.lastId) + 1 : 0;
    const batch = table.slice(start, start + take);
    reads.push(batch.length);
    const last = batch[batch.length - 1];
    return {
      text: (start && batch.length ? separator : "") + batch.map(row).join(separator),
      rows: batch.length,
      lastCreatedAt: last?.createdAt ?? null,
      lastId: last?.id ?? null,
    };
  };
  const exports = {
    equivalencyBatches: () => async (after: { createdAt: Date; id: string } | null, take: number) => {
      const start = after ? table.findIndex((row) => row.id === after.id) + 1 : 0;
      const batch = table.slice(start, start + take);
      reads.push(batch.length);
      return batch;
    },
    // The CSV and JSON exports' readers: the database renders the records (one line or element per row here).
    equivalencyCsvBatches: () => async (after: CsvBatch | null, take: number) => {
      const { text, ...batch } = rendered(after, take, (row) => `${row.id}\r\n`, "");
      return { csv: text, ...batch };
    },
    equivalencyJsonBatches: () => async (after: CsvBatch | null, take: number) =>
      rendered(after, take, (row) => JSON.stringify({ id: row.id }), ",\n"),
    // As on the embedded database: no COPY, so the batches above serve.
    equivalencyCopy: () => null,
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
        const { stream } = await createExportsService({ exports, batchSize: 100, renderedBatchSize: 100 }).exportData(
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
      const { stream } = await createExportsService({ exports, batchSize: 100, renderedBatchSize: 100 }).exportData(
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
    await loadInstitutions(t.database.prisma, "sandbox");
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
        targets: [],
        sourceCourseSets: [],
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

  it("the CSV reader's batches cover every row once, in order, and end with an empty batch's null key", async () => {
    const read = t.app.context.repositories.exports.equivalencyCsvBatches("live");
    const expected = await t.database.prisma.equivalency.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const ids: string[] = [];
    let batch = await read(null, 4);
    for (;;) {
      expect(batch.rows).to.be.at.most(4);
      ids.push(
        ...String(batch.csv)
          .split("\r\n")
          .filter(Boolean)
          .map((line) => line.split(",")[0]),
      );
      if (batch.rows < 4) break;
      batch = await read(batch, 4);
    }
    expect(ids).to.deep.equal(expected.map((e) => e.id));
    // On the embedded database a batch's text is bytes (Database.readBytes).
    const empty = await t.app.context.repositories.exports.equivalencyCsvBatches("sandbox")(null, 4);
    expect({ ...empty, csv: String(empty.csv) }).to.deep.equal({
      csv: "",
      rows: 0,
      lastCreatedAt: null,
      lastId: null,
    });
  });

  it("renders in the database exactly the CSV csv-stringify writes: formulas, quotes, commas, line breaks, nulls", async () => {
    const awkward = [
      "=SUM(A1:A9)",
      "+1",
      "-2",
      "@handle",
      "\tindented",
      "\rcarriage",
      "\uFF1Dfull-width equals",
      "\uFF0B",
      "\uFF0Dminus",
      "\uFF20at",
      'said "yes"',
      "one, two",
      "line\nbreak",
      "crlf\r\nend",
      "'already quoted",
      'a"b,c\nd',
      " leading space",
      "x=1",
      "ünïcödé — ✓",
      "",
    ];
    await t.database.prisma.equivalency.createMany({
      data: awkward.map((text, i) => ({
        ...equivalency(100 + i),
        targets: [],
        sourceCourseSets: [],
        environment: "sandbox" as const,
        sourceCourseId: "crs_x",
        targetInstitutionId: "inst_110662",
        targetCode: text,
        decidedBy: i % 3 === 0 ? null : text,
        policyBasis: text,
        decidedAt: new Date(Date.UTC(2025, 5, 30, 23, 59, 59, i)),
        createdAt: at(100 + i),
        updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 7)),
      })),
    });
    try {
      const service = createExportsService({
        exports: t.app.context.repositories.exports,
        batchSize: 7,
        renderedBatchSize: 7,
      });
      const { stream } = await service.exportData({ environment: "sandbox" } as Credential, "equivalencies", "csv");
      let rendered = "";
      for await (const chunk of stream) rendered += String(chunk);
      const rows = await t.database.prisma.equivalency.findMany({
        where: { environment: "sandbox" },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      const names = await nameColumns(t);
      let expected = "";
      for await (const chunk of csvChunks(
        CSV_COLUMNS.equivalencies,
        (async function* () {
          yield rows.map((row) => ({ ...equivalencyView(row), ...names(row) }));
        })(),
      ))
        expected += chunk;
      expect(rendered).to.equal(expected);
      expect(rendered.split("\r\n").length).to.be.greaterThan(awkward.length);
    } finally {
      await t.database.prisma.equivalency.deleteMany({ where: { environment: "sandbox" } });
    }
  });
});
