// An equivalency's datasetVersionId is derived at read (migration "dataset_version_at_read"): the
// latest publication of its organization in its environment while that includes it
// (equivalencies.in_latest_dataset), else the stored dataset_version_id (the last publication that
// included it, or null). Every publication includes every equivalency its organization has, so a
// publication writes only the equivalencies it includes for the first time.
import type { Environment, Prisma } from "../../generated/prisma/client.ts";

/**
 * The datasetVersionId of the row `e`: for one in its organization's latest publication, that
 * publication, looked up by the (organization, environment, sequence) index only then (a row never
 * published costs nothing); else the stored id. A join of the latest publications slowed the CSV
 * export of unpublished rules by 14 %.
 */
export const DATASET_VERSION_ID = `CASE WHEN e.in_latest_dataset THEN coalesce((
    SELECT v.id FROM dataset_versions AS v
    WHERE v.organization_id = e.organization_id AND v.environment = e.environment
    ORDER BY v.sequence DESC LIMIT 1), e.dataset_version_id) ELSE e.dataset_version_id END`;

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
