// Datasets: an organization publishes immutable, numbered snapshots of its
// equivalencies (with the courses they reference) and the row-level issues
// found in them.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories } from "../repositories/index.ts";
import type { DatasetOwner } from "../repositories/datasets.ts";
import { MAX_INT4, type Page, type PageResult } from "./types.ts";
import { notFound, ValidationError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { datasetDetailView, datasetIssueView, datasetView } from "../views/datasets.ts";
import { auditChange } from "./audit.ts";
import { findIssues } from "./dataset-issues.ts";

export interface DatasetPublish {
  label: string;
  recordCount?: number;
  metadata?: Record<string, unknown>;
}

export type DatasetView = ReturnType<typeof datasetView>;
export type DatasetDetailView = ReturnType<typeof datasetDetailView>;

/** How many issues `GET /datasets/{id}` embeds; `GET /datasets/{id}/issues` pages through all of them. */
export const EMBEDDED_ISSUES = 100;

/** record_count is a 32-bit column; the limit is documented, not a schema maximum (see openapi.yaml). */
export const MAX_RECORD_COUNT = MAX_INT4;

function ownedBy(caller: Credential): DatasetOwner {
  return { organizationId: caller.organizationId, environment: caller.environment };
}

export function createDatasetsService(
  deps: Pick<Repositories, "datasets" | "transaction"> & {
    /** A pending equivalency created longer ago than this is reported as stale. */
    stalePendingDays: number;
    /** Injected so tests can decide what "stale" means without waiting. */
    clock?: () => Date;
  },
) {
  const { datasets, transaction, stalePendingDays, clock = () => new Date() } = deps;

  /** Another organization's or environment's dataset is not found, never forbidden. */
  async function getDataset(caller: Credential, id: string): Promise<DatasetDetailView> {
    const record = await datasets.findWithIssues(ownedBy(caller), id, EMBEDDED_ISSUES);
    if (!record) throw notFound.dataset(id, caller.environment);
    return datasetDetailView(record);
  }

  return {
    getDataset,

    /** One version's issues, in row order. */
    async listDatasetIssues(
      caller: Credential,
      id: string,
      page: Page,
    ): Promise<PageResult<ReturnType<typeof datasetIssueView>>> {
      const version = await datasets.findVersion(ownedBy(caller), id);
      if (!version) throw notFound.dataset(id, caller.environment);
      const { items, total, next } = await datasets.listIssuesPage(version.id, page);
      return { items: items.map(datasetIssueView), total, next };
    },

    /** Newest first (by sequence, descending). */
    async listDatasets(caller: Credential, page: Page): Promise<PageResult<DatasetView>> {
      const { items, total, next } = await datasets.listPage(ownedBy(caller), page);
      return { items: items.map(datasetView), total, next };
    },

    async publishDataset(caller: Credential, input: DatasetPublish): Promise<DatasetDetailView> {
      if (input.recordCount !== undefined && input.recordCount > MAX_RECORD_COUNT) {
        throw ValidationError.single("/recordCount", `must be at most ${MAX_RECORD_COUNT}`);
      }
      const now = clock();
      const id = newId("ds");
      const owner = ownedBy(caller);
      await transaction(async ({ datasets: inTransaction, outbox, audit }) => {
        const sequence = await inTransaction.nextSequence(owner);
        const rows = await inTransaction.lockSnapshot(owner);
        const issues = findIssues(rows, input.recordCount ?? null, { stalePendingDays, now });
        await inTransaction.insertVersion(
          {
            id,
            ...owner,
            sequence,
            label: input.label,
            recordCount: input.recordCount ?? null,
            snapshotRecordCount: rows.length,
            metadata: (input.metadata ?? undefined) as Prisma.InputJsonValue | undefined,
            issueCount: issues.length,
            createdAt: now,
          },
          // Stored as the database renders them, only where they changed since the previous publication.
          rows.map((record) => record.id),
          issues,
        );
        // Reporting the latest dataset is not a change of the equivalency: no
        // version, no event, `version` and `updatedAt` stay as they are.
        await inTransaction.markPublished(
          rows.map((record) => record.id),
          id,
        );
        await outbox.recordEvents(caller.environment, [
          {
            type: "dataset.published",
            data: {
              datasetVersionId: id,
              label: input.label,
              sequence,
              snapshotRecordCount: rows.length,
              // Deprecated: the same number under the name the dataset resource gives the declared count.
              recordCount: rows.length,
              issueCount: issues.length,
            },
          },
        ]);
        const published = { organizationId: caller.organizationId, environment: caller.environment };
        await auditChange({ audit }, [{ ...published, type: "dataset", id }]);
      });
      return getDataset(caller, id);
    },
  };
}

export type DatasetsService = ReturnType<typeof createDatasetsService>;
