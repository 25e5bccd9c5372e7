// The handler registry: one entry per operationId of the contract. Its type
// makes an operation without a handler a compile error.
import type { HandlerRegistry } from "./types.ts";
import { notImplemented } from "./not-implemented.ts";
import { getInstitution, listInstitutions } from "./institutions.ts";
import { getCourse, listCourses, upsertCourses } from "./courses.ts";
import {
  createEquivalency,
  getEquivalency,
  getEquivalencyVersion,
  listEquivalencies,
  listEquivalencyVersions,
  updateEquivalency,
} from "./equivalencies.ts";
import { createKey, listKeys, revokeKey } from "./keys.ts";

export const handlers: HandlerRegistry = {
  listInstitutions,
  getInstitution,
  listCourses,
  upsertCourses,
  getCourse,
  listEquivalencies,
  createEquivalency,
  getEquivalency,
  updateEquivalency,
  listEquivalencyVersions,
  getEquivalencyVersion,
  // Datasets, webhooks and exports land with the events issue.
  listDatasets: notImplemented("listDatasets"),
  publishDataset: notImplemented("publishDataset"),
  getDataset: notImplemented("getDataset"),
  listWebhooks: notImplemented("listWebhooks"),
  createWebhook: notImplemented("createWebhook"),
  getWebhook: notImplemented("getWebhook"),
  updateWebhook: notImplemented("updateWebhook"),
  deleteWebhook: notImplemented("deleteWebhook"),
  rotateWebhookSecret: notImplemented("rotateWebhookSecret"),
  listWebhookDeliveries: notImplemented("listWebhookDeliveries"),
  getWebhookDelivery: notImplemented("getWebhookDelivery"),
  redeliverWebhookDelivery: notImplemented("redeliverWebhookDelivery"),
  testWebhook: notImplemented("testWebhook"),
  exportData: notImplemented("exportData"),
  listKeys,
  createKey,
  revokeKey,
};
