// The dataset_states migration on a database that predates it: every earlier version's records,
// whether stored whole or naming the version that held their state, become states with the range
// of versions that published them, and each version still reads as it was published.
import { expect } from "chai";
import { applyMigrations, readMigrations } from "../../src/db/migrations.ts";
import { createDatasetStatesRepository } from "../../src/repositories/dataset-states.ts";
import { emptyDatabase, type TestDatabase } from "../helpers/database.ts";

const STATES = "20261209000000_dataset_state_intervals";

/** A published state as the earlier publications stored it (datasetVersionId included). */
function state(id: string, version: number, datasetVersionId: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    version,
    status: "accepted",
    targetCourseId: null,
    targetCode: "M 10",
    createdAt: `2026-01-0${id.slice(-1)}T00:00:00.000Z`,
    sourceCourse: { id: "crs_1", code: "MATH 1", cipCode: null, version: 1 },
    targetCourse: null,
    datasetVersionId,
    ...extra,
  };
}

describe("migration 20261209000000_dataset_state_intervals (upgrade of an existing database)", () => {
  let db: TestDatabase;
  const query = <T>(sql: string, params: unknown[] = []) => db.session((s) => s.query<T>(sql, params));

  before(async () => {
    db = await emptyDatabase();
    const all = readMigrations();
    const earlier = all.filter((migration) => migration.name < STATES);
    expect(earlier.length).to.be.lessThan(all.length);
    await db.session((sql) => applyMigrations(sql, earlier));
    await db.session(async (sql) => {
      await sql.exec(`
        INSERT INTO organizations (id, slug, name, source) VALUES ('org_a', 'alpha', 'Alpha', 'direct');
        INSERT INTO dataset_versions (id, environment, organization_id, sequence, label, snapshot_record_count, issue_count)
        VALUES ('ds_1', 'live', 'org_a', 1, 'one', 3, 0), ('ds_2', 'live', 'org_a', 2, 'two', 2, 0),
               ('ds_3', 'live', 'org_a', 3, 'three', 2, 0);`);
      const record = (version: string, row: number, id: string, stored: object | null, heldBy: string | null) =>
        sql.query(
          `INSERT INTO dataset_records (dataset_version_id, "row", equivalency_id, state, state_dataset_version_id)
           VALUES ($1, $2, $3, $4::jsonb, $5)`,
          [version, row, id, stored === null ? null : JSON.stringify(stored), heldBy],
        );
      // eq_1: stored by ds_1, held by it in ds_2, changed in ds_3.
      await record("ds_1", 1, "eq_1", state("eq_1", 1, "ds_1"), null);
      await record("ds_2", 1, "eq_1", null, "ds_1");
      await record("ds_3", 1, "eq_1", state("eq_1", 2, "ds_3", { status: "pending" }), null);
      // eq_2: stored whole by ds_1 and again by ds_2 (before states were shared), held by ds_2 in ds_3.
      await record("ds_1", 2, "eq_2", state("eq_2", 1, "ds_1"), null);
      await record("ds_2", 2, "eq_2", state("eq_2", 1, "ds_2"), null);
      await record("ds_3", 2, "eq_2", null, "ds_2");
      // eq_3: only in ds_1, without a target.
      await record("ds_1", 3, "eq_3", state("eq_3", 1, "ds_1", { targetCode: null }), null);
    });
    const applied = await db.session((sql) => applyMigrations(sql));
    expect(applied).to.include(STATES);
  });
  after(() => db.close());

  it("keeps one state per run of versions holding it, with its range, its versions and its issue facts", async () => {
    const rows = await query<Record<string, unknown>>(
      `SELECT equivalency_id, first_sequence, until_sequence, equivalency_version, source_course_id,
         source_course_version, target_course_id, missing_target, source_code_without_cip, pending,
         content ? 'datasetVersionId' AS has_version_id
       FROM dataset_states ORDER BY equivalency_id, first_sequence`,
    );
    const common = { source_course_id: "crs_1", source_course_version: 1, target_course_id: null };
    const facts = { source_code_without_cip: "MATH 1", has_version_id: false };
    expect(rows).to.deep.equal([
      {
        equivalency_id: "eq_1",
        first_sequence: 1,
        until_sequence: 3,
        equivalency_version: 1,
        ...common,
        missing_target: false,
        ...facts,
        pending: false,
      },
      {
        equivalency_id: "eq_1",
        first_sequence: 3,
        until_sequence: null,
        equivalency_version: 2,
        ...common,
        missing_target: false,
        ...facts,
        pending: true,
      },
      {
        equivalency_id: "eq_2",
        first_sequence: 1,
        until_sequence: 2,
        equivalency_version: 1,
        ...common,
        missing_target: false,
        ...facts,
        pending: false,
      },
      {
        equivalency_id: "eq_2",
        first_sequence: 2,
        until_sequence: null,
        equivalency_version: 1,
        ...common,
        missing_target: false,
        ...facts,
        pending: false,
      },
      {
        equivalency_id: "eq_3",
        first_sequence: 1,
        until_sequence: 2,
        equivalency_version: 1,
        ...common,
        missing_target: true,
        ...facts,
        pending: false,
      },
    ]);
    const tables = await query<{ name: string }>(`SELECT to_regclass('dataset_records')::text AS name`);
    expect(tables[0].name).to.equal(null);
  });

  it("reads every earlier version as it was published, rows numbered in creation order", async () => {
    const read = async (sequence: number) =>
      (
        await createDatasetStatesRepository(db.prisma).records({
          id: `ds_${sequence}`,
          organizationId: "org_a",
          environment: "live",
          sequence,
        })
      ).map((r) => [r.row, r.equivalencyId, r.state]);
    expect(await read(1)).to.deep.equal([
      [1, "eq_1", state("eq_1", 1, "ds_1")],
      [2, "eq_2", state("eq_2", 1, "ds_1")],
      [3, "eq_3", state("eq_3", 1, "ds_1", { targetCode: null })],
    ]);
    expect(await read(2)).to.deep.equal([
      [1, "eq_1", state("eq_1", 1, "ds_2")],
      [2, "eq_2", state("eq_2", 1, "ds_2")],
    ]);
    expect(await read(3)).to.deep.equal([
      [1, "eq_1", state("eq_1", 2, "ds_3", { status: "pending" })],
      [2, "eq_2", state("eq_2", 1, "ds_3")],
    ]);
  });
});
