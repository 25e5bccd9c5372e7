// Datasets: published versions, their snapshot records (dataset-states.ts) and issues. Built over
// the client or over a transaction, so publication's statements run in one.
import type { DatasetIssue, DatasetVersion, Prisma } from "../../generated/prisma/client.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { createDatasetStatesRepository } from "./dataset-states.ts";
import { pageOf, type Page, type PageResult } from "./paging.ts";

/** Whose datasets: one organization's, in one environment. */
export interface DatasetOwner {
  organizationId: string;
  environment: Environment;
}

export type NewDatasetVersion = Omit<DatasetVersion, "metadata"> & { metadata: Prisma.InputJsonValue | undefined };

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

    ...createDatasetStatesRepository(db),

    /** A version's records in row order, each with its state as published (none for an unknown version). */
    async snapshotRecords(
      datasetVersionId: string,
    ): Promise<{ row: number; equivalencyId: string; state: Prisma.JsonObject }[]> {
      const version = await db.datasetVersion.findUnique({ where: { id: datasetVersionId } });
      return version ? createDatasetStatesRepository(db).records(version) : [];
    },

    /** The version's row; its states and issues are stored by the other calls of the publication. */
    async insertVersion(version: NewDatasetVersion): Promise<void> {
      await db.datasetVersion.create({ data: version });
    },

    async setIssueCount(datasetVersionId: string, issueCount: number): Promise<void> {
      await db.datasetVersion.update({ where: { id: datasetVersionId }, data: { issueCount } });
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
