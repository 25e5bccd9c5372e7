// Typed helpers over the raw openapi-fetch client, one group per resource.
// Each returns the record (the `data` member of the response body) or throws
// the typed ApiError; list methods return a ListRequest (see paging.ts).
import type { Client } from "openapi-fetch";
import type { components, operations, paths } from "./api-types.js";
import { apiErrorFrom } from "./errors.js";
import { ListRequest } from "./paging.js";

type Schemas = components["schemas"];
type Query<Operation extends keyof operations> = NonNullable<operations[Operation]["parameters"]["query"]>;

export interface IdempotencyOptions {
  /** Makes the request safe to retry: the SDK retries it on 429/503, the server replays the first answer. */
  idempotencyKey?: string;
}

export interface UpdateOptions {
  /** The `ETag` of the version the change is based on; a stale one is answered 412. */
  ifMatch?: string;
}

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

async function body<T>(request: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) throw apiErrorFrom(response, error);
  return data as T;
}

async function record<T>(request: Promise<Outcome<{ data: T }>>): Promise<T> {
  return (await body(request)).data;
}

async function nothing(request: Promise<Outcome<unknown>>): Promise<void> {
  await body(request);
}

function idempotencyHeader(options: IdempotencyOptions) {
  return options.idempotencyKey === undefined ? {} : { "Idempotency-Key": options.idempotencyKey };
}

// @generated begin operations (scripts/generate.ts from openapi.yaml; run `npm run generate`)
/** Every operation of the contract: its method and path, by operationId. */
const OPERATIONS = {
  listInstitutions: { method: "GET", path: "/institutions" },
  getInstitution: { method: "GET", path: "/institutions/{id}" },
  listCourses: { method: "GET", path: "/courses" },
  upsertCourses: { method: "POST", path: "/courses" },
  getCourse: { method: "GET", path: "/courses/{id}" },
  listEquivalencies: { method: "GET", path: "/equivalencies" },
  createEquivalency: { method: "POST", path: "/equivalencies" },
  getEquivalency: { method: "GET", path: "/equivalencies/{id}" },
  updateEquivalency: { method: "PATCH", path: "/equivalencies/{id}" },
  listEquivalencyVersions: { method: "GET", path: "/equivalencies/{id}/versions" },
  getEquivalencyVersion: { method: "GET", path: "/equivalencies/{id}/versions/{version}" },
  listDatasets: { method: "GET", path: "/datasets" },
  publishDataset: { method: "POST", path: "/datasets" },
  getDataset: { method: "GET", path: "/datasets/{id}" },
  listWebhooks: { method: "GET", path: "/webhooks" },
  createWebhook: { method: "POST", path: "/webhooks" },
  getWebhook: { method: "GET", path: "/webhooks/{id}" },
  deleteWebhook: { method: "DELETE", path: "/webhooks/{id}" },
  updateWebhook: { method: "PATCH", path: "/webhooks/{id}" },
  rotateWebhookSecret: { method: "POST", path: "/webhooks/{id}/rotate-secret" },
  listWebhookDeliveries: { method: "GET", path: "/webhooks/{id}/deliveries" },
  redeliverFailedWebhookDeliveries: { method: "POST", path: "/webhooks/{id}/deliveries/redeliver-failed" },
  getWebhookDelivery: { method: "GET", path: "/webhooks/{id}/deliveries/{deliveryId}" },
  redeliverWebhookDelivery: { method: "POST", path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver" },
  testWebhook: { method: "POST", path: "/webhooks/{id}/test" },
  exportData: { method: "GET", path: "/exports" },
  listKeys: { method: "GET", path: "/keys" },
  createKey: { method: "POST", path: "/keys" },
  revokeKey: { method: "DELETE", path: "/keys/{id}" },
  getCurrentOrganization: { method: "GET", path: "/organizations/me" },
  listMembers: { method: "GET", path: "/members" },
  inviteMember: { method: "POST", path: "/members" },
  updateMember: { method: "PATCH", path: "/members/{id}" },
  listAuditEvents: { method: "GET", path: "/audit-events" },
  listSsoConnections: { method: "GET", path: "/sso-connections" },
  listOAuthClients: { method: "GET", path: "/oauth-clients" },
  createOAuthClient: { method: "POST", path: "/oauth-clients" },
  revokeOAuthClient: { method: "DELETE", path: "/oauth-clients/{id}" },
} as const;
// @generated end

export function resources(raw: Client<paths>) {
  const path = (id: string) => ({ path: { id } });

  return {
    institutions: {
      list: (query: Query<"listInstitutions"> = {}): ListRequest<Schemas["Institution"], Query<"listInstitutions">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listInstitutions.path, { params: { query: q } })), query),
      get: (id: string): Promise<Schemas["Institution"]> =>
        record(raw.GET(OPERATIONS.getInstitution.path, { params: path(id) })),
    },

    courses: {
      list: (query: Query<"listCourses"> = {}): ListRequest<Schemas["Course"], Query<"listCourses">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listCourses.path, { params: { query: q } })), query),
      get: (id: string): Promise<Schemas["Course"]> => record(raw.GET(OPERATIONS.getCourse.path, { params: path(id) })),
      /** Creates or replaces one course or a batch (at most 500); one result per item, in order. */
      upsert: (
        courses: Schemas["CourseUpsertRequest"],
        options: IdempotencyOptions & { dryRun?: boolean } = {},
      ): Promise<Schemas["CourseUpsertResponse"]> =>
        body(
          raw.POST(OPERATIONS.upsertCourses.path, {
            params: { query: options.dryRun ? { dryRun: true } : {}, header: idempotencyHeader(options) },
            body: courses,
          }),
        ),
    },

    equivalencies: {
      list: (query: Query<"listEquivalencies"> = {}): ListRequest<Schemas["Equivalency"], Query<"listEquivalencies">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listEquivalencies.path, { params: { query: q } })), query),
      get: (id: string): Promise<Schemas["EquivalencyExpanded"]> =>
        record(raw.GET(OPERATIONS.getEquivalency.path, { params: path(id) })),
      create: async (
        equivalency: Schemas["EquivalencyCreate"],
        options: IdempotencyOptions = {},
      ): Promise<Schemas["EquivalencyExpanded"]> => {
        const created = await body(
          raw.POST(OPERATIONS.createEquivalency.path, {
            params: { header: idempotencyHeader(options) },
            body: equivalency,
          }),
        );
        return created.data as Schemas["EquivalencyExpanded"];
      },
      update: (
        id: string,
        changes: Schemas["EquivalencyUpdate"],
        options: UpdateOptions = {},
      ): Promise<Schemas["EquivalencyExpanded"]> =>
        record(
          raw.PATCH(OPERATIONS.updateEquivalency.path, {
            params: { ...path(id), header: options.ifMatch === undefined ? {} : { "If-Match": options.ifMatch } },
            body: changes,
          }),
        ),
      /** The current record and every version, newest first. */
      versions: (id: string): Promise<Schemas["EquivalencyVersionHistory"]> =>
        record(raw.GET(OPERATIONS.listEquivalencyVersions.path, { params: path(id) })),
      version: (id: string, version: number): Promise<Schemas["EquivalencyVersion"]> =>
        record(raw.GET(OPERATIONS.getEquivalencyVersion.path, { params: { path: { id, version } } })),
    },

    keys: {
      list: (query: Query<"listKeys"> = {}): ListRequest<Schemas["ApiKey"], Query<"listKeys">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listKeys.path, { params: { query: q } })), query),
      /** The full key is in the answer's `key`, and never shown again. */
      create: (key: Schemas["ApiKeyCreate"] = {}): Promise<Schemas["ApiKeyCreated"]> =>
        record(raw.POST(OPERATIONS.createKey.path, { body: key })),
      revoke: (id: string): Promise<void> => nothing(raw.DELETE(OPERATIONS.revokeKey.path, { params: path(id) })),
    },

    organizations: {
      /** The caller's organization, environment and scopes, with a page of its stewarded institution ids (`pagination`). */
      me: (query: Query<"getCurrentOrganization"> = {}): Promise<Schemas["CurrentOrganizationResponse"]> =>
        body(raw.GET(OPERATIONS.getCurrentOrganization.path, { params: { query } })),
    },

    webhooks: {
      list: (query: Query<"listWebhooks"> = {}): ListRequest<Schemas["WebhookEndpoint"], Query<"listWebhooks">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listWebhooks.path, { params: { query: q } })), query),
      /** The answer carries the signing secret, shown only here and on rotation. */
      create: (endpoint: Schemas["WebhookCreate"]): Promise<Schemas["WebhookEndpointWithSecret"]> =>
        record(raw.POST(OPERATIONS.createWebhook.path, { body: endpoint })),
      get: (id: string): Promise<Schemas["WebhookEndpoint"]> =>
        record(raw.GET(OPERATIONS.getWebhook.path, { params: path(id) })),
      update: (id: string, changes: Schemas["WebhookUpdate"]): Promise<Schemas["WebhookEndpoint"]> =>
        record(raw.PATCH(OPERATIONS.updateWebhook.path, { params: path(id), body: changes })),
      delete: (id: string): Promise<void> => nothing(raw.DELETE(OPERATIONS.deleteWebhook.path, { params: path(id) })),
      rotateSecret: (id: string): Promise<Schemas["WebhookEndpointWithSecret"]> =>
        record(raw.POST(OPERATIONS.rotateWebhookSecret.path, { params: path(id) })),
      deliveries: (
        id: string,
        query: Query<"listWebhookDeliveries"> = {},
      ): ListRequest<Schemas["WebhookDelivery"], Query<"listWebhookDeliveries">> =>
        new ListRequest(
          (q) => body(raw.GET(OPERATIONS.listWebhookDeliveries.path, { params: { ...path(id), query: q } })),
          query,
        ),
      delivery: (id: string, deliveryId: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.GET(OPERATIONS.getWebhookDelivery.path, { params: { path: { id, deliveryId } } })),
      redeliver: (id: string, deliveryId: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.POST(OPERATIONS.redeliverWebhookDelivery.path, { params: { path: { id, deliveryId } } })),
      /** Sends a test event to the endpoint now and returns the delivery attempt. */
      test: (id: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.POST(OPERATIONS.testWebhook.path, { params: path(id) })),
      /** Re-sends every delivery that failed for good since `since`; answers how many were queued. */
      redeliverFailed: (id: string, since: string): Promise<{ count: number }> =>
        body(raw.POST(OPERATIONS.redeliverFailedWebhookDeliveries.path, { params: path(id), body: { since } })),
    },

    oauthClients: {
      list: (query: Query<"listOAuthClients"> = {}): ListRequest<Schemas["OAuthClient"], Query<"listOAuthClients">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listOAuthClients.path, { params: { query: q } })), query),
      /** The secret is in the answer's `clientSecret`, and never shown again. */
      create: (client: Schemas["OAuthClientCreate"] = {}): Promise<Schemas["OAuthClientCreated"]> =>
        record(raw.POST(OPERATIONS.createOAuthClient.path, { body: client })),
      revoke: (id: string): Promise<void> =>
        nothing(raw.DELETE(OPERATIONS.revokeOAuthClient.path, { params: path(id) })),
    },

    /** People of the organization: a dashboard user's token with the admin role only. */
    members: {
      list: (query: Query<"listMembers"> = {}): ListRequest<Schemas["Member"], Query<"listMembers">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listMembers.path, { params: { query: q } })), query),
      /** The one-time sign-in link is in the answer's `signInUrl`. */
      invite: (member: Schemas["MemberInvite"]): Promise<Schemas["MemberInvited"]> =>
        record(raw.POST(OPERATIONS.inviteMember.path, { body: member })),
      update: (id: string, changes: Schemas["MemberUpdate"]): Promise<Schemas["Member"]> =>
        record(raw.PATCH(OPERATIONS.updateMember.path, { params: path(id), body: changes })),
    },

    /** The organization's audit log, newest first: a dashboard user's token with the admin role only. */
    auditEvents: {
      list: (query: Query<"listAuditEvents"> = {}): ListRequest<Schemas["AuditEvent"], Query<"listAuditEvents">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listAuditEvents.path, { params: { query: q } })), query),
    },

    /** The organization's single sign-on connections (read-only, never secrets): a user's token with the admin role only. */
    ssoConnections: {
      list: (
        query: Query<"listSsoConnections"> = {},
      ): ListRequest<Schemas["SsoConnection"], Query<"listSsoConnections">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listSsoConnections.path, { params: { query: q } })), query),
    },

    datasets: {
      list: (query: Query<"listDatasets"> = {}): ListRequest<Schemas["DatasetVersion"], Query<"listDatasets">> =>
        new ListRequest((q) => body(raw.GET(OPERATIONS.listDatasets.path, { params: { query: q } })), query),
      publish: (dataset: Schemas["DatasetPublish"]): Promise<Schemas["DatasetVersionDetail"]> =>
        record(raw.POST(OPERATIONS.publishDataset.path, { body: dataset })),
      get: (id: string): Promise<Schemas["DatasetVersionDetail"]> =>
        record(raw.GET(OPERATIONS.getDataset.path, { params: path(id) })),
    },

    exports: {
      /** The whole export as the server sends it: CSV text, or the JSON document's text, by `format`. */
      download: (query: Query<"exportData"> = {}): Promise<string> =>
        body(raw.GET(OPERATIONS.exportData.path, { params: { query }, parseAs: "text" })),
    },
  };
}

export type Resources = ReturnType<typeof resources>;
