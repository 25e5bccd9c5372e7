// The stewardship migration on a database that predates it: every organization is
// granted the institutions it had demonstrably written to, so no contributor loses access.
import { expect } from "chai";
import { applyMigrations, readMigrations } from "../../src/db/migrations.ts";
import { emptyDatabase, type TestDatabase } from "../helpers/database.ts";

const STEWARDSHIP = "20261125000000_stewardship";

describe("migration 20261125000000_stewardship (upgrade of an existing database)", () => {
  let db: TestDatabase;
  const query = <T>(sql: string, params: unknown[] = []) => db.session((s) => s.query<T>(sql, params));

  before(async () => {
    db = await emptyDatabase();
    const all = readMigrations();
    const earlier = all.filter((migration) => migration.name < STEWARDSHIP);
    expect(earlier.length).to.be.lessThan(all.length);
    await db.session((sql) => applyMigrations(sql, earlier));

    await db.session(async (sql) => {
      await sql.exec(`
        INSERT INTO organizations (id, slug, name, source) VALUES
          ('org_a', 'alpha', 'Alpha', 'channel_a'), ('org_b', 'beta', 'Beta', 'channel_b'), ('org_c', 'gamma', 'Gamma', 'direct');
        INSERT INTO api_keys (id, organization_id, environment, prefix, hash, scopes) VALUES
          ('key_b', 'org_b', 'live', 'svc_live_b', 'hash_b', '{read:public,write:contribute}');
        INSERT INTO oauth_clients (id, organization_id, environment, client_id, secret_hash, scopes) VALUES
          ('oac_c', 'org_c', 'sandbox', 'oac_c', 'hash_c', '{write:contribute}');
        INSERT INTO institutions (environment, id, ipeds_id, name, city, state, type, source, updated_at) VALUES
          ('live', 'inst_1', '1', 'One', 'A', 'CA', 'community_college', 'direct', now()),
          ('live', 'inst_2', '2', 'Two', 'B', 'CA', 'four_year_public', 'direct', now()),
          ('live', 'inst_3', '3', 'Three', 'C', 'CA', 'four_year_public', 'direct', now()),
          ('live', 'inst_4', '4', 'Four', 'D', 'CA', 'four_year_public', 'direct', now()),
          ('sandbox', 'inst_5', '5', 'Five', 'E', 'CA', 'four_year_public', 'direct', now());
        INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, level) VALUES
          ('crs_1', 'live', 'inst_1', 'MATH 1', 'MATH 1', 'Math', 3, 'lower');
        -- Alpha created an equivalency into inst_2; Beta later changed it (a version by Beta).
        INSERT INTO equivalencies (id, environment, source_course_id, target_institution_id, target_code, target_key, status, organization_id, provenance) VALUES
          ('eq_1', 'live', 'crs_1', 'inst_2', 'M 10', 'code:M 10', 'pending', 'org_a', 'channel_a'),
          ('eq_2', 'live', 'crs_1', 'inst_3', 'M 20', 'code:M 20', 'pending', 'org_a', 'channel_a');
        INSERT INTO equivalency_versions (id, equivalency_id, version, state, changed_fields, actor_organization_id) VALUES
          ('eqv_1', 'eq_1', 1, '{}', '{}', 'org_a'),
          ('eqv_2', 'eq_2', 1, '{}', '{}', 'org_a'),
          ('eqv_3', 'eq_2', 2, '{}', '{status}', 'org_b');
      `);
      // Course upserts remembered by their Idempotency-Key: Beta's key wrote inst_4, Gamma's OAuth client inst_5.
      await sql.query(
        `INSERT INTO idempotency_records (credential_id, key, operation_id, request_hash, response_status, response_body)
         VALUES ($1, 'k1', 'upsertCourses', 'h', 201, $2::jsonb), ($3, 'k2', 'upsertCourses', 'h', 201, $4::jsonb),
                ($1, 'k3', 'upsertCourses', 'h', 400, '{"type":"x"}'::jsonb)`,
        [
          "key_b",
          JSON.stringify({
            data: [
              { id: "crs_x", institutionId: "inst_4", code: "X", version: 1, result: "created" },
              { institutionId: "inst_missing" },
            ],
          }),
          "oac_c",
          JSON.stringify({
            data: [{ id: "crs_y", institutionId: "inst_5", code: "Y", version: 1, result: "created" }],
          }),
        ],
      );
    });
    const applied = await db.session((sql) => applyMigrations(sql));
    expect(applied).to.include(STEWARDSHIP);
  });
  after(() => db.close());

  it("grants each organization the institutions it created equivalencies for, changed, or upserted courses of", async () => {
    const grants = await query<{ organization_id: string; environment: string; institution_id: string }>(
      `SELECT organization_id, environment::text AS environment, institution_id FROM stewardships ORDER BY 1, 2, 3`,
    );
    expect(grants).to.deep.equal([
      { organization_id: "org_a", environment: "live", institution_id: "inst_2" },
      { organization_id: "org_a", environment: "live", institution_id: "inst_3" },
      { organization_id: "org_b", environment: "live", institution_id: "inst_3" },
      { organization_id: "org_b", environment: "live", institution_id: "inst_4" },
      { organization_id: "org_c", environment: "sandbox", institution_id: "inst_5" },
    ]);
    expect(await query(`SELECT * FROM stewardships_all`)).to.deep.equal([]);
  });
});
