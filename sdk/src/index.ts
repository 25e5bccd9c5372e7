// The public surface of @course-equivalency/client.
export { createClient, type ClientOptions, type CourseEquivalencyClient } from "./client.js";
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  NotFoundError,
  NotStewardError,
  PermissionError,
  PreconditionFailedError,
  RateLimitError,
  ValidationError,
  type Problem,
  type ProblemCode,
  type ProblemFieldError,
} from "./errors.js";
export { ListRequest, type Page, type PageQuery, type Pagination } from "./paging.js";
export type { FeedEvent, FollowedPage, FollowOptions, StreamedEvent, StreamOptions } from "./feed.js";
export type { IdempotencyOptions, Resources, UpdateOptions } from "./resources.js";
export type { OAuthCredentials } from "./auth.js";
export type { Clock, FetchFunction } from "./transport.js";
export {
  verifyWebhook,
  WebhookVerificationError,
  type Event,
  type EventType,
  type VerifyWebhookOptions,
  type WebhookVerificationFailure,
} from "./webhooks.js";
export type { components, operations, paths, webhooks } from "./api-types.js";

import type { components } from "./api-types.js";
export type Institution = components["schemas"]["Institution"];
export type Course = components["schemas"]["Course"];
export type Equivalency = components["schemas"]["Equivalency"];
export type EquivalencyExpanded = components["schemas"]["EquivalencyExpanded"];
export type EquivalencyVersion = components["schemas"]["EquivalencyVersion"];
export type ApiKey = components["schemas"]["ApiKey"];
export type WebhookEndpoint = components["schemas"]["WebhookEndpoint"];
export type WebhookDelivery = components["schemas"]["WebhookDelivery"];
export type DatasetVersion = components["schemas"]["DatasetVersion"];
