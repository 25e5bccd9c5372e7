// Datasets: an organization publishes immutable, numbered snapshots of its
// equivalencies (with the courses they reference) and the row-level issues
// found in them.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Credential } from "../auth/credential.ts";
import { MAX_INT4, type Db, type Page, type PageResult } from "./types.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { newId } from "../ids.ts";
import { createOutboxRepository } from "../repositories/outbox.ts";
import { courseView, equivalencyView } from "./views.ts";
import { datasetDetailView, datasetView } from "./dataset-views.ts";
import { findIssues, type SnapshotRow } from "./dataset-issues.ts";

export interface DatasetPublish {
  label: string;
  recordCount?: number;
  metadata?: Record<string, unknown>;
}

export interface PublishOptions {
  stalePendingDays: number;
  /** Injected so tests can decide what "stale" means without waiting. */
  clock?: () => Date;
}

export type DatasetView = ReturnType<typeof datasetView>;
export type DatasetDetailView = ReturnType<typeof datasetDetailView>;

/** record_count is a 32-bit column; the limit is documented, not a schema maximum (see openapi.yaml). */
export const MAX_RECORD_COUNT = MAX_INT4;

// Keeps every statement well under PostgreSQL's limit of bind parameters.
const CHUNK = 1000;

function chunks<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) result.push(items.slice(i, i + CHUNK));
  return result;
}

function ownedBy(credential: Credential) {
  return { organizationId: credential.organizationId, environment: credential.environment };
}

export async function publishDataset(db: Db, credential: Credential, input: DatasetPublish, options: PublishOptions): Promise<DatasetDetailView> {
  if (input.recordCount !== undefined && input.recordCount > MAX_RECORD_COUNT) {
    throw ValidationError.single("/recordCount", `must be at most ${MAX_RECORD_COUNT}`);
  }
  const now = (options.clock ?? (() => new Date()))();
  const id = newId("ds");
  await db.$transaction(async (tx) => {
    const sequence = await nextSequence(tx, credential);
    const rows = await lockSnapshot(tx, credential);
    const issues = findIssues(rows, input.recordCount ?? null, { stalePendingDays: options.stalePendingDays, now });
    await tx.datasetVersion.create({
      data: {
        id,
        ...ownedBy(credential),
        sequence,
        label: input.label,
        recordCount: input.recordCount ?? null,
        snapshotRecordCount: rows.length,
        metadata: (input.metadata ?? undefined) as Prisma.InputJsonValue | undefined,
        issueCount: issues.length,
        createdAt: now,
      },
    });
    for (const part of chunks(rows.map((record, index) => ({ record, row: index + 1 })))) {
      await tx.datasetRecord.createMany({
        data: part.map(({ record, row }) => ({ datasetVersionId: id, row, equivalencyId: record.id, state: snapshotState(record, id) })),
      });
    }
    for (const part of chunks(issues)) await tx.datasetIssue.createMany({ data: part.map((issue) => ({ datasetVersionId: id, ...issue })) });
    // Reporting the latest dataset is not a change of the equivalency: no
    // version, no event, `version` and `updatedAt` stay as they are.
    for (const part of chunks(rows.map((record) => record.id))) {
      await tx.equivalency.updateMany({ where: { id: { in: part } }, data: { datasetVersionId: id } });
    }
    await createOutboxRepository(tx).recordEvents(credential.environment, [
      { type: "dataset.published", data: { datasetVersionId: id, label: input.label, sequence, recordCount: rows.length, issueCount: issues.length } },
    ]);
  });
  return getDataset(db, credential, id);
}

/**
 * The organization's row lock queues concurrent publishers, so each reads the
 * sequence the previous one committed (PGlite serialises transactions anyway).
 */
async function nextSequence(tx: Prisma.TransactionClient, credential: Credential): Promise<number> {
  await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${credential.organizationId} FOR UPDATE`;
  const latest = await tx.datasetVersion.aggregate({ where: ownedBy(credential), _max: { sequence: true } });
  return (latest._max.sequence ?? 0) + 1;
}

/**
 * Locks the organization's equivalencies (as updateEquivalency does one at a
 * time) so none changes between the snapshot and the datasetVersionId update.
 */
async function lockSnapshot(tx: Prisma.TransactionClient, credential: Credential): Promise<SnapshotRow[]> {
  await tx.$queryRaw`SELECT id FROM equivalencies
    WHERE organization_id = ${credential.organizationId} AND environment = ${credential.environment}::"Environment"
    FOR UPDATE`;
  return tx.equivalency.findMany({
    where: ownedBy(credential),
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: { sourceCourse: true, targetCourse: true },
  });
}

/** The equivalency as it reads once published, with the courses it references. */
function snapshotState(record: SnapshotRow, datasetVersionId: string): Prisma.InputJsonValue {
  return {
    ...equivalencyView({ ...record, datasetVersionId }),
    sourceCourse: courseView(record.sourceCourse),
    targetCourse: record.targetCourse ? courseView(record.targetCourse) : null,
  };
}

/** Newest first (by sequence, descending). */
export async function listDatasets(db: Db, credential: Credential, page: Page): Promise<PageResult<DatasetView>> {
  const where = ownedBy(credential);
  const [records, total] = await Promise.all([
    db.datasetVersion.findMany({ where, orderBy: { sequence: "desc" }, take: page.limit, skip: page.offset }),
    db.datasetVersion.count({ where }),
  ]);
  return { items: records.map(datasetView), total };
}

/** Another organization's or environment's dataset is not found, never forbidden. */
export async function getDataset(db: Db, credential: Credential, id: string): Promise<DatasetDetailView> {
  const record = await db.datasetVersion.findFirst({
    where: { id, ...ownedBy(credential) },
    include: { issues: { orderBy: { id: "asc" } } },
  });
  if (!record) throw new NotFoundError(`No dataset version with id "${id}" in the ${credential.environment} environment.`);
  return datasetDetailView(record);
}
