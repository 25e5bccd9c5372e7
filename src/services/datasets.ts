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

const DAY_MS = 86_400_000;

/**
 * A publication's work grows with the organization's changed equivalencies (a first publication
 * renders every state): 100,000 took tens of seconds on a busy embedded database, past the
 * default 15 s. Ten minutes bounds a runaway, not a large catalog.
 */
const PUBLICATION_TRANSACTION = { timeout: 600_000 };

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
        // Decided from versions, in the database: the states of changed or removed equivalencies
        // are closed, those of changed or new ones stored; an unchanged one costs no row.
        await inTransaction.closeChanged(owner, sequence);
        await inTransaction.openNew(owner, sequence);
        const snapshotRecordCount = await inTransaction.countOpen(owner);
        await inTransaction.insertVersion({
          id,
          ...owner,
          sequence,
          label: input.label,
          recordCount: input.recordCount ?? null,
          snapshotRecordCount,
          metadata: (input.metadata ?? undefined) as Prisma.InputJsonValue | undefined,
          issueCount: 0,
          createdAt: now,
        });
        const issueCount = await inTransaction.insertIssues(
          owner,
          id,
          { declared: input.recordCount ?? null, snapshot: snapshotRecordCount },
          { staleBefore: new Date(now.getTime() - stalePendingDays * DAY_MS), stalePendingDays },
        );
        if (issueCount > 0) await inTransaction.setIssueCount(id, issueCount);
        // Reporting the latest dataset is not a change of the equivalency: no
        // version, no event, `version` and `updatedAt` stay as they are.
        await inTransaction.markPublished(owner, id, sequence);
        await outbox.recordEvents(caller.environment, [
          {
            type: "dataset.published",
            data: {
              datasetVersionId: id,
              label: input.label,
              sequence,
              snapshotRecordCount,
              // Deprecated: the same number under the name the dataset resource gives the declared count.
              recordCount: snapshotRecordCount,
              issueCount,
            },
          },
        ]);
        const published = { organizationId: caller.organizationId, environment: caller.environment };
        await auditChange({ audit }, [{ ...published, type: "dataset", id }]);
      }, PUBLICATION_TRANSACTION);
      return getDataset(caller, id);
    },
  };
}

export type DatasetsService = ReturnType<typeof createDatasetsService>;
