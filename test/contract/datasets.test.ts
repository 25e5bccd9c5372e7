import { expect } from "chai";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { loadSpec } from "../../src/pipeline/contract.ts";
import { createDatasetsRepository } from "../../src/repositories/datasets.ts";
import { createDatasetsService } from "../../src/services/datasets.ts";
import type { Credential } from "../../src/auth/credential.ts";
import { courseView, equivalencyView } from "../../src/views/catalog.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { COURSES, loadInstitutions, postCourses } from "../helpers/fixtures.ts";

const DAY_MS = 86_400_000;

function compileEventSchema() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "openapi", components: loadSpec().components });
  return ajv.getSchema("openapi#/components/schemas/DatasetPublishedEvent")!;
}

/** Three equivalencies of acme in live: clean, source without CIP code, no target. */
async function setup(t: TestApp) {
  await loadInstitutions(t.database.prisma, "live");
  const c = await postCourses(t, [
    COURSES["CS 55"],
    { institutionId: "inst_122977", code: "ART 1", title: "Drawing", credits: 3, level: "lower" },
    COURSES["CS 61B"],
  ]);
  const create = async (body: object) => {
    const response = await t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send(body);
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data.id as string;
  };
  return {
    clean: await create({
      sourceCourseId: c["CS 55"],
      targetInstitutionId: "inst_110635",
      targetCourseId: c["CS 61B"],
    }),
    noCip: await create({
      sourceCourseId: c["ART 1"],
      targetInstitutionId: "inst_110635",
      targetCode: "ART 1XX",
      status: "accepted",
    }),
    noTarget: await create({ sourceCourseId: c["CS 55"], targetInstitutionId: "inst_110662", status: "conflict" }),
  };
}

describe("datasets: publishDataset (POST /datasets)", () => {
  let t: TestApp;
  let eq: Awaited<ReturnType<typeof setup>>;
  const publish = (body: unknown, key = t.keys.live) =>
    t.http
      .post("/api/v1/datasets")
      .set(bearer(key))
      .send(body as object);
  const events = () => t.database.prisma.outboxEvent.findMany({ orderBy: { sequence: "asc" } });
  /** A version's records as published, in row order. */
  const snapshot = (id: string) => createDatasetsRepository(t.database.prisma).snapshotRecords(id);
  /** The stored states, by first publication and row: which equivalency, and the range of sequences holding it. */
  const states = async () =>
    (
      await t.database.prisma.datasetState.findMany({
        orderBy: [{ firstSequence: "asc" }, { createdAt: "asc" }, { equivalencyId: "asc" }],
      })
    ).map((s) => [s.equivalencyId, s.firstSequence, s.untilSequence]);
  const issuesOf = async (id: string) =>
    (await t.http.get(`/api/v1/datasets/${id}/issues?limit=100`).set(bearer(t.keys.live))).body.data;
  /** An equivalency's state as the views in JavaScript render it, published in `datasetVersionId`. */
  const viewsOf = async (id: string, datasetVersionId: string): Promise<Record<string, unknown>> => {
    const e = await t.database.prisma.equivalency.findUniqueOrThrow({
      where: { id },
      include: { sourceCourse: true, targetCourse: true },
    });
    const state = {
      ...equivalencyView({ ...e, datasetVersionId }),
      sourceCourse: courseView(e.sourceCourse),
      targetCourse: e.targetCourse ? courseView(e.targetCourse) : null,
    };
    return JSON.parse(JSON.stringify(state));
  };

  /**
   * Each equivalency's datasetVersionId as every reading shows it, by id: the single read, the
   * list, the versions' current record, and the JSON, CSV and CTDL exports (one value when they agree).
   */
  const shown = async (): Promise<Record<string, string | null>> => {
    const get = (path: string) => t.http.get(`/api/v1${path}`).set(bearer(t.keys.live));
    const readings = new Map<string, Set<string | null>>();
    const saw = (id: string, value: string | null) => {
      if (!readings.has(id)) readings.set(id, new Set());
      readings.get(id)!.add(value);
    };
    for (const item of (await get("/equivalencies?limit=100")).body.data) {
      saw(item.id, item.datasetVersionId);
      saw(item.id, (await get(`/equivalencies/${item.id}`)).body.data.datasetVersionId);
      saw(item.id, (await get(`/equivalencies/${item.id}/versions`)).body.data.current.datasetVersionId);
    }
    for (const item of (await get("/exports?format=json")).body) saw(item.id, item.datasetVersionId);
    const csv = (await get("/exports?format=csv")).text.trim().split("\r\n");
    const column = csv[0].split(",").indexOf("datasetVersionId");
    for (const line of csv.slice(1)) saw(line.split(",")[0], line.split(",")[column] || null);
    for (const node of JSON.parse((await get("/exports?format=ctdl")).text)["@graph"])
      saw(node["ceterms:identifier"][0]["ceterms:identifierValueCode"], node["ce:datasetVersionId"]);
    return Object.fromEntries(
      [...readings].map(([id, values]) => {
        expect([...values], `the readings of ${id}`).to.have.length(1);
        return [id, [...values][0]];
      }),
    );
  };

  beforeEach(async () => {
    t = await createTestApp();
    eq = await setup(t);
  });
  afterEach(() => t.close());

  it("201 snapshots the organization's equivalencies with their courses, in createdAt order, with row issues", async () => {
    const response = await publish({ label: "Spring 2025", recordCount: 3, metadata: { catalogYear: "2024-25" } });
    await expectContract(response, 201);
    const dataset = response.body.data;
    expect(response.headers.location).to.equal(`/api/v1/datasets/${dataset.id}`);
    expect(dataset).to.include({
      label: "Spring 2025",
      sequence: 1,
      recordCount: 3,
      snapshotRecordCount: 3,
      environment: "live",
      issueCount: 2,
    });
    expect(dataset.id).to.match(/^ds_/);
    expect(dataset.metadata).to.deep.equal({ catalogYear: "2024-25" });
    expect(dataset.issues).to.deep.equal([
      {
        row: 2,
        recordId: eq.noCip,
        field: "sourceCourse.cipCode",
        code: "missing_cip_code",
        severity: "warning",
        message: "The source course ART 1 has no CIP 2020 code.",
      },
      {
        row: 3,
        recordId: eq.noTarget,
        field: "targetCode",
        code: "missing_target",
        severity: "error",
        message: "The equivalency names neither a target course nor a target code.",
      },
    ]);

    const records = await snapshot(dataset.id);
    expect(records.map((r) => [r.row, r.equivalencyId])).to.deep.equal([
      [1, eq.clean],
      [2, eq.noCip],
      [3, eq.noTarget],
    ]);
    const state = records[0].state as Record<string, any>;
    expect(state).to.include({ id: eq.clean, status: "pending", version: 1, datasetVersionId: dataset.id });
    expect(state.sourceCourse).to.include({ code: "CS 55", cipCode: "11.0201" });
    expect(state.targetCourse).to.include({ code: "CS 61B" });
    expect((records[2].state as Record<string, unknown>).targetCourse).to.equal(null);

    const fetched = await t.http.get(`/api/v1/datasets/${dataset.id}`).set(bearer(t.keys.live));
    await expectContract(fetched, 200);
    expect(fetched.body.data).to.deep.equal(dataset);
  });

  it("records a record_count_mismatch warning (row null, first) instead of failing", async () => {
    const response = await publish({ label: "Declared wrong", recordCount: 5 });
    await expectContract(response, 201);
    expect(response.body.data).to.include({ recordCount: 5, snapshotRecordCount: 3, issueCount: 3 });
    expect(response.body.data.issues[0]).to.deep.equal({
      row: null,
      recordId: null,
      field: "recordCount",
      code: "record_count_mismatch",
      severity: "warning",
      message: "5 records were declared but the snapshot holds 3.",
    });
    expect(response.body.data.issues.map((i: { code: string }) => i.code)).to.deep.equal([
      "record_count_mismatch",
      "missing_cip_code",
      "missing_target",
    ]);
  });

  it("warns stale_pending for a pending equivalency older than the configured days", async () => {
    await t.database.prisma.equivalency.update({
      where: { id: eq.clean },
      data: { createdAt: new Date(Date.now() - (t.config.datasets.stalePendingDays + 1) * DAY_MS) },
    });
    const response = await publish({ label: "Stale" });
    await expectContract(response, 201);
    const stale = response.body.data.issues.filter((i: { code: string }) => i.code === "stale_pending");
    expect(stale).to.have.length(1);
    expect(stale[0]).to.include({ row: 1, recordId: eq.clean, field: "status", severity: "warning" });
  });

  it("takes the stale threshold and the clock from its options", async () => {
    const credential: Credential = {
      kind: "api_key",
      id: "key_test",
      organizationId: t.organizationId,
      organizationSlug: "acme",
      channel: "channel_a",
      environment: "live",
      scopes: ["read:public", "write:contribute"],
    };
    const created = (
      await t.database.prisma.equivalency.findUniqueOrThrow({ where: { id: eq.clean } })
    ).createdAt.getTime();
    const publishedOn = (day: number) =>
      createDatasetsService({
        ...t.app.context.repositories,
        stalePendingDays: 30,
        clock: () => new Date(created + day * DAY_MS),
      });
    const fresh = await publishedOn(30).publishDataset(credential, { label: "day 30" });
    expect(fresh.issues.map((i) => i.code)).to.not.include("stale_pending");
    const later = await publishedOn(31).publishDataset(credential, { label: "day 31" });
    // Only the pending one; accepted and conflict decisions are not stale.
    expect(later.issues.filter((i) => i.code === "stale_pending").map((i) => i.recordId)).to.deep.equal([eq.clean]);
    expect(later.createdAt).to.equal(new Date(created + 31 * DAY_MS).toISOString());
  });

  it("reports datasetVersionId on the included equivalencies without changing them; a later dataset takes over", async () => {
    const before = await t.http.get(`/api/v1/equivalencies/${eq.clean}`).set(bearer(t.keys.live));
    const first = (await publish({ label: "first" })).body.data;
    const afterFirst = await t.http.get(`/api/v1/equivalencies/${eq.clean}`).set(bearer(t.keys.live));
    await expectContract(afterFirst, 200);
    expect(afterFirst.body.data.datasetVersionId).to.equal(first.id);
    expect(afterFirst.body.data).to.include({
      version: before.body.data.version,
      updatedAt: before.body.data.updatedAt,
    });
    expect(afterFirst.headers.etag).to.equal(before.headers.etag);

    const second = (await publish({ label: "second" })).body.data;
    const list = await t.http.get("/api/v1/equivalencies").set(bearer(t.keys.live));
    expect(list.body.data.map((e: { datasetVersionId: string }) => e.datasetVersionId)).to.deep.equal([
      second.id,
      second.id,
      second.id,
    ]);
    expect(list.body.data.map((e: { version: number }) => e.version)).to.deep.equal([1, 1, 1]);

    const versions = await t.http.get(`/api/v1/equivalencies/${eq.clean}/versions`).set(bearer(t.keys.live));
    expect(versions.body.data.versions).to.have.length(1);
    expect(versions.body.data.current.datasetVersionId).to.equal(second.id);
    expect((await events()).map((e) => e.type)).to.deep.equal([
      "equivalency.created",
      "equivalency.created",
      "equivalency.created",
      "dataset.published",
      "dataset.published",
    ]);
    // The first snapshot keeps what it published.
    const [kept] = await snapshot(first.id);
    expect(kept).to.include({ row: 1, equivalencyId: eq.clean });
    expect(kept.state.datasetVersionId).to.equal(first.id);
  });

  it("writes dataset.published to the outbox, valid against DatasetPublishedEvent; its counts mean what the resource's do", async () => {
    const dataset = (await publish({ label: "Evented", recordCount: 7 })).body.data;
    const event = (await events()).find((e) => e.type === "dataset.published")!;
    expect(event.environment).to.equal("live");
    expect((event.payload as { data: unknown }).data).to.deep.equal({
      datasetVersionId: dataset.id,
      label: "Evented",
      sequence: 1,
      snapshotRecordCount: 3,
      recordCount: 3,
      issueCount: 3,
    });
    // One meaning per name: the event's snapshotRecordCount is the resource's; recordCount stays only as deprecated.
    expect((event.payload as { data: { snapshotRecordCount: number } }).data.snapshotRecordCount).to.equal(
      dataset.snapshotRecordCount,
    );
    const validate = compileEventSchema();
    expect(validate(event.payload), JSON.stringify(validate.errors)).to.equal(true);
  });

  it("numbers versions per organization and environment; an organization without equivalencies publishes an empty snapshot", async () => {
    expect((await publish({ label: "a1" })).body.data.sequence).to.equal(1);
    expect((await publish({ label: "a2" })).body.data.sequence).to.equal(2);
    const other = await t.otherOrganization("beta");
    const empty = await publish({ label: "b1" }, other.key);
    await expectContract(empty, 201);
    expect(empty.body.data).to.include({
      sequence: 1,
      snapshotRecordCount: 0,
      issueCount: 0,
      recordCount: null,
      metadata: null,
    });
    expect(empty.body.data.issues).to.deep.equal([]);
    const sandbox = await publish({ label: "s1" }, t.keys.sandbox);
    expect(sandbox.body.data).to.include({ sequence: 1, environment: "sandbox", snapshotRecordCount: 0 });
    // Another organization's dataset claims none of acme's equivalencies.
    const eqs = await t.database.prisma.equivalency.findMany();
    expect(eqs.every((e) => e.datasetVersionId !== empty.body.data.id)).to.equal(true);
  });

  it("gives concurrent publishes distinct sequences without gaps", async () => {
    const responses = await Promise.all([1, 2, 3, 4, 5].map((n) => publish({ label: `concurrent ${n}` })));
    for (const response of responses) expect(response.status, JSON.stringify(response.body)).to.equal(201);
    expect(responses.map((r) => r.body.data.sequence).sort()).to.deep.equal([1, 2, 3, 4, 5]);
    for (const response of responses) expect(response.body.data.snapshotRecordCount).to.equal(3);
    const latest = responses.find((r) => r.body.data.sequence === 5)!.body.data.id;
    expect(await shown()).to.deep.equal({ [eq.clean]: latest, [eq.noCip]: latest, [eq.noTarget]: latest });
  });

  it("keeps published states and issues immutable in the database: a state's range is closed once, nothing else", async () => {
    const dataset = (await publish({ label: "Frozen" })).body.data;
    const db = t.database.prisma;
    const refusal = (sql: string) =>
      db.$executeRawUnsafe(sql).then(
        () => "",
        (e: unknown) => String(e),
      );
    expect(await refusal(`UPDATE dataset_states SET content = '{}'::jsonb`)).to.match(/append-only/);
    expect(await refusal(`UPDATE dataset_states SET until_sequence = 2, pending = NOT pending`)).to.match(
      /append-only/,
    );
    expect(await refusal(`DELETE FROM dataset_states`)).to.match(/append-only/);
    expect(await refusal(`DELETE FROM dataset_issues WHERE dataset_version_id = '${dataset.id}'`)).to.match(
      /append-only/,
    );
    expect(await refusal(`UPDATE dataset_states SET until_sequence = 2 WHERE equivalency_id = '${eq.clean}'`)).to.equal(
      "",
    );
    expect(await refusal(`UPDATE dataset_states SET until_sequence = 3 WHERE equivalency_id = '${eq.clean}'`)).to.match(
      /append-only/,
    );
    expect(await snapshot(dataset.id)).to.have.length(3);
    expect(await db.datasetIssue.count({ where: { datasetVersionId: dataset.id } })).to.equal(2);
  });

  it("stores a state only for an equivalency whose version or courses changed; an unchanged one costs no row", async () => {
    const first = (await publish({ label: "first" })).body.data;
    const second = (await publish({ label: "second" })).body.data;
    // Nothing changed: the second publication stores no state and closes none.
    expect(await states()).to.deep.equal([
      [eq.clean, 1, null],
      [eq.noCip, 1, null],
      [eq.noTarget, 1, null],
    ]);

    const patched = await t.http
      .patch(`/api/v1/equivalencies/${eq.clean}`)
      .set(bearer(t.keys.live))
      .send({ status: "accepted" });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
    const third = (await publish({ label: "third" })).body.data;
    // Only the changed equivalency's state is stored; its earlier one is closed at the third.
    expect(await states()).to.deep.equal([
      [eq.clean, 1, 3],
      [eq.noCip, 1, null],
      [eq.noTarget, 1, null],
      [eq.clean, 3, null],
    ]);

    // Read back, every version is its whole snapshot as published, each state naming its own version.
    const [firstSnapshot, secondSnapshot, thirdSnapshot] = [
      await snapshot(first.id),
      await snapshot(second.id),
      await snapshot(third.id),
    ];
    for (const [records, id] of [
      [firstSnapshot, first.id],
      [secondSnapshot, second.id],
      [thirdSnapshot, third.id],
    ] as const) {
      expect(records.map((r) => [r.row, r.equivalencyId])).to.deep.equal([
        [1, eq.clean],
        [2, eq.noCip],
        [3, eq.noTarget],
      ]);
      for (const record of records) expect(record.state).to.include({ id: record.equivalencyId, datasetVersionId: id });
    }
    const withoutVersion = ({ datasetVersionId: _, ...rest }: Record<string, unknown>) => rest;
    expect(secondSnapshot.map((r) => withoutVersion(r.state))).to.deep.equal(
      firstSnapshot.map((r) => withoutVersion(r.state)),
    );
    expect(thirdSnapshot[0].state).to.include({ status: "accepted", version: 2 });
    expect(withoutVersion(thirdSnapshot[1].state)).to.deep.equal(withoutVersion(firstSnapshot[1].state));
    expect(firstSnapshot[0].state).to.include({ status: "pending", version: 1 });
  });

  it("republished unchanged, a dataset has the content and the issues it had; only its datasetVersionId differs", async () => {
    await t.database.prisma.equivalency.update({
      where: { id: eq.clean },
      data: { createdAt: new Date(Date.now() - (t.config.datasets.stalePendingDays + 1) * DAY_MS) },
    });
    const first = (await publish({ label: "first", recordCount: 4 })).body.data;
    const again = (await publish({ label: "again", recordCount: 4 })).body.data;
    await expectContract(await t.http.get(`/api/v1/datasets/${again.id}`).set(bearer(t.keys.live)), 200);
    expect(again).to.include({ sequence: 2, snapshotRecordCount: 3, issueCount: first.issueCount });
    expect(first.issueCount).to.equal(4);
    const withoutVersion = ({ datasetVersionId: _, ...rest }: Record<string, unknown>) => rest;
    const [before, after] = [await snapshot(first.id), await snapshot(again.id)];
    expect(after.map((r) => [r.row, r.equivalencyId, withoutVersion(r.state)])).to.deep.equal(
      before.map((r) => [r.row, r.equivalencyId, withoutVersion(r.state)]),
    );
    expect(await issuesOf(again.id)).to.deep.equal(await issuesOf(first.id));
    expect((await issuesOf(again.id)).map((i: { code: string; row: number | null }) => [i.row, i.code])).to.deep.equal([
      [null, "record_count_mismatch"],
      [1, "stale_pending"],
      [2, "missing_cip_code"],
      [3, "missing_target"],
    ]);
    expect(again.issues).to.deep.equal(first.issues);
  });

  it("leaves out an equivalency that left the organization, renumbering the rows; earlier versions keep it", async () => {
    const first = (await publish({ label: "first" })).body.data;
    const other = await t.otherOrganization("beta");
    await t.database.prisma.equivalency.update({ where: { id: eq.noCip }, data: { organizationId: other.id } });
    const second = (await publish({ label: "second" })).body.data;
    expect(second).to.include({ snapshotRecordCount: 2, issueCount: 1 });
    expect(second.issues).to.deep.equal([{ ...first.issues[1], row: 2 }]);
    expect((await snapshot(second.id)).map((r) => [r.row, r.equivalencyId])).to.deep.equal([
      [1, eq.clean],
      [2, eq.noTarget],
    ]);
    expect((await snapshot(first.id)).map((r) => r.equivalencyId)).to.deep.equal([eq.clean, eq.noCip, eq.noTarget]);
    expect(await states()).to.deep.equal([
      [eq.clean, 1, null],
      [eq.noCip, 1, 2],
      [eq.noTarget, 1, null],
    ]);
    // The one left out still names the last dataset that included it (it is beta's now: no list of acme shows it).
    const left = await t.database.prisma.equivalency.findUniqueOrThrow({ where: { id: eq.noCip } });
    expect(left).to.include({ datasetVersionId: first.id, inLatestDataset: false });
    const leftShown = await t.http.get(`/api/v1/equivalencies/${eq.noCip}`).set(bearer(t.keys.live));
    expect(leftShown.body.data.datasetVersionId).to.equal(first.id);
    expect(await shown()).to.deep.include({ [eq.clean]: second.id, [eq.noTarget]: second.id });
  });

  it("republishing writes no equivalency it included before: each still shows the latest publication, everywhere; a new one shows none until published", async () => {
    const first = (await publish({ label: "first" })).body.data;
    expect(await shown()).to.deep.equal({ [eq.clean]: first.id, [eq.noCip]: first.id, [eq.noTarget]: first.id });
    // A row's xmin is the transaction that wrote it last: unchanged by a publication that writes no row.
    const written = async () =>
      Object.fromEntries(
        (
          await t.database.prisma.$queryRawUnsafe<{ id: string; xmin: string }[]>(
            "SELECT id, xmin::text FROM equivalencies ORDER BY id",
          )
        ).map((row) => [row.id, row.xmin]),
      );
    const before = await written();
    const second = (await publish({ label: "second" })).body.data;
    expect(await written()).to.deep.equal(before);
    expect(await shown()).to.deep.equal({ [eq.clean]: second.id, [eq.noCip]: second.id, [eq.noTarget]: second.id });
    // A PATCH is a change of the rule: its version holds the latest publication as its datasetVersionId.
    const patched = await t.http
      .patch(`/api/v1/equivalencies/${eq.clean}`)
      .set(bearer(t.keys.live))
      .send({ decidedBy: "Articulation office" });
    await expectContract(patched, 200);
    expect(patched.body.data.datasetVersionId).to.equal(second.id);
    const versions = await t.http.get(`/api/v1/equivalencies/${eq.clean}/versions`).set(bearer(t.keys.live));
    expect(versions.body.data.versions[0].state.datasetVersionId).to.equal(second.id);
    const created = await t.http
      .post("/api/v1/equivalencies")
      .set(bearer(t.keys.live))
      .send({
        sourceCourseId: (await t.database.prisma.equivalency.findUniqueOrThrow({ where: { id: eq.noTarget } }))
          .sourceCourseId,
        targetInstitutionId: "inst_110635",
        targetCode: "NEW 1",
      });
    await expectContract(created, 201);
    expect((await shown())[created.body.data.id]).to.equal(null);
    const third = (await publish({ label: "third" })).body.data;
    expect(await shown()).to.deep.equal({
      [eq.clean]: third.id,
      [eq.noCip]: third.id,
      [eq.noTarget]: third.id,
      [created.body.data.id]: third.id,
    });
  });

  it("stores each state as equivalencyView and courseView make it, with its own datasetVersionId", async () => {
    const first = (await publish({ label: "first" })).body.data;
    const records = await snapshot(first.id);
    expect(records.map((r) => r.state)).to.deep.equal(
      await Promise.all([eq.clean, eq.noCip, eq.noTarget].map((id) => viewsOf(id, first.id))),
    );
  });

  it("stores the state again when a course it references changed though the equivalency did not", async () => {
    await publish({ label: "first" });
    const renamed = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send([
        { institutionId: "inst_122977", code: "ART 1", title: "Drawing and Composition", credits: 3, level: "lower" },
      ]);
    expect(renamed.body.data[0], JSON.stringify(renamed.body)).to.include({ result: "updated", version: 2 });
    const second = (await publish({ label: "second" })).body.data;
    expect(await states()).to.deep.equal([
      [eq.clean, 1, null],
      [eq.noCip, 1, 2],
      [eq.noTarget, 1, null],
      [eq.noCip, 2, null],
    ]);
    const rows = await snapshot(second.id);
    expect(rows[1].state).to.deep.equal(await viewsOf(eq.noCip, second.id));
    expect(rows[1].state).to.deep.include({ version: 1 });
    expect((rows[1].state as { sourceCourse: object }).sourceCourse).to.include({ title: "Drawing and Composition" });
  });

  it("400 for an unknown field, a missing or empty label and a recordCount below 0 or past its limit; nothing written", async () => {
    const cases: [unknown, string][] = [
      [{ label: "x", extra: 1 }, "/extra"],
      [{ recordCount: 1 }, "/label"],
      [{ label: "" }, "/label"],
      [{ label: "x", recordCount: -1 }, "/recordCount"],
      [{ label: "x", recordCount: 2_147_483_648 }, "/recordCount"],
    ];
    for (const [body, pointer] of cases) {
      const response = await publish(body);
      await expectContract(response, 400);
      expectProblem(response, "validation-failed");
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.include(pointer);
    }
    expect(await t.database.prisma.datasetVersion.count()).to.equal(0);
    expect((await events()).filter((e) => e.type === "dataset.published")).to.have.length(0);
  });

  it("401 without a credential, 403 for a read-only key, 415 for a body that is not JSON", async () => {
    const anonymous = await t.http.post("/api/v1/datasets").send({ label: "x" });
    await expectContract(anonymous, 401);
    expectProblem(anonymous, "unauthenticated");
    const readOnly = await publish({ label: "x" }, t.keys.liveReadOnly);
    await expectContract(readOnly, 403);
    expectProblem(readOnly, "forbidden");
    const text = await t.http
      .post("/api/v1/datasets")
      .set(bearer(t.keys.live))
      .set("Content-Type", "text/plain")
      .send("label=x");
    await expectContract(text, 415);
    expectProblem(text, "unsupported-media-type");
    expect(await t.database.prisma.datasetVersion.count()).to.equal(0);
  });
});

describe("datasets: listDatasets (GET /datasets), getDataset (GET /datasets/{id})", () => {
  let t: TestApp;
  let ids: string[];
  const get = (path: string, key = t.keys.live) => t.http.get(`/api/v1${path}`).set(bearer(key));

  before(async () => {
    t = await createTestApp();
    await setup(t);
    ids = [];
    for (const label of ["one", "two", "three"]) {
      ids.push((await t.http.post("/api/v1/datasets").set(bearer(t.keys.live)).send({ label })).body.data.id);
    }
  });
  after(() => t.close());

  it("listDatasets: 200 lists the caller's versions newest first, paged, with X-Total-Count and Link", async () => {
    const all = await get("/datasets");
    await expectContract(all, 200);
    expect(all.body.data.map((d: { sequence: number }) => d.sequence)).to.deep.equal([3, 2, 1]);
    expect(all.body.data[0]).to.not.have.property("issues");
    expect(all.headers["x-total-count"]).to.equal("3");
    const page = await get("/datasets?limit=1&offset=1", t.keys.liveReadOnly);
    await expectContract(page, 200);
    expect(page.body.data.map((d: { id: string }) => d.id)).to.deep.equal([ids[1]]);
    expect(page.body.pagination).to.include({ total: 3, limit: 1, offset: 1, returned: 1 });
    expect(page.headers.link).to.include('rel="next"').and.include('rel="prev"');
  });

  it("listDatasets: 400 for a limit out of range", async () => {
    const response = await get("/datasets?limit=101");
    await expectContract(response, 400);
    expectProblem(response, "validation-failed");
  });

  it("getDataset: 200 reads one version with its issues", async () => {
    const response = await get(`/datasets/${ids[0]}`, t.keys.liveReadOnly);
    await expectContract(response, 200);
    expect(response.body.data).to.include({ id: ids[0], label: "one", sequence: 1, issueCount: 2 });
    expect(response.body.data.issues).to.have.length(2);
  });

  it("getDataset: 404 for an unknown id, another organization's dataset and another environment's", async () => {
    const unknown = await get("/datasets/ds_nope");
    await expectContract(unknown, 404);
    expectProblem(unknown, "not-found");
    const other = await t.otherOrganization("gamma");
    const foreign = await get(`/datasets/${ids[0]}`, other.key);
    await expectContract(foreign, 404);
    const otherList = await get("/datasets", other.key);
    expect(otherList.body.data).to.deep.equal([]);
    const sandbox = await get(`/datasets/${ids[0]}`, t.keys.sandbox);
    await expectContract(sandbox, 404);
    expect((await get("/datasets", t.keys.sandbox)).body.data).to.deep.equal([]);
  });

  it("401 without a credential", async () => {
    for (const path of ["/api/v1/datasets", `/api/v1/datasets/${ids[0]}`]) {
      const response = await t.http.get(path);
      await expectContract(response, 401);
      expectProblem(response, "unauthenticated");
    }
  });
});

describe("datasets: listDatasetIssues (GET /datasets/{id}/issues)", () => {
  let t: TestApp;
  let id: string;
  const get = (path: string, key = t.keys.live) => t.http.get(`/api/v1${path}`).set(bearer(key));
  const rows = (response: { body: { data: { row: number | null }[] } }) => response.body.data.map((i) => i.row);

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    const c = await postCourses(t, [
      { institutionId: "inst_122977", code: "ART 1", title: "Drawing", credits: 3, level: "lower" },
    ]);
    // 101 records whose source course has no CIP code: 101 issues, and a record-count mismatch first.
    for (let n = 1; n <= 101; n++) {
      const created = await t.http
        .post("/api/v1/equivalencies")
        .set(bearer(t.keys.live))
        .send({ sourceCourseId: c["ART 1"], targetInstitutionId: "inst_110635", targetCode: `ART ${n}X` });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    }
    const published = await t.http
      .post("/api/v1/datasets")
      .set(bearer(t.keys.live))
      .send({ label: "big", recordCount: 1 });
    expect(published.status).to.equal(201);
    id = published.body.data.id;
  });
  after(() => t.close());

  it("getDataset embeds the first 100 issues only; issueCount tells how many there are", async () => {
    const response = await get(`/datasets/${id}`);
    await expectContract(response, 200);
    expect(response.body.data.issueCount).to.equal(102);
    expect(response.body.data.issues).to.have.length(100);
    expect(response.body.data.issues[0]).to.include({ row: null, code: "record_count_mismatch" });
  });

  it("listDatasetIssues: 200 pages every issue in row order, by offset and by cursor", async () => {
    const first = await get(`/datasets/${id}/issues?limit=100`, t.keys.liveReadOnly);
    await expectContract(first, 200);
    expect(rows(first)).to.deep.equal([null, ...Array.from({ length: 99 }, (_, i) => i + 1)]);
    expect(first.body.pagination).to.include({ total: 102, limit: 100, returned: 100 });
    expect(first.headers["x-total-count"]).to.equal("102");
    const rest = await get(`/datasets/${id}/issues?limit=100&after=${first.body.pagination.nextCursor}`);
    await expectContract(rest, 200);
    expect(rows(rest)).to.deep.equal([100, 101]);
    expect(rest.body.pagination.nextCursor).to.equal(null);
    const byOffset = await get(`/datasets/${id}/issues?offset=101`);
    expect(rows(byOffset)).to.deep.equal([101]);
    expect(byOffset.body.data[0]).to.include({ code: "missing_cip_code", severity: "warning" });
  });

  it("listDatasetIssues: 400 for a limit out of range or another list's cursor", async () => {
    await expectContract(await get(`/datasets/${id}/issues?limit=0`), 400);
    const equivalencies = await get("/equivalencies?limit=1");
    const foreign = await get(`/datasets/${id}/issues?after=${equivalencies.body.pagination.nextCursor}`);
    await expectContract(foreign, 400);
    expectProblem(foreign, "invalid-cursor");
  });

  it("listDatasetIssues: 404 for an unknown id, another organization's and another environment's dataset; 401 without a credential", async () => {
    await expectContract(await get("/datasets/ds_nope/issues"), 404);
    const other = await t.otherOrganization("gamma");
    await expectContract(await get(`/datasets/${id}/issues`, other.key), 404);
    await expectContract(await get(`/datasets/${id}/issues`, t.keys.sandbox), 404);
    const anonymous = await t.http.get(`/api/v1/datasets/${id}/issues`);
    await expectContract(anonymous, 401);
  });
});
