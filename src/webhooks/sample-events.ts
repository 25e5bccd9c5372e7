// Sample payloads for test events (POST /webhooks/{id}/test): valid against
// each event's schema, with ids that cannot be mistaken for real records.
import type { components } from "../../generated/api-types.ts";

type EventType = components["schemas"]["EventType"];

const SAMPLES: Record<EventType, Record<string, unknown>> = {
  "equivalency.created": {
    equivalencyId: "eq_test_00000000000000000000",
    status: "pending",
    sourceCourse: { institution: "De Anza College", code: "MATH 1A" },
    target: { institution: "University of California-Berkeley", code: "MATH 1A" },
  },
  "equivalency.updated": {
    equivalencyId: "eq_test_00000000000000000000",
    version: 2,
    previousStatus: "pending",
    status: "accepted",
    changedFields: ["status", "decidedBy", "decidedAt"],
  },
  "course.updated": {
    courseId: "crs_test_00000000000000000000",
    version: 2,
    changedFields: ["title"],
  },
  "dataset.published": {
    datasetVersionId: "ds_test_00000000000000000000",
    label: "Sample dataset version",
    sequence: 1,
    snapshotRecordCount: 0,
    recordCount: 0,
    issueCount: 0,
  },
};

export function sampleData(type: EventType): Record<string, unknown> {
  return structuredClone(SAMPLES[type]);
}
