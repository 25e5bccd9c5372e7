// Row-level validation of a dataset snapshot. Issues never block publication:
// they are stored with the version for the publisher (and consumers) to see.
import type { Issue, SnapshotRow } from "../repositories/datasets.ts";
export type { Issue, SnapshotRow };

export interface IssueRules {
  /** A pending equivalency created longer ago than this is stale. */
  stalePendingDays: number;
  now: Date;
}

const DAY_MS = 86_400_000;

/** Issues in row order; an issue of the dataset as a whole (row null) comes first. */
export function findIssues(rows: SnapshotRow[], declaredCount: number | null, rules: IssueRules): Issue[] {
  const issues: Issue[] = [];
  if (declaredCount !== null && declaredCount !== rows.length) {
    issues.push({
      row: null,
      recordId: null,
      field: "recordCount",
      code: "record_count_mismatch",
      severity: "warning",
      message: `${declaredCount} records were declared but the snapshot holds ${rows.length}.`,
    });
  }
  const staleBefore = rules.now.getTime() - rules.stalePendingDays * DAY_MS;
  rows.forEach((record, index) => issues.push(...rowIssues(record, index + 1, staleBefore, rules.stalePendingDays)));
  return issues;
}

function rowIssues(record: SnapshotRow, row: number, staleBefore: number, stalePendingDays: number): Issue[] {
  const at = { row, recordId: record.id };
  const issues: Issue[] = [];
  if (!record.targetCourseId && !record.targetCode) {
    issues.push({
      ...at,
      field: "targetCode",
      code: "missing_target",
      severity: "error",
      message: "The equivalency names neither a target course nor a target code.",
    });
  }
  if (!record.sourceCourse.cipCode) {
    issues.push({
      ...at,
      field: "sourceCourse.cipCode",
      code: "missing_cip_code",
      severity: "warning",
      message: `The source course ${record.sourceCourse.code} has no CIP 2020 code.`,
    });
  }
  if (record.status === "pending" && record.createdAt.getTime() < staleBefore) {
    issues.push({
      ...at,
      field: "status",
      code: "stale_pending",
      severity: "warning",
      message: `The equivalency has been pending since ${record.createdAt.toISOString()}, more than ${stalePendingDays} days.`,
    });
  }
  return issues;
}
