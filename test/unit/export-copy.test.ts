// The equivalency CSV, JSON and CTDL exports through one COPY on PostgreSQL (src/db/copy-values.ts,
// src/services/exports/copied.ts): COPY's binary framing stripped wherever the driver cuts it; the
// export framed by its header or brackets; a failure after the first bytes destroys the stream
// after what was sent; an abandoned export ends its COPY and gives its connection back. With
// SVC_TEST_DATABASE_URL, the real COPY's bytes equal the batches the embedded database renders
// (CSV, JSON and CTDL).
import { once } from "node:events";
import { Readable } from "node:stream";
import { expect } from "chai";
import type { Credential } from "../../src/auth/credential.ts";
import { copyValuesOfBinary } from "../../src/db/copy-values.ts";
import type { ExportsRepository } from "../../src/repositories/exports.ts";
import { CSV_COLUMNS, createExportsService } from "../../src/services/exports/index.ts";
import { csvHeader } from "../../src/services/exports/tabular.ts";
import { equivalencyView } from "../../src/views/catalog.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { usingPostgres } from "../helpers/database.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { drain } from "../helpers/streams.ts";

const caller = { organizationId: "org_1", environment: "live" } as Credential;

/** COPY's binary format of a one-column select: signature, flags, an extension, rows, trailer. */
function binaryCopyOf(values: (string | null)[], extension = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(19 + extension.length);
  Buffer.from("PGCOPY\n\xff\r\n\0", "latin1").copy(header);
  header.writeUInt32BE(extension.length, 15);
  extension.copy(header, 19);
  const rows = values.map((value) => {
    const bytes = value === null ? Buffer.alloc(0) : Buffer.from(value);
    const row = Buffer.alloc(6);
    row.writeInt16BE(1, 0);
    row.writeInt32BE(value === null ? -1 : bytes.length, 2);
    return Buffer.concat([row, bytes]);
  });
  return Buffer.concat([header, ...rows, Buffer.from([0xff, 0xff])]);
}

async function through(chunks: Buffer[]): Promise<string> {
  const parser = copyValuesOfBinary();
  const out: Buffer[] = [];
  parser.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    parser.on("end", resolve);
    parser.on("error", reject);
  });
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  await done;
  return Buffer.concat(out).toString("utf8");
}

const VALUES = ["eq_1,a\r\n", "", null, 'ünï "quoted"\\ \t tab\n', "x".repeat(70_000), "last\r\n"];
const EXPECTED = VALUES.map((value) => value ?? "").join("");

describe("COPY's binary format to the values' bytes (copyValuesOfBinary)", () => {
  it("gives the values back to back, whole or cut at any byte", async () => {
    const bytes = binaryCopyOf(VALUES, Buffer.from("ext"));
    expect(await through([bytes])).to.equal(EXPECTED);
    for (let cut = 1; cut < 200; cut++) {
      expect(await through([bytes.subarray(0, cut), bytes.subarray(cut)]), `cut at ${cut}`).to.equal(EXPECTED);
    }
    const small = binaryCopyOf(["a", null, "bc", "ünï"]);
    expect(await through([...small].map((byte) => Buffer.from([byte])))).to.equal("abcünï");
  });

  it("refuses what is not COPY's binary format, a row of several fields, and an end before the trailer", async () => {
    const error = (chunks: Buffer[]) =>
      through(chunks).then(
        () => null,
        (e: Error) => e.message,
      );
    expect(await error([Buffer.from("id,name\r\n1,two\r\n3,four\r\n")])).to.equal("not COPY's binary format");
    const twoFields = binaryCopyOf(["a"]);
    twoFields.writeInt16BE(2, 19);
    expect(await error([twoFields])).to.equal("a COPY row of 2 fields where one was selected");
    const whole = binaryCopyOf(["a", "b"]);
    expect(await error([whole.subarray(0, whole.length - 2)])).to.equal("the COPY ended before its trailer");
  });
});

/** A repository whose COPY answers `chunks` (then fails, when `failure` is given); counts destroyed copies. */
function copyingRepository(chunks: string[], failure?: Error) {
  const state = { opened: 0, destroyed: 0, copies: [] as Readable[] };
  const exports = {
    equivalencyCopy: async () => {
      state.opened += 1;
      const copy = Readable.from(
        (async function* () {
          for (const chunk of chunks) yield Buffer.from(chunk);
          if (failure) throw failure;
        })(),
      );
      copy.once("close", () => {
        if (!copy.readableEnded) state.destroyed += 1;
      });
      state.copies.push(copy);
      return copy;
    },
  } as unknown as ExportsRepository;
  return { exports, state };
}

describe("exports through one COPY (exportData)", () => {
  it("CSV: the header, then the COPY's bytes; JSON: the bytes between the array's brackets", async () => {
    const csv = copyingRepository(["eq_1,x\r\n", "eq_2,y\r\n"]);
    const csvExport = await createExportsService({ exports: csv.exports }).exportData(caller, "equivalencies", "csv");
    expect(csvExport.contentType).to.equal("text/csv; charset=utf-8");
    expect((await drain(csvExport.stream)).text).to.equal(
      `${await csvHeader(CSV_COLUMNS.equivalencies)}eq_1,x\r\neq_2,y\r\n`,
    );
    const json = copyingRepository([',\n{"id":"eq_1"}', ',\n{"id":"eq_2"}']);
    const jsonExport = await createExportsService({ exports: json.exports }).exportData(
      caller,
      "equivalencies",
      "json",
    );
    const text = (await drain(jsonExport.stream)).text;
    expect(text).to.equal('[\n{"id":"eq_1"},\n{"id":"eq_2"}\n]\n');
    expect(JSON.parse(text)).to.deep.equal([{ id: "eq_1" }, { id: "eq_2" }]);
    const empty = copyingRepository([]);
    const emptyExport = await createExportsService({ exports: empty.exports }).exportData(
      caller,
      "equivalencies",
      "json",
    );
    expect(JSON.parse((await drain(emptyExport.stream)).text)).to.deep.equal([]);
  });

  it("a COPY that fails before its first bytes is thrown, and gives its slot and connection back", async () => {
    const failing = copyingRepository([], new Error("relation does not exist"));
    const service = createExportsService({
      exports: failing.exports,
      limits: { perOrganization: 1, databaseConnections: 1 },
    });
    const error = await service.exportData(caller, "equivalencies", "csv").catch((e: Error) => e);
    expect((error as Error).message).to.equal("relation does not exist");
    const working = createExportsService({ exports: copyingRepository(["a\r\n"]).exports });
    expect((await drain((await working.exportData(caller, "equivalencies", "csv")).stream)).error).to.equal(null);
    // The same service again: its organization slot and its one connection were given back.
    const again = await service.exportData(caller, "equivalencies", "csv").catch((e: Error) => e);
    expect((again as Error).message).to.equal("relation does not exist");
  });

  it("a failure after the first bytes destroys the stream with the error after what was sent", async () => {
    const { exports } = copyingRepository(["eq_1,x\r\n", "eq_2,y\r\n"], new Error("connection lost"));
    const { stream } = await createExportsService({ exports }).exportData(caller, "equivalencies", "csv");
    const { text, error } = await drain(stream);
    expect(error?.message).to.equal("connection lost");
    expect(text).to.equal(`${await csvHeader(CSV_COLUMNS.equivalencies)}eq_1,x\r\neq_2,y\r\n`);
  });

  it("an abandoned export ends its COPY and gives its connection to the next export", async () => {
    const { exports, state } = copyingRepository(Array.from({ length: 100 }, (_, i) => `eq_${i}\r\n`));
    const service = createExportsService({ exports, limits: { perOrganization: 5, databaseConnections: 1 } });
    const first = await service.exportData(caller, "equivalencies", "csv");
    for await (const _chunk of first.stream) break;
    const [copy] = state.copies;
    if (!copy.closed) await once(copy, "close");
    expect(state.destroyed).to.equal(1);
    // With one connection for all exports, this one starts only if the abandoned one gave it back.
    const second = await service.exportData(caller, "equivalencies", "csv");
    expect((await drain(second.stream)).text.split("\r\n").filter(Boolean)).to.have.length(101);
    expect(state.opened).to.equal(2);
  });
});

describe("the COPY's bytes equal the database's batches (PostgreSQL)", () => {
  let t: TestApp;

  before(async function () {
    if (!usingPostgres) this.skip();
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await t.database.prisma.course.create({
      data: {
        id: "crs_x",
        environment: "live",
        institutionId: "inst_110635",
        code: "CS 1",
        codeKey: "CS 1",
        title: '=Formula, "quoted"\r\nlines',
        credits: 3,
        level: "lower",
      },
    });
    await t.database.prisma.equivalency.createMany({
      data: Array.from({ length: 2_345 }, (_, i) => ({
        id: `eq_${String(i).padStart(5, "0")}`,
        environment: "live" as const,
        sourceCourseId: "crs_x",
        targetInstitutionId: "inst_110662",
        targetCode: i % 3 ? `T ${i}` : `+T "${i}", \\ ünï`,
        targetKey: `code:T${i}`,
        status: "accepted" as const,
        policyBasis: i % 2 ? null : "line one\nline two",
        effectiveFrom: i % 5 ? null : new Date("2024-08-15T00:00:00Z"),
        awardedCredits: i % 4 ? null : 3.33,
        createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, 0, Math.floor(i / 3))),
      })),
    });
  });
  after(() => t?.close());

  async function batchesText(read: (after: never, take: number) => Promise<{ rows: number } & object>) {
    let text = "";
    let after = null as never;
    for (;;) {
      const batch = (await read(after, 1_000)) as { rows: number; csv?: string; text?: string };
      text += batch.csv ?? batch.text;
      if (batch.rows < 1_000) return text;
      after = batch as never;
    }
  }

  it("CSV, JSON and CTDL: the COPY through the pool, the batches through Prisma, byte for byte", async () => {
    const exports = t.app.context.repositories.exports;
    const jsonBatches = { json: exports.equivalencyJsonBatches("live"), ctdl: exports.equivalencyCtdlBatches("live") };
    for (const format of ["csv", "json", "ctdl"] as const) {
      const copy = await exports.equivalencyCopy("live", format);
      expect(copy, "PostgreSQL has COPY").to.not.equal(null);
      const copied = (await drain(await copy!)).text;
      const batches =
        format === "csv"
          ? await batchesText(exports.equivalencyCsvBatches("live") as never)
          : `,${await batchesText(jsonBatches[format] as never)}`;
      expect(copied.length, format).to.equal(batches.length);
      expect(copied === batches, format).to.equal(true);
    }
    const rows = await t.database.prisma.equivalency.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    const json = (await drain((await exports.equivalencyCopy("live", "json"))!)).text;
    expect(JSON.parse(`[${json.slice(1)}\n]`)).to.deep.equal(rows.map(equivalencyView));
  });

  it("an abandoned COPY closes its connection, and the pool serves the next query", async () => {
    const exports = t.app.context.repositories.exports;
    const copy = (await exports.equivalencyCopy("live", "csv"))!;
    for await (const _chunk of copy) break;
    expect(copy.destroyed).to.equal(true);
    const [row] = await t.database.statement<{ n: number }>("SELECT count(*)::int AS n FROM equivalencies", []);
    expect(row.n).to.equal(2_345);
  });
});
