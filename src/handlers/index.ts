// The handler registry: one entry per operationId of the contract. Its type
// makes an operation without a handler a compile error. Beside it, the operations
// whose requests need more than schema validation name their checks.
import type { HandlerRegistry, RequestChecks } from "./types.ts";
import { getInstitution, listInstitutions } from "./institutions.ts";
import { getCourse, listCourses, upsertCourses, upsertCoursesCheck } from "./courses.ts";
import {
  createEquivalency,
  getEquivalency,
  getEquivalencyVersion,
  importEquivalencies,
  listEquivalencies,
  listEquivalencyOverlaps,
  listEquivalencyVersions,
  updateEquivalency,
} from "./equivalencies.ts";
import { createKey, listKeys, revokeKey } from "./keys.ts";
import { getCurrentOrganization } from "./organizations.ts";
import { exportData } from "./exports.ts";
import { getDataset, listDatasetIssues, listDatasets, publishDataset } from "./datasets.ts";
import { getEvent, listEvents, streamEvents } from "./events.ts";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from "./webhooks.ts";
import {
  getWebhookDelivery,
  listWebhookDeliveries,
  redeliverWebhookDelivery,
  testWebhook,
  redeliverFailedWebhookDeliveries,
} from "./webhook-deliveries.ts";
import { inviteMember, issueMemberSignInLink, listMembers, updateMember } from "./members.ts";
import { listAuditEvents } from "./audit-events.ts";
import { listSsoConnections } from "./sso-connections.ts";
import { createOAuthClient, listOAuthClients, revokeOAuthClient } from "./oauth-clients.ts";
import {
  createExplorerTransferEvaluation,
  getExplorerAgreement,
  listExplorerCourses,
  listExplorerEnvironments,
  searchExplorerInstitutions,
} from "./explorer.ts";
import { createTransferEvaluation, listEquivalencyRequests } from "./transfer-evaluations.ts";

export const handlers: HandlerRegistry = {
  listEvents,
  getEvent,
  streamEvents,
  listInstitutions,
  getInstitution,
  listCourses,
  upsertCourses,
  getCourse,
  listEquivalencies,
  createEquivalency,
  importEquivalencies,
  listEquivalencyOverlaps,
  getEquivalency,
  updateEquivalency,
  listEquivalencyVersions,
  getEquivalencyVersion,
  createTransferEvaluation,
  listEquivalencyRequests,
  listDatasets,
  publishDataset,
  getDataset,
  listDatasetIssues,
  listWebhooks,
  createWebhook,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  getWebhookDelivery,
  redeliverWebhookDelivery,
  testWebhook,
  exportData,
  listKeys,
  createKey,
  revokeKey,
  getCurrentOrganization,
  redeliverFailedWebhookDeliveries,
  listMembers,
  inviteMember,
  issueMemberSignInLink,
  updateMember,
  listAuditEvents,
  listSsoConnections,
  listOAuthClients,
  createOAuthClient,
  revokeOAuthClient,
  listExplorerEnvironments,
  searchExplorerInstitutions,
  listExplorerCourses,
  getExplorerAgreement,
  createExplorerTransferEvaluation,
};

export const requestChecks: RequestChecks = {
  upsertCourses: upsertCoursesCheck,
};
