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

export function resources(raw: Client<paths>) {
  const path = (id: string) => ({ path: { id } });

  return {
    institutions: {
      list: (query: Query<"listInstitutions"> = {}): ListRequest<Schemas["Institution"], Query<"listInstitutions">> =>
        new ListRequest((q) => body(raw.GET("/institutions", { params: { query: q } })), query),
      get: (id: string): Promise<Schemas["Institution"]> => record(raw.GET("/institutions/{id}", { params: path(id) })),
    },

    courses: {
      list: (query: Query<"listCourses"> = {}): ListRequest<Schemas["Course"], Query<"listCourses">> => new ListRequest((q) => body(raw.GET("/courses", { params: { query: q } })), query),
      get: (id: string): Promise<Schemas["Course"]> => record(raw.GET("/courses/{id}", { params: path(id) })),
      /** Creates or replaces one course or a batch (at most 500); one result per item, in order. */
      upsert: (courses: Schemas["CourseUpsertRequest"], options: IdempotencyOptions & { dryRun?: boolean } = {}): Promise<Schemas["CourseUpsertResponse"]> =>
        body(
          raw.POST("/courses", {
            params: { query: options.dryRun ? { dryRun: true } : {}, header: idempotencyHeader(options) },
            body: courses,
          }),
        ),
    },

    equivalencies: {
      list: (query: Query<"listEquivalencies"> = {}): ListRequest<Schemas["Equivalency"], Query<"listEquivalencies">> =>
        new ListRequest((q) => body(raw.GET("/equivalencies", { params: { query: q } })), query),
      get: (id: string): Promise<Schemas["EquivalencyExpanded"]> => record(raw.GET("/equivalencies/{id}", { params: path(id) })),
      create: async (equivalency: Schemas["EquivalencyCreate"], options: IdempotencyOptions = {}): Promise<Schemas["EquivalencyExpanded"]> => {
        const created = await body(raw.POST("/equivalencies", { params: { header: idempotencyHeader(options) }, body: equivalency }));
        return created.data as Schemas["EquivalencyExpanded"];
      },
      update: (id: string, changes: Schemas["EquivalencyUpdate"], options: UpdateOptions = {}): Promise<Schemas["EquivalencyExpanded"]> =>
        record(
          raw.PATCH("/equivalencies/{id}", {
            params: { ...path(id), header: options.ifMatch === undefined ? {} : { "If-Match": options.ifMatch } },
            body: changes,
          }),
        ),
      /** The current record and every version, newest first. */
      versions: (id: string): Promise<Schemas["EquivalencyVersionHistory"]> => record(raw.GET("/equivalencies/{id}/versions", { params: path(id) })),
      version: (id: string, version: number): Promise<Schemas["EquivalencyVersion"]> =>
        record(raw.GET("/equivalencies/{id}/versions/{version}", { params: { path: { id, version } } })),
    },

    keys: {
      list: (query: Query<"listKeys"> = {}): ListRequest<Schemas["ApiKey"], Query<"listKeys">> => new ListRequest((q) => body(raw.GET("/keys", { params: { query: q } })), query),
      /** The full key is in the answer's `key`, and never shown again. */
      create: (key: Schemas["ApiKeyCreate"] = {}): Promise<Schemas["ApiKeyCreated"]> => record(raw.POST("/keys", { body: key })),
      revoke: (id: string): Promise<void> => nothing(raw.DELETE("/keys/{id}", { params: path(id) })),
    },

    organizations: {
      /** The caller's organization, environment and scopes, with a page of its stewarded institution ids (`pagination`). */
      me: (query: Query<"getCurrentOrganization"> = {}): Promise<Schemas["CurrentOrganizationResponse"]> =>
        body(raw.GET("/organizations/me", { params: { query } })),
    },

    webhooks: {
      list: (query: Query<"listWebhooks"> = {}): ListRequest<Schemas["WebhookEndpoint"], Query<"listWebhooks">> => new ListRequest((q) => body(raw.GET("/webhooks", { params: { query: q } })), query),
      /** The answer carries the signing secret, shown only here and on rotation. */
      create: (endpoint: Schemas["WebhookCreate"]): Promise<Schemas["WebhookEndpointWithSecret"]> => record(raw.POST("/webhooks", { body: endpoint })),
      get: (id: string): Promise<Schemas["WebhookEndpoint"]> => record(raw.GET("/webhooks/{id}", { params: path(id) })),
      update: (id: string, changes: Schemas["WebhookUpdate"]): Promise<Schemas["WebhookEndpoint"]> => record(raw.PATCH("/webhooks/{id}", { params: path(id), body: changes })),
      delete: (id: string): Promise<void> => nothing(raw.DELETE("/webhooks/{id}", { params: path(id) })),
      rotateSecret: (id: string): Promise<Schemas["WebhookEndpointWithSecret"]> => record(raw.POST("/webhooks/{id}/rotate-secret", { params: path(id) })),
      deliveries: (id: string, query: Query<"listWebhookDeliveries"> = {}): ListRequest<Schemas["WebhookDelivery"], Query<"listWebhookDeliveries">> =>
        new ListRequest((q) => body(raw.GET("/webhooks/{id}/deliveries", { params: { ...path(id), query: q } })), query),
      delivery: (id: string, deliveryId: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.GET("/webhooks/{id}/deliveries/{deliveryId}", { params: { path: { id, deliveryId } } })),
      redeliver: (id: string, deliveryId: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", { params: { path: { id, deliveryId } } })),
      /** Sends a test event to the endpoint now and returns the delivery attempt. */
      test: (id: string): Promise<Schemas["WebhookDelivery"]> => record(raw.POST("/webhooks/{id}/test", { params: path(id) })),
    },

    datasets: {
      list: (query: Query<"listDatasets"> = {}): ListRequest<Schemas["DatasetVersion"], Query<"listDatasets">> => new ListRequest((q) => body(raw.GET("/datasets", { params: { query: q } })), query),
      publish: (dataset: Schemas["DatasetPublish"]): Promise<Schemas["DatasetVersionDetail"]> => record(raw.POST("/datasets", { body: dataset })),
      get: (id: string): Promise<Schemas["DatasetVersionDetail"]> => record(raw.GET("/datasets/{id}", { params: path(id) })),
    },
  };
}

export type Resources = ReturnType<typeof resources>;
