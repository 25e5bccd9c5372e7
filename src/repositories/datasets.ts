// Datasets: published versions, their snapshot records and issues. Built over
// the client or over a transaction, so publication's statements run in one.
import type { Course, DatasetIssue, DatasetVersion, Equivalency, Prisma } from "../../generated/prisma/client.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { pageOf, type Page, type PageResult } from "./paging.ts";

/** Whose datasets: one organization's, in one environment. */
export type SnapshotRow = Equivalency & { sourceCourse: Course; targetCourse: Course | null };

export interface Issue {
  row: number | null;
  recordId: string | null;
  field: string | null;
  code: "missing_target" | "missing_cip_code" | "stale_pending" | "record_count_mismatch";
  severity: "error" | "warning";
  message: string;
}

export interface DatasetOwner {
  organizationId: string;
  environment: Environment;
}

export type NewDatasetVersion = Omit<DatasetVersion, "metadata"> & { metadata: Prisma.InputJsonValue | undefined };

// Keeps every statement well under PostgreSQL's limit of bind parameters.
const CHUNK = 1000;

function chunks<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) result.push(items.slice(i, i + CHUNK));
  return result;
}

/**
 * Rows `firstRow + 1` on of a new version, one per equivalency of `ids`, each state rendered and
 * compared by the database, so an unchanged one never leaves it: the equivalency as the API shows
 * it (`equivalency_api_json`) with its source and target courses (`course_api_json`), without the
 * datasetVersionId every publication sets. A state equal to what the previous version stored is
 * not copied: the row names the version holding it. Equal means the same SHA-256 of the state's
 * jsonb text, or, where the stored hash differs or is missing (written by another rendering of
 * the same value, or before hashes were stored), the same value as the held state.
 */
async function insertRecords(
  db: Prisma.TransactionClient,
  version: { id: string; previousId: string | null },
  ids: string[],
  firstRow: number,
): Promise<void> {
  const inserted = await db.$executeRaw`
    INSERT INTO dataset_records (dataset_version_id, "row", equivalency_id, state, state_hash, state_dataset_version_id)
    SELECT ${version.id}, d.row, d.id,
      CASE WHEN d.held_by IS NULL THEN d.content || jsonb_build_object('datasetVersionId', ${version.id}::text) END,
      d.state_hash, d.held_by
    FROM (
      SELECT h.row, h.id, h.content, h.state_hash,
        CASE
          WHEN h.holder IS NULL THEN NULL
          WHEN h.previous_hash = h.state_hash THEN h.holder
          WHEN (SELECT held.state - 'datasetVersionId' FROM dataset_records AS held
                WHERE held.dataset_version_id = h.holder AND held.equivalency_id = h.id) = h.content THEN h.holder
        END AS held_by
      FROM (
        SELECT s.row, s.id, s.content, encode(sha256(convert_to(s.content::text, 'UTF8')), 'hex') AS state_hash,
          p.state_hash AS previous_hash, coalesce(p.state_dataset_version_id, p.dataset_version_id) AS holder
        FROM (
          SELECT ${firstRow}::int + n.position AS row, e.id,
            ("equivalency_api_json"(e)::jsonb - 'datasetVersionId') || jsonb_build_object(
              'sourceCourse', "course_api_json"(sc),
              'targetCourse', CASE WHEN tc.id IS NULL THEN NULL ELSE "course_api_json"(tc) END) AS content
          FROM unnest(${ids}::text[]) WITH ORDINALITY AS n(id, position)
          JOIN equivalencies AS e ON e.id = n.id
          JOIN courses AS sc ON sc.id = e.source_course_id
          LEFT JOIN courses AS tc ON tc.id = e.target_course_id
        ) AS s
        LEFT JOIN dataset_records AS p ON p.dataset_version_id = ${version.previousId} AND p.equivalency_id = s.id
      ) AS h
    ) AS d`;
  // Every id is one of the owner's locked equivalencies; a row missing would misnumber the snapshot.
  if (inserted !== ids.length) throw new Error(`${inserted} dataset records written for ${ids.length} equivalencies`);
}

export function createDatasetsRepository(db: Prisma.TransactionClient) {
  return {
    /**
     * The owner's next sequence number, after taking the organization's row lock:
     * it queues concurrent publishers, so each reads the sequence the previous one
     * committed (PGlite serialises transactions anyway).
     */
    async nextSequence(owner: DatasetOwner): Promise<number> {
      await db.$queryRaw`SELECT id FROM organizations WHERE id = ${owner.organizationId} FOR UPDATE`;
      const latest = await db.datasetVersion.aggregate({ where: owner, _max: { sequence: true } });
      return (latest._max.sequence ?? 0) + 1;
    },

    /**
     * The owner's equivalencies with the courses they reference, in list order,
     * locked (as updateEquivalency locks one at a time) so none changes between
     * the snapshot and markPublished.
     */
    async lockSnapshot(owner: DatasetOwner): Promise<SnapshotRow[]> {
      await db.$queryRaw`SELECT id FROM equivalencies
        WHERE organization_id = ${owner.organizationId} AND environment = ${owner.environment}::"Environment"
        FOR UPDATE`;
      return db.equivalency.findMany({
        where: owner,
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        include: { sourceCourse: true, targetCourse: true },
      });
    },

    /**
     * A version's records in row order, each with its state as published: an unchanged row's state
     * is read from the version that holds it, with this version's id as its datasetVersionId.
     */
    async snapshotRecords(
      datasetVersionId: string,
    ): Promise<{ row: number; equivalencyId: string; state: Prisma.JsonObject }[]> {
      const rows = await db.datasetRecord.findMany({ where: { datasetVersionId }, orderBy: { row: "asc" } });
      const held = new Map<string, Prisma.JsonObject>();
      const holders = [
        ...new Set(rows.flatMap((row) => (row.stateDatasetVersionId ? [row.stateDatasetVersionId] : []))),
      ];
      for (const holder of holders) {
        const ids = rows.filter((row) => row.stateDatasetVersionId === holder).map((row) => row.equivalencyId);
        for (const part of chunks(ids)) {
          const states = await db.datasetRecord.findMany({
            where: { datasetVersionId: holder, equivalencyId: { in: part } },
            select: { equivalencyId: true, state: true },
          });
          for (const state of states)
            held.set(`${holder}\u0000${state.equivalencyId}`, state.state as Prisma.JsonObject);
        }
      }
      return rows.map((row) => {
        const state = row.stateDatasetVersionId
          ? { ...held.get(`${row.stateDatasetVersionId}\u0000${row.equivalencyId}`)!, datasetVersionId }
          : (row.state as Prisma.JsonObject);
        return { row: row.row, equivalencyId: row.equivalencyId, state };
      });
    },

    /**
     * The version, its records (row numbers from 1, in the order of `equivalencyIds`, each stored
     * as insertRecords decides) and its issues.
     */
    async insertVersion(version: NewDatasetVersion, equivalencyIds: string[], issues: Issue[]): Promise<void> {
      await db.datasetVersion.create({ data: version });
      const previous = await db.datasetVersion.findFirst({
        where: {
          organizationId: version.organizationId,
          environment: version.environment,
          sequence: { lt: version.sequence },
        },
        orderBy: { sequence: "desc" },
        select: { id: true },
      });
      for (const [index, part] of chunks(equivalencyIds).entries())
        await insertRecords(db, { id: version.id, previousId: previous?.id ?? null }, part, index * CHUNK);
      for (const part of chunks(issues))
        await db.datasetIssue.createMany({ data: part.map((issue) => ({ datasetVersionId: version.id, ...issue })) });
    },

    /** Sets each equivalency's latest dataset version; nothing else of it changes. */
    async markPublished(equivalencyIds: string[], datasetVersionId: string): Promise<void> {
      for (const part of chunks(equivalencyIds)) {
        await db.equivalency.updateMany({ where: { id: { in: part } }, data: { datasetVersionId } });
      }
    },

    /** Newest first (by sequence, descending). */
    listPage(owner: DatasetOwner, page: Page): Promise<PageResult<DatasetVersion>> {
      return pageOf(
        page,
        [["sequence", "desc"]],
        ({ take, skip, orderBy, after }) =>
          db.datasetVersion.findMany({ where: { AND: [owner, after] }, orderBy, take, skip }),
        () => db.datasetVersion.count({ where: owner }),
      );
    },

    /** The version with its first `issueLimit` issues, in row order. */
    findWithIssues(
      owner: DatasetOwner,
      id: string,
      issueLimit: number,
    ): Promise<(DatasetVersion & { issues: DatasetIssue[] }) | null> {
      return db.datasetVersion.findFirst({
        where: { id, ...owner },
        include: { issues: { orderBy: { id: "asc" }, take: issueLimit } },
      });
    },

    findVersion(owner: DatasetOwner, id: string): Promise<DatasetVersion | null> {
      return db.datasetVersion.findFirst({ where: { id, ...owner } });
    },

    /** A page of one version's issues, in row order (the order they were stored in; index (dataset, id)). */
    listIssuesPage(datasetVersionId: string, page: Page): Promise<PageResult<DatasetIssue>> {
      const where = { datasetVersionId };
      return pageOf(
        page,
        [["id", "asc"]],
        ({ take, skip, orderBy, after }) =>
          db.datasetIssue.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.datasetIssue.count({ where }),
      );
    },
  };
}

export type DatasetsRepository = ReturnType<typeof createDatasetsRepository>;
