// An equivalency's datasetVersionId is derived at read (migration "dataset_version_at_read"): the
// latest publication of its organization in its environment while that includes it
// (equivalencies.in_latest_dataset), else the stored dataset_version_id (the last publication that
// included it, or null). Every publication includes every equivalency its organization has, so a
// publication writes only the equivalencies it includes for the first time.
import type { Environment, Prisma } from "../../generated/prisma/client.ts";

/**
 * The latest publications of the row `e`'s organization as `head`, joined when that includes it:
 * read once a statement and joined by hash, not looked up per row. DATASET_VERSION_ID is then
 * the row's datasetVersionId.
 */
export const DATASET_HEAD_JOIN = `LEFT JOIN (
    SELECT DISTINCT ON (v.environment, v.organization_id) v.environment, v.organization_id, v.id
    FROM dataset_versions AS v ORDER BY v.environment, v.organization_id, v.sequence DESC
  ) AS head ON e.in_latest_dataset AND head.environment = e.environment
    AND head.organization_id = e.organization_id`;

/** The datasetVersionId of the row `e` (with DATASET_HEAD_JOIN). */
export const DATASET_VERSION_ID = "coalesce(head.id, e.dataset_version_id)";

type Published = {
  datasetVersionId: string | null;
  inLatestDataset: boolean;
  organizationId: string | null;
  environment: Environment;
};

/**
 * The records with the datasetVersionId the API shows: for one in its organization's latest
 * publication, that publication's id; one statement for any number.
 */
export async function withDatasetVersionIds<Row extends Published>(
  db: Prisma.TransactionClient,
  rows: Row[],
): Promise<Row[]> {
  const published = rows.filter((row) => row.inLatestDataset);
  if (!published.length) return rows;
  const owners = [...new Set(published.map((row) => `${row.environment} ${row.organizationId}`))];
  const heads = await db.$queryRawUnsafe<{ owner: string; id: string }[]>(
    `SELECT DISTINCT ON (v.environment, v.organization_id) v.environment || ' ' || v.organization_id AS owner, v.id
     FROM dataset_versions AS v WHERE v.environment::text || ' ' || v.organization_id = ANY($1::text[])
     ORDER BY v.environment, v.organization_id, v.sequence DESC`,
    owners,
  );
  const latest = new Map(heads.map((head) => [head.owner, head.id]));
  return rows.map((row) =>
    row.inLatestDataset
      ? { ...row, datasetVersionId: latest.get(`${row.environment} ${row.organizationId}`) ?? row.datasetVersionId }
      : row,
  );
}
