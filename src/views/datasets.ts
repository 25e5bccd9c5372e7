// The API's representation of published dataset versions and their issues.
import type { DatasetIssue, DatasetVersion } from "../../generated/prisma/client.ts";
import type { components } from "../../generated/api-types.ts";

// Free-form JSON, as the contract types it.
type Metadata = components["schemas"]["DatasetVersion"]["metadata"];

export function datasetView(record: DatasetVersion) {
  return {
    id: record.id,
    label: record.label,
    sequence: record.sequence,
    recordCount: record.recordCount,
    snapshotRecordCount: record.snapshotRecordCount,
    metadata: (record.metadata ?? null) as Metadata,
    environment: record.environment,
    issueCount: record.issueCount,
    createdAt: record.createdAt.toISOString(),
  };
}

export function datasetIssueView(record: DatasetIssue) {
  return {
    row: record.row,
    recordId: record.recordId,
    field: record.field,
    code: record.code,
    severity: record.severity as "error" | "warning",
    message: record.message,
  };
}

export function datasetDetailView(record: DatasetVersion & { issues: DatasetIssue[] }) {
  return { ...datasetView(record), issues: record.issues.map(datasetIssueView) };
}
