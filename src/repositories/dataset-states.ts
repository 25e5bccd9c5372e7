// The states a dataset publication stores, decided from versions: an equivalency whose version, and
// whose source and target courses' versions, equal those of its open state is unchanged and costs
// no row. Every statement runs inside the publication's transaction, after the organization's row
// lock has queued concurrent publishers (nextSequence), so only one publication of an owner writes
// its states at a time. See the dataset_states migration for the table.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { DatasetOwner } from "./datasets.ts";

export interface IssueRules {
  /** A pending equivalency created before this instant is stale. */
  staleBefore: Date;
  stalePendingDays: number;
}

export function createDatasetStatesRepository(db: Prisma.TransactionClient) {
  return {
    /**
     * Closes at `sequence` the owner's open states that the current equivalencies no longer match:
     * the equivalency was removed or left the owner, or its version or a course's differs. Runs
     * before openStates, so an equivalency changed between the two statements keeps the state
     * this one saw.
     */
    closeChanged(owner: DatasetOwner, sequence: number): Promise<number> {
      return db.$executeRaw`
        UPDATE dataset_states AS s SET until_sequence = ${sequence}::int
        WHERE s.organization_id = ${owner.organizationId} AND s.environment = ${owner.environment}::"Environment"
          AND s.until_sequence IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM equivalencies AS e
            JOIN courses AS sc ON sc.id = e.source_course_id
            LEFT JOIN courses AS tc ON tc.id = e.target_course_id
            WHERE e.id = s.equivalency_id AND e.organization_id = s.organization_id AND e.environment = s.environment
              AND e.version = s.equivalency_version
              AND sc.id = s.source_course_id AND sc.version = s.source_course_version
              AND tc.id IS NOT DISTINCT FROM s.target_course_id AND tc.version IS NOT DISTINCT FROM s.target_course_version)`;
    },

    /**
     * Stores, from `sequence` on, the state of each of the owner's equivalencies that has no open
     * state: new, or closed by closeChanged. Each state is rendered by the database as the API
     * shows it (`equivalency_api_json`, `course_api_json`), without the datasetVersionId. Which
     * have none is an EXCEPT, which reads both sides once before the first row is inserted: an
     * anti-join planned as a nested loop over the (never analysed) table being inserted into
     * rescanned it per row, quadratic (100 s for 20,000 rules on PostgreSQL).
     */
    openNew(owner: DatasetOwner, sequence: number): Promise<number> {
      return db.$executeRaw`
        INSERT INTO dataset_states (organization_id, environment, equivalency_id, created_at, equivalency_version,
          source_course_id, source_course_version, target_course_id, target_course_version, first_sequence,
          content, missing_target, source_code_without_cip, pending)
        SELECT e.organization_id, e.environment, e.id, e.created_at, e.version, sc.id, sc.version, tc.id, tc.version,
          ${sequence}::int,
          ("equivalency_api_json"(e, NULL)::jsonb - 'datasetVersionId') || jsonb_build_object(
            'sourceCourse', "course_api_json"(sc),
            'targetCourse', CASE WHEN tc.id IS NULL THEN NULL ELSE "course_api_json"(tc) END),
          e.target_course_id IS NULL AND e.target_code IS NULL,
          CASE WHEN coalesce(sc.cip_code, '') = '' THEN sc.code END,
          e.status = 'pending'
        FROM (
          SELECT id FROM equivalencies
          WHERE organization_id = ${owner.organizationId} AND environment = ${owner.environment}::"Environment"
          EXCEPT
          SELECT equivalency_id FROM dataset_states
          WHERE organization_id = ${owner.organizationId} AND environment = ${owner.environment}::"Environment"
            AND until_sequence IS NULL
        ) AS todo
        JOIN equivalencies AS e ON e.id = todo.id
        JOIN courses AS sc ON sc.id = e.source_course_id
        LEFT JOIN courses AS tc ON tc.id = e.target_course_id`;
    },

    /** How many states are open: the records of the publication that just opened and closed them. */
    async countOpen(owner: DatasetOwner): Promise<number> {
      const [{ count }] = await db.$queryRaw<{ count: number }[]>`
        SELECT count(*)::int AS count FROM dataset_states
        WHERE organization_id = ${owner.organizationId} AND environment = ${owner.environment}::"Environment"
          AND until_sequence IS NULL`;
      return count;
    },

    /**
     * The issues of the open states, as the version `datasetVersionId`'s, in row order (an issue of
     * the whole dataset, row null, first; then by row: missing_target, missing_cip_code,
     * stale_pending). Returns how many were stored.
     */
    insertIssues(
      owner: DatasetOwner,
      datasetVersionId: string,
      counts: { declared: number | null; snapshot: number },
      rules: IssueRules,
    ): Promise<number> {
      return db.$executeRaw`
        INSERT INTO dataset_issues (dataset_version_id, "row", record_id, field, code, severity, message)
        SELECT ${datasetVersionId}, i.row, i.record_id, i.field, i.code, i.severity, i.message
        FROM (
          SELECT NULL::int AS row, 0 AS kind, NULL::text AS record_id, 'recordCount' AS field,
            'record_count_mismatch' AS code, 'warning' AS severity,
            ${counts.declared}::int || ' records were declared but the snapshot holds ' || ${counts.snapshot}::int || '.' AS message
          WHERE ${counts.declared}::int IS NOT NULL AND ${counts.declared}::int <> ${counts.snapshot}::int
          UNION ALL
          SELECT r.row, k.kind, r.equivalency_id, k.field, k.code, k.severity, k.message
          FROM (
            SELECT s.equivalency_id, s.created_at, s.missing_target, s.source_code_without_cip, s.pending,
              row_number() OVER (ORDER BY s.created_at, s.equivalency_id)::int AS row
            FROM dataset_states AS s
            WHERE s.organization_id = ${owner.organizationId} AND s.environment = ${owner.environment}::"Environment"
              AND s.until_sequence IS NULL
          ) AS r
          CROSS JOIN LATERAL (
            SELECT 1, 'targetCode', 'missing_target', 'error',
              'The equivalency names neither a target course nor a target code.'
            WHERE r.missing_target
            UNION ALL
            SELECT 2, 'sourceCourse.cipCode', 'missing_cip_code', 'warning',
              'The source course ' || r.source_code_without_cip || ' has no CIP 2020 code.'
            WHERE r.source_code_without_cip IS NOT NULL
            UNION ALL
            SELECT 3, 'status', 'stale_pending', 'warning',
              'The equivalency has been pending since ' || "iso_timestamp"(r.created_at) || ', more than '
                || ${rules.stalePendingDays}::int || ' days.'
            WHERE r.pending AND r.created_at < (${rules.staleBefore.toISOString()}::timestamptz AT TIME ZONE 'UTC')
          ) AS k(kind, field, code, severity, message)
        ) AS i
        ORDER BY i.row NULLS FIRST, i.kind`;
    },

    /**
     * Marks in the latest publication (`sequence`) the equivalencies it includes for the first
     * time, and out of it those that left the owner since the previous one (their datasetVersionId
     * then the previous, the last that included them); nothing else of the equivalency changes (no
     * version, no updatedAt). One in the latest shows its organization's latest publication as its
     * datasetVersionId (migration "dataset_version_at_read"), so the equivalencies a publication
     * includes again cost no write: only the states opened or closed at `sequence` are looked at.
     * Answers how many equivalencies were written.
     */
    async markPublished(owner: DatasetOwner, datasetVersionId: string, sequence: number): Promise<number> {
      const joined = await db.$executeRaw`
        UPDATE equivalencies AS e SET dataset_version_id = ${datasetVersionId}, in_latest_dataset = true
        FROM dataset_states AS s
        WHERE s.organization_id = ${owner.organizationId} AND s.environment = ${owner.environment}::"Environment"
          AND s.until_sequence IS NULL AND s.first_sequence = ${sequence}::int AND e.id = s.equivalency_id
          AND NOT e.in_latest_dataset`;
      const left = await db.$executeRaw`
        UPDATE equivalencies AS e SET in_latest_dataset = false, dataset_version_id = (
          SELECT v.id FROM dataset_versions AS v
          WHERE v.organization_id = ${owner.organizationId} AND v.environment = ${owner.environment}::"Environment"
            AND v.sequence = ${sequence - 1}::int)
        FROM dataset_states AS s
        WHERE s.organization_id = ${owner.organizationId} AND s.environment = ${owner.environment}::"Environment"
          AND s.until_sequence = ${sequence}::int AND e.id = s.equivalency_id AND e.in_latest_dataset
          AND (e.organization_id IS DISTINCT FROM s.organization_id OR e.environment <> s.environment)`;
      return joined + left;
    },

    /**
     * A version's records in row order, each state as published, with the version's id as its
     * datasetVersionId.
     */
    records(version: {
      id: string;
      organizationId: string;
      environment: DatasetOwner["environment"];
      sequence: number;
    }): Promise<{ row: number; equivalencyId: string; state: Prisma.JsonObject }[]> {
      return db.$queryRaw`
        SELECT row_number() OVER (ORDER BY s.created_at, s.equivalency_id)::int AS row,
          s.equivalency_id AS "equivalencyId",
          s.content || jsonb_build_object('datasetVersionId', ${version.id}::text) AS state
        FROM dataset_states AS s
        WHERE s.organization_id = ${version.organizationId} AND s.environment = ${version.environment}::"Environment"
          AND s.first_sequence <= ${version.sequence}::int
          AND (s.until_sequence IS NULL OR s.until_sequence > ${version.sequence}::int)
        ORDER BY s.created_at, s.equivalency_id`;
    },
  };
}

export type DatasetStatesRepository = ReturnType<typeof createDatasetStatesRepository>;
