// Hot read paths read a record and its relations with one hand-written
// statement that answers one JSON text (row_to_json per table) instead of a
// Prisma query per relation: on the embedded database every statement, and every
// typed column it returns, costs (see scripts/bench/reads.ts). These lists name,
// per model, the column behind each field, so the JSON can be turned back into
// the records Prisma would return and handed to the usual views.
import type { Course, Equivalency, Institution, WebhookDelivery, WebhookEndpoint } from "../../generated/prisma/client.ts";

type Columns<T> = Record<keyof T, string>;

export const EQUIVALENCY_COLUMNS: Columns<Equivalency> = {
  id: "id",
  environment: "environment",
  sourceCourseId: "source_course_id",
  targetInstitutionId: "target_institution_id",
  targetCourseId: "target_course_id",
  targetCode: "target_code",
  targetKey: "target_key",
  status: "status",
  decidedBy: "decided_by",
  decidedAt: "decided_at",
  policyBasis: "policy_basis",
  version: "version",
  provenance: "provenance",
  datasetVersionId: "dataset_version_id",
  organizationId: "organization_id",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

export const COURSE_COLUMNS: Columns<Course> = {
  id: "id",
  environment: "environment",
  institutionId: "institution_id",
  code: "code",
  codeKey: "code_key",
  title: "title",
  credits: "credits",
  level: "level",
  description: "description",
  cipCode: "cip_code",
  version: "version",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

export const INSTITUTION_COLUMNS: Columns<Institution> = {
  environment: "environment",
  id: "id",
  ipedsId: "ipeds_id",
  name: "name",
  city: "city",
  state: "state",
  type: "type",
  system: "system",
  source: "source",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

export const WEBHOOK_ENDPOINT_COLUMNS: Columns<WebhookEndpoint> = {
  id: "id",
  environment: "environment",
  organizationId: "organization_id",
  url: "url",
  events: "events",
  description: "description",
  status: "status",
  disabledReason: "disabled_reason",
  disabledAt: "disabled_at",
  secret: "secret",
  secretPrefix: "secret_prefix",
  previousSecret: "previous_secret",
  previousSecretExpiresAt: "previous_secret_expires_at",
  failingSince: "failing_since",
  createdAt: "created_at",
  updatedAt: "updated_at",
  deletedAt: "deleted_at",
};

export const WEBHOOK_DELIVERY_COLUMNS: Columns<WebhookDelivery> = {
  id: "id",
  webhookId: "webhook_id",
  eventId: "event_id",
  eventType: "event_type",
  attempt: "attempt",
  status: "status",
  requestBody: "request_body",
  signature: "signature",
  responseStatus: "response_status",
  responseExcerpt: "response_excerpt",
  durationMs: "duration_ms",
  error: "error",
  createdAt: "created_at",
  attemptedAt: "attempted_at",
  nextRetryAt: "next_retry_at",
  leaseOwner: "lease_owner",
  leaseExpiresAt: "lease_expires_at",
};

/** timestamp(3) columns: row_to_json writes them without a zone, and they hold UTC. */
const TIMESTAMP_FIELDS = new Set([
  "createdAt",
  "updatedAt",
  "decidedAt",
  "disabledAt",
  "previousSecretExpiresAt",
  "failingSince",
  "deletedAt",
  "attemptedAt",
  "nextRetryAt",
  "leaseExpiresAt",
]);

/** The record in a row_to_json object, or null (an outer join or subquery found nothing). */
export function recordFromJson<T>(json: Record<string, unknown> | null, columns: Columns<T>): T | null {
  if (!json) return null;
  const record: Record<string, unknown> = {};
  for (const [field, column] of Object.entries<string>(columns)) {
    const value = json[column] ?? null;
    record[field] = TIMESTAMP_FIELDS.has(field) && typeof value === "string" ? new Date(`${value}Z`) : value;
  }
  return record as T;
}
