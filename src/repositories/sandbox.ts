// The sandbox's fixed records: the public read-only key and its organization,
// and the demo dataset (organizations, institutions, courses, equivalencies and
// their versions) written in one transaction.
import { type Executor, statementsOn } from "./executor.ts";
import { insertFromJson } from "./record-columns.ts";
import type { Database } from "../db/database.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Channel, Environment } from "../../generated/prisma/client.ts";

export interface FixedOrganization {
  id: string;
  slug: string;
  name: string;
  source: Channel;
}

/** A key with a fixed id: created, or given these fields when it exists. */
export interface FixedApiKey {
  id: string;
  organizationId: string;
  name: string;
  fields: { hash: string; prefix: string; scopes: string[]; environment: Environment; revokedAt: null };
}

export interface SandboxSeed {
  organizations: FixedOrganization[];
  institutions: Prisma.InstitutionCreateManyInput[];
  courses: Prisma.CourseCreateManyInput[];
  equivalencies: Prisma.EquivalencyCreateManyInput[];
  versions: Prisma.EquivalencyVersionCreateManyInput[];
  /** Given stewardship of the seeded institutions, in the same transaction. */
  steward: FixedOrganization;
}

/** Inserts the organizations of parameter `$param` (a JSON array) when `condition` holds; an existing one is left as it is. */
function ensureOrganizations(param: number, condition = "TRUE"): string {
  return `INSERT INTO organizations (id, slug, name, source)
    SELECT id, slug, name, source FROM jsonb_populate_recordset(NULL::organizations, $${param}::jsonb)
    WHERE ${condition}
    ON CONFLICT (id) DO NOTHING`;
}

/**
 * Every write here is one statement (organizations and grants in CTEs of the same statement), so it
 * is atomic without a transaction and runs through `statement` when given (Database.statement): the
 * start-up's key, seed and grants then never load Prisma's query compiler. Each answers a row count
 * rather than nothing, which both Prisma's raw queries and the drivers return alike.
 */
export function createSandboxRepository(db: Executor, statement?: Database["statement"]) {
  const run = statementsOn(db, statement);
  return {
    async ensureApiKey(organization: FixedOrganization, key: FixedApiKey): Promise<void> {
      const { hash, prefix, scopes, environment } = key.fields;
      const row = {
        id: key.id,
        organization_id: key.organizationId,
        name: key.name,
        hash,
        prefix,
        scopes,
        environment,
      };
      await run(
        `WITH organization AS (${ensureOrganizations(1)})
         INSERT INTO api_keys (id, organization_id, name, hash, prefix, scopes, environment)
         SELECT id, organization_id, name, hash, prefix, scopes, environment FROM jsonb_populate_record(NULL::api_keys, $2::jsonb)
         ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, prefix = excluded.prefix, scopes = excluded.scopes,
           environment = excluded.environment, revoked_at = NULL
         RETURNING 1 AS written`,
        [JSON.stringify([organization]), JSON.stringify(row)],
      );
    },

    async countInstitutions(environment: Environment): Promise<number> {
      const [row] = await run<{ n: number }>(
        `SELECT count(*)::int AS n FROM institutions WHERE environment = $1::"Environment"`,
        [environment],
      );
      return row.n;
    },

    /** The whole seed in one statement; the steward is granted every institution it inserts. */
    async insertSeed(environment: Environment, seed: SandboxSeed): Promise<void> {
      const now = new Date();
      const tables = [
        insertFromJson(
          db,
          "Institution",
          "institutions",
          seed.institutions.map((institution) => ({ ...institution, createdAt: now, updatedAt: now })),
          2,
        ),
        insertFromJson(db, "Course", "courses", seed.courses, 3),
        insertFromJson(db, "Equivalency", "equivalencies", seed.equivalencies, 4),
        insertFromJson(db, "EquivalencyVersion", "equivalency_versions", seed.versions, 5),
      ];
      const [institutions, courses, equivalencies, versions] = tables;
      await run(
        `WITH organizations_added AS (${ensureOrganizations(1)}),
           institutions_added AS (${institutions.sql} RETURNING environment, id),
           courses_added AS (${courses.sql}),
           equivalencies_added AS (${equivalencies.sql}),
           versions_added AS (${versions.sql})
         INSERT INTO stewardships (organization_id, environment, institution_id)
         SELECT $6, environment, id FROM institutions_added WHERE environment = $7::"Environment"
         ON CONFLICT DO NOTHING
         RETURNING 1 AS granted`,
        [
          JSON.stringify([...seed.organizations, seed.steward]),
          ...tables.map((table) => table.json),
          seed.steward.id,
          environment,
        ],
      );
    },

    /** Grants `steward` the listed institutions that exist in the environment (idempotent); none is no write at all. */
    async grantStewardshipOfPresent(
      steward: FixedOrganization,
      environment: Environment,
      institutionIds: string[],
    ): Promise<void> {
      await run(
        `WITH present AS (
           SELECT environment, id FROM institutions
           WHERE environment = $2::"Environment" AND id IN (SELECT jsonb_array_elements_text($3::jsonb))),
         steward AS (${ensureOrganizations(1, "EXISTS (SELECT FROM present)")})
         INSERT INTO stewardships (organization_id, environment, institution_id)
         SELECT $4, environment, id FROM present
         ON CONFLICT DO NOTHING
         RETURNING 1 AS granted`,
        [JSON.stringify([steward]), environment, JSON.stringify(institutionIds), steward.id],
      );
    },
  };
}

export type SandboxRepository = ReturnType<typeof createSandboxRepository>;
