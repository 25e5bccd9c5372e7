// Typed helpers over the raw openapi-fetch client, one group per resource, one method per
// operation: scripts/generate.ts writes them from openapi.yaml into the fenced region below (the
// rules are in scripts/sdk-resources.ts). Each returns the record (the `data` member of the
// response body) or throws the typed ApiError; list methods return a ListRequest (see paging.ts).
import type { Client } from "openapi-fetch";
import type { components, operations, paths } from "./api-types.js";
import { apiErrorFrom } from "./errors.js";
import { ListRequest, type Page, type PageQuery } from "./paging.js";
import { eventStream, type StreamedEvent, type StreamOptions } from "./feed.js";

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

function page<T, Q extends PageQuery>(request: (query: Q) => Promise<Outcome<Page<T>>>, query: Q): ListRequest<T, Q> {
  return new ListRequest((q) => body(request(q)), query);
}

// @generated begin resources (scripts/generate.ts from openapi.yaml; run `npm run generate`)
/** The helpers of each resource: one method for each operation of the contract. */
export function resources(raw: Client<paths>) {
  return {
    /** Colleges and universities, keyed by IPEDS unit ID (`inst_<ipeds_id>`). */
    institutions: {
      /**
       * List institutions.
       *
       * Lists the institutions of the caller's environment, ordered by `name`, then `id`. Filters
       * combine with AND: `state` matches the two-letter state code in any case, `type` and `source`
       * match exactly, and `q` is a case-insensitive substring of the name or the city.
       */
      list: (query: Query<"listInstitutions"> = {}): ListRequest<Schemas["Institution"], Query<"listInstitutions">> =>
        page((q) => raw.GET("/institutions", { params: { query: q } }), query),
      /**
       * Get an institution.
       *
       * Returns one institution of the caller's environment by its id (`inst_<ipeds_id>`), or by its
       * bare IPEDS unit id (`110635` is `inst_110635`).
       */
      get: (id: string): Promise<Schemas["Institution"]> =>
        record(raw.GET("/institutions/{id}", { params: { path: { id } } })),
    },
    /** Course records of an institution, classified with CIP 2020 codes and versioned on every re-upsert. */
    courses: {
      /**
       * List courses.
       *
       * Lists the courses of the caller's environment, ordered by `institutionId`, `code`, then `id`.
       * Filters combine with AND: `institution` matches the institution id exactly; `cip` matches a
       * six-digit CIP 2020 code exactly (`11.0701`) or, given a two-digit family (`11`) or a four-digit
       * series (`11.07`), every code under it; `q` is a case-insensitive substring of the course code or
       * title.
       */
      list: (query: Query<"listCourses"> = {}): ListRequest<Schemas["Course"], Query<"listCourses">> =>
        page((q) => raw.GET("/courses", { params: { query: q } }), query),
      /**
       * Create or update courses.
       *
       * Creates or replaces one course, or a batch of at most 500, in the caller's environment.
       */
      upsert: (
        courses: Schemas["CourseUpsertRequest"],
        options: IdempotencyOptions & { dryRun?: boolean } = {},
      ): Promise<Schemas["CourseUpsertResponse"]> =>
        body(
          raw.POST("/courses", {
            params: {
              header: { "Idempotency-Key": options.idempotencyKey },
              query: { dryRun: options.dryRun || undefined },
            },
            body: courses,
          }),
        ),
      /**
       * Get a course.
       *
       * Returns the current version of one course of the caller's environment, with its institution
       * embedded.
       */
      get: (id: string): Promise<Schemas["CourseWithInstitution"]> =>
        record(raw.GET("/courses/{id}", { params: { path: { id } } })),
    },
    /** Transfer-equivalency decisions from a source course to a target institution, with status, provenance and immutable version history. */
    equivalencies: {
      /**
       * List equivalencies.
       *
       * Lists the current version of the equivalencies of the caller's environment, ordered by
       * `createdAt`, then `id`. Filters combine with AND and match exactly: `sourceCourse` (a course id:
       * the rules it is one of the source courses of, in any of their `sourceCourseSets`),
       * `targetInstitution` (an institution id), `status`, `provenance` and `kind`. `asOf` (a date)
       * keeps the rules in force that day: `effectiveFrom` null or on or before it, and `effectiveUntil`
       * null or on or after it. With `expand=course` every item also embeds `sourceCourse` (with its
       * institution), `targetInstitution` and `targetCourse`.
       */
      list: (query: Query<"listEquivalencies"> = {}): ListRequest<Schemas["Equivalency"], Query<"listEquivalencies">> =>
        page((q) => raw.GET("/equivalencies", { params: { query: q } }), query),
      /**
       * Create an equivalency.
       *
       * Publishes a new equivalency at version 1 and emits `equivalency.created`. `status` defaults to
       * `pending`; `decidedAt` is set when the status is `accepted` or `conflict`. `provenance` is the
       * onboarding channel of the writing credential's organization. When `targetCourseId` is given
       * without `targetCode`, `targetCode` is the target course's code.
       */
      create: (
        equivalency: Schemas["EquivalencyCreate"],
        options: IdempotencyOptions = {},
      ): Promise<Schemas["EquivalencyExpanded"]> =>
        record(
          raw.POST("/equivalencies", {
            params: { header: { "Idempotency-Key": options.idempotencyKey } },
            body: equivalency,
          }),
        ) as Promise<Schemas["EquivalencyExpanded"]>,
      /**
       * Import equivalencies from a CSV file.
       *
       * Reads a CSV file of rules (RFC 4180, UTF-8, a header row, at most 10,000 data rows; the layout
       * is in the API guide, in the spirit of the TES import: up to ten source and ten target course
       * columns by institution and course code, then the rule's kind, minimum grade, dates, status,
       * deciding body and policy basis) and writes each row as `POST /equivalencies` and `PATCH
       * /equivalencies/{id}` would, with versions and events. On PostgreSQL the whole file is one
       * transaction (all of it or nothing); on the embedded database it is written in chunks of 100
       * rows, each one transaction, so that other requests are served between them: a failure there
       * leaves whole chunks written, and importing the same file again completes it (the rows already
       * written are `unchanged`). A row whose rule already exists (same source course sets, target
       * institution, targets, target choice, kind and start date) updates it, or leaves it unchanged;
       * "MATH 7 or MATH 7H → MATH 1A" is another rule than "MATH 7 → MATH 1A", so a file holding both is
       * told how they agree. A row that names an unknown institution or course, or breaks a rule of the
       * layout, is not written and gets an issue `{row, column, message}` (`row` 1 is the first data
       * row). A row that would be ambiguous with (or duplicate) an accepted rule is stored as
       * `conflict`, never `accepted`, with an issue naming the other rules. Only rows of target
       * institutions the caller's organization stewards are written (`403` `not-steward` for the first
       * other one, nothing written).
       */
      importCsv: (text: string, options: { dryRun?: boolean } = {}): Promise<Schemas["EquivalencyImportResult"]> =>
        body(
          raw.POST("/equivalencies/imports", {
            params: { query: { dryRun: options.dryRun || undefined } },
            body: text,
            bodySerializer: (text: string) => text,
            headers: { "Content-Type": "text/csv" },
          }),
        ),
      /**
       * Report overlapping rules.
       *
       * Groups the `accepted` and `conflict` rules of the caller's environment that overlap: same target
       * institution, a shared source course set (a set of one rule with the same courses as a set of the
       * other; a rule of several alternatives is in the group of each of its sets), same priority and
       * overlapping effective dates. Each group says whether its rules are `ambiguous` (their outcomes
       * differ, compared as the ambiguity check compares them: cross-listed codes as one course, a
       * `one_of` rule as one outcome) or duplicates, and lists its rules, so stewards can clean up what
       * arrived before the ambiguity check (imports, older data) and decide what waits in `conflict`:
       * accept one, mark the others `conflict`, change dates or priorities. Groups are ordered by target
       * institution, then the sorted source course ids of the shared set, then priority;
       * `targetInstitution` narrows the report to one institution.
       */
      overlaps: (
        query: Query<"listEquivalencyOverlaps"> = {},
      ): ListRequest<Schemas["EquivalencyOverlapGroup"], Query<"listEquivalencyOverlaps">> =>
        page((q) => raw.GET("/equivalencies/overlaps", { params: { query: q } }), query),
      /**
       * Get an equivalency.
       *
       * Returns the current version of one equivalency with its source course (and that course's
       * institution), target institution and target course embedded. The `ETag` identifies this version;
       * send it in `If-Match` to update conditionally.
       */
      get: (id: string): Promise<Schemas["EquivalencyExpanded"]> =>
        record(raw.GET("/equivalencies/{id}", { params: { path: { id } } })),
      /**
       * Update an equivalency.
       *
       * Changes an equivalency's `status`, `targetCourseId`, `targetCode`, `decidedBy` or `policyBasis`,
       * or its rule (`targets`, `kind`, `generalEducationArea`, `minimumGrade`, `effectiveFrom`,
       * `effectiveUntil`, `priority`, `awardedCredits`; the source courses are the rule's identity and
       * do not change), with an optional change `note`. A change that leaves the rule `accepted` (or
       * makes it so) is checked for ambiguity as on creation (`409` `ambiguous-rule` or
       * `duplicate-rule`). Every effective change stores the prior state as an immutable snapshot (with
       * the note, the actor and the changed fields), increments `version` by one and emits
       * `equivalency.updated`. A PATCH that changes nothing returns `200` and records no version.
       */
      update: (
        id: string,
        changes: Schemas["EquivalencyUpdate"],
        options: UpdateOptions = {},
      ): Promise<Schemas["EquivalencyExpanded"]> =>
        record(
          raw.PATCH("/equivalencies/{id}", {
            params: { path: { id }, header: { "If-Match": options.ifMatch } },
            body: changes,
          }),
        ),
      /**
       * List an equivalency's versions.
       *
       * Returns the current record and a page of its recorded versions, newest first (the current
       * version included). Each version is an immutable snapshot of the record's fields at that version,
       * with the change note, the actor and the fields changed from the previous version (empty for
       * version 1). The versions are paged like every list: `limit` (25 by default, at most 100) and
       * `after` (the `pagination.nextCursor` of the previous page); `pagination`, `X-Total-Count` and
       * `Link` describe the page.
       */
      versions: (
        id: string,
        query: Query<"listEquivalencyVersions"> = {},
      ): Promise<operations["listEquivalencyVersions"]["responses"][200]["content"]["application/json"]> =>
        body(raw.GET("/equivalencies/{id}/versions", { params: { path: { id }, query } })),
      /**
       * Get one version of an equivalency.
       *
       * Returns one recorded version of the equivalency (the current one included) as an immutable
       * snapshot with its change note, actor and changed fields.
       */
      version: (id: string, version: number): Promise<Schemas["EquivalencyVersion"]> =>
        record(raw.GET("/equivalencies/{id}/versions/{version}", { params: { path: { id, version } } })),
    },
    /** "Will my courses transfer?": completed courses evaluated against a target institution's accepted rules, and the demand for the rules nobody has written yet. */
    transferEvaluations: {
      /**
       * Evaluate courses against a target institution's rules.
       *
       * Answers "will my courses transfer?": applies the `accepted` rules of the target institution to
       * the 1 to 100 courses given (by `courseId`, or by `institutionId` and `code`), each with an
       * optional `grade` and `completedOn`, and answers one result per course with its `outcome`, the
       * rule applied (`equivalencyId`, `equivalencyVersion`), its targets, the credits awarded in the
       * target institution's unit and the `reasons`, in words.
       */
      create: (transferEvaluation: Schemas["TransferEvaluationRequest"]): Promise<Schemas["TransferEvaluation"]> =>
        record(raw.POST("/transfer-evaluations", { body: transferEvaluation })),
    },
    /** "Will my courses transfer?": completed courses evaluated against a target institution's accepted rules, and the demand for the rules nobody has written yet. */
    equivalencyRequests: {
      /**
       * List the requested rules of a target institution.
       *
       * The demand for missing rules: the source courses that evaluations (`POST /transfer-evaluations`)
       * asked about at the target institution and that no accepted rule covered (`no_rule`), and, from
       * 1.2.0, the courses the catalog lacks that evaluations gave by institution, code and title
       * (`unknown_course`): those items have `inCatalog: false`, an empty `sourceCourseId` (`""`) and
       * `sourceCourse` with the institution, the code and the title given (the latest one). Demand is
       * counted once per requester (the credential; for the public sandbox key, the client address),
       * course, target institution and UTC day, whatever grades or dates were given: `requests` counts
       * those requester-days and `distinctRequesters` the different requesters. Items are ordered by
       * `requests` descending, then catalog courses by source course id, then courses the catalog lacks
       * by institution id and code; `inCatalog` narrows the list to one kind. Creating an `accepted`
       * rule (or accepting one) clears the requests for each course of its source course sets. Nothing
       * about the people who asked is kept but keyed hashes.
       */
      list: (
        query: Query<"listEquivalencyRequests">,
      ): ListRequest<Schemas["EquivalencyRequest"], Query<"listEquivalencyRequests">> =>
        page((q) => raw.GET("/equivalency-requests", { params: { query: q } }), query),
    },
    /** Published, immutable dataset versions of a contributing organization's equivalencies, with row-level validation issues. */
    datasets: {
      /**
       * List dataset versions.
       *
       * Lists the dataset versions published by the caller's organization in the caller's environment,
       * newest first (by `sequence`, descending). Row-level issues are returned by `GET /datasets/{id}`.
       */
      list: (query: Query<"listDatasets"> = {}): ListRequest<Schemas["DatasetVersion"], Query<"listDatasets">> =>
        page((q) => raw.GET("/datasets", { params: { query: q } }), query),
      /**
       * Publish a dataset version.
       *
       * Publishes a dataset version: an immutable snapshot of the calling organization's current
       * equivalencies (and the courses they reference) in the caller's environment, numbered with the
       * next `sequence` of the organization. Every row is validated and its issues (missing target,
       * missing CIP code, long-pending decisions, …) are stored with the version. A declared
       * `recordCount` that differs from the snapshot is reported as a `record_count_mismatch` issue, not
       * a failure. Equivalencies in the snapshot report this dataset's id as `datasetVersionId` until a
       * later dataset includes them (this records no equivalency version). Emits `dataset.published`.
       */
      publish: (dataset: Schemas["DatasetPublish"]): Promise<Schemas["DatasetVersionDetail"]> =>
        record(raw.POST("/datasets", { body: dataset })),
      /**
       * Get a dataset version.
       *
       * Returns one dataset version of the caller's organization with its first 100 row-level validation
       * issues (`issueCount` tells how many there are; `GET /datasets/{id}/issues` pages through them
       * all). Another organization's dataset is answered `404`.
       */
      get: (id: string): Promise<Schemas["DatasetVersionDetail"]> =>
        record(raw.GET("/datasets/{id}", { params: { path: { id } } })),
      /**
       * List a dataset version's issues.
       *
       * Lists the row-level validation issues of one dataset version of the caller's organization, in
       * row order (an issue of the dataset as a whole first), paged like every list. `GET
       * /datasets/{id}` embeds only the first 100 issues; `issueCount` tells how many there are, and
       * this list reads them all. Another organization's dataset is answered `404`.
       */
      issues: (
        id: string,
        query: Query<"listDatasetIssues"> = {},
      ): ListRequest<Schemas["DatasetIssue"], Query<"listDatasetIssues">> =>
        page((q) => raw.GET("/datasets/{id}/issues", { params: { path: { id }, query: q } }), query),
    },
    /** Signed event deliveries to registered endpoints, their delivery log, redelivery and tests. */
    webhooks: {
      /**
       * List webhook endpoints.
       *
       * Lists the webhook endpoints of the caller's organization in the caller's environment, ordered by
       * `createdAt`, then `id`. Secrets are shown only as `secretPrefix`.
       */
      list: (query: Query<"listWebhooks"> = {}): ListRequest<Schemas["WebhookEndpoint"], Query<"listWebhooks">> =>
        page((q) => raw.GET("/webhooks", { params: { query: q } }), query),
      /**
       * Register a webhook endpoint.
       *
       * Registers an endpoint that receives the listed event types. The response carries the signing
       * `secret` (`whsec_…`); it is shown only here (and after a rotation), so store it. The URL must be
       * `http` or `https`; unless the operator allows private targets, targets on loopback, private,
       * link-local or cloud-metadata addresses, on the service host's own interface addresses, or on
       * IPv6 forms that carry such an IPv4 address (`::a.b.c.d`, `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`,
       * 6to4 `2002::/16`) are refused (`400`, pointer `/url`) and checked again at every delivery; a
       * service that listens only on loopback (local development) accepts loopback targets. An empty or
       * unknown event type list is a `400`.
       */
      create: (webhook: Schemas["WebhookCreate"]): Promise<Schemas["WebhookEndpointWithSecret"]> =>
        record(raw.POST("/webhooks", { body: webhook })),
      /**
       * Get a webhook endpoint.
       *
       * Returns one webhook endpoint of the caller's organization (secret shown only as `secretPrefix`).
       * Another organization's endpoint is answered `404`.
       */
      get: (id: string): Promise<Schemas["WebhookEndpoint"]> =>
        record(raw.GET("/webhooks/{id}", { params: { path: { id } } })),
      /**
       * Delete a webhook endpoint.
       *
       * Deletes the endpoint; no further deliveries are made to it.
       */
      delete: (id: string): Promise<void> => nothing(raw.DELETE("/webhooks/{id}", { params: { path: { id } } })),
      /**
       * Update a webhook endpoint.
       *
       * Changes an endpoint's URL, subscribed events, description or status. Setting `status` to
       * `disabled` stops deliveries to the endpoint; setting it to `enabled` resumes them, the events
       * that occurred meanwhile included (they wait as pending deliveries). A new URL is checked like at
       * registration. The secret is unchanged; use `rotate-secret` to replace it.
       */
      update: (id: string, changes: Schemas["WebhookUpdate"]): Promise<Schemas["WebhookEndpoint"]> =>
        record(raw.PATCH("/webhooks/{id}", { params: { path: { id } }, body: changes })),
      /**
       * Rotate a webhook endpoint's secret.
       *
       * Replaces the endpoint's signing secret and returns the new one (shown only here). For the next
       * 24 hours (`previousSecretExpiresAt`) every delivery is signed with both secrets: the
       * `X-SVC-Signature` header carries one `v1=` entry per secret, so receivers can switch without
       * losing deliveries. Takes no request body.
       */
      rotateSecret: (id: string): Promise<Schemas["WebhookEndpointWithSecret"]> =>
        record(raw.POST("/webhooks/{id}/rotate-secret", { params: { path: { id } } })),
      /**
       * List an endpoint's deliveries.
       *
       * Lists the delivery log of one endpoint, newest first (`createdAt` descending, then `id`
       * descending). Every attempt is a record with the exact request body, the signature header, the
       * response status and a short excerpt of the response, so failures can be diagnosed and re-sent
       * with `redeliver`.
       */
      deliveries: (
        id: string,
        query: Query<"listWebhookDeliveries"> = {},
      ): ListRequest<Schemas["WebhookDelivery"], Query<"listWebhookDeliveries">> =>
        page((q) => raw.GET("/webhooks/{id}/deliveries", { params: { path: { id }, query: q } }), query),
      /**
       * Re-send every failed delivery since a time.
       *
       * Re-sends, now, the event of every delivery of the endpoint that failed for good (its retries
       * exhausted, no newer attempt of the same event pending or succeeded) and was created at or after
       * `since`. Each such event gets one new pending attempt, which then follows the normal retry
       * schedule; `count` says how many were queued (0 when none). A dashboard user's token needs the
       * role `admin`.
       */
      redeliverFailed: (
        id: string,
        since: string,
      ): Promise<operations["redeliverFailedWebhookDeliveries"]["responses"][202]["content"]["application/json"]> =>
        body(raw.POST("/webhooks/{id}/deliveries/redeliver-failed", { params: { path: { id } }, body: { since } })),
      /**
       * Get a delivery.
       *
       * Returns one delivery attempt of the endpoint, with the exact request body, signature and
       * response.
       */
      delivery: (id: string, deliveryId: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.GET("/webhooks/{id}/deliveries/{deliveryId}", { params: { path: { id, deliveryId } } })),
      /**
       * Re-send a delivery's event.
       *
       * Re-sends the delivery's event to the endpoint now, whatever the delivery's status (for example
       * after a receiver outage, once retries are exhausted). The answer is the new delivery record: a
       * new pending attempt of the same event (same event id and body, freshly signed), which then
       * follows the normal retry schedule. Takes no request body.
       */
      redeliver: (id: string, deliveryId: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", { params: { path: { id, deliveryId } } })),
      /**
       * Send a test event.
       *
       * Sends, synchronously, a test event to the endpoint and answers with the delivery record. The
       * event has the endpoint's first subscribed type, carries sample data and `"test": true` in the
       * envelope, and is signed like any other delivery. Takes no request body.
       */
      test: (id: string): Promise<Schemas["WebhookDelivery"]> =>
        record(raw.POST("/webhooks/{id}/test", { params: { path: { id } } })),
    },
    /** The change feed of every catalog event in commit order, paged or streamed as Server-Sent Events. */
    events: {
      /**
       * Read the change feed.
       *
       * The events of the caller's environment (`course.updated`, `equivalency.created`,
       * `equivalency.updated`, `dataset.published`) in **commit order**: the order in which the changes
       * that caused them were committed, which is not always the order of their ids or `created` times
       * when writers commit concurrently. Each item is the envelope a webhook delivery carries. Follow
       * `pagination.nextCursor` as `after`: a consumer that does sees every event exactly once,
       * including events committed while it was reading. `nextCursor` is never `null` once the feed has
       * an event; on the last page it stands for the end of the feed (the next call answers what was
       * committed since), so store it and resume from it. `pagination.hasMore` tells whether more events
       * follow right now. Events are kept at least 30 days (`SVC_EVENTS_RETENTION_DAYS`); a cursor, or a
       * `since`, from before events were removed is answered `410` (`cursor-expired`): resynchronise
       * from an export (`GET /exports`) and read the feed from then on. A cursor of this feed is valid
       * for `GET /events` and `GET /events/stream` alike, with any filters, for the organization and
       * environment it came from.
       */
      list: (query: Query<"listEvents"> = {}): ListRequest<Schemas["Event"], Query<"listEvents">> =>
        page((q) => raw.GET("/events", { params: { query: q } }), query),
      /**
       * Stream the change feed (Server-Sent Events).
       *
       * The change feed of `GET /events` as [Server-Sent
       * Events](https://html.spec.whatwg.org/multipage/server-sent-events.html): the same events, in the
       * same commit order, with no gap. Each event is sent as `id: <cursor>`, `event: <type>` and `data:
       * <envelope JSON>`; the `id` is a cursor of the feed, so a client that reconnects with
       * `Last-Event-ID` (as browsers' `EventSource` do) or `after` resumes right after the last event it
       * received. Without either the stream starts at the end of the feed (only events committed from
       * now on), or at `since` when given. A comment line (`: keep-alive`) is sent when nothing else was
       * sent for 15 seconds (`SVC_EVENTS_KEEPALIVE_SECONDS`). The stream ends when the server stops
       * (reconnect with `Last-Event-ID`). Each organization may hold a limited number of streams at once
       * per API process (`SVC_EVENTS_MAX_STREAMS_PER_ORGANIZATION`, 5 by default); the public sandbox
       * key, shared by everyone, counts its streams per client address instead
       * (`SVC_EVENTS_MAX_STREAMS_PER_ADDRESS`, 2 by default). One more is answered `429`
       * (`too-many-streams`). A cursor from before events were removed is answered `410`
       * (`cursor-expired`).
       */
      stream: (
        query: Query<"streamEvents"> = {},
        options: StreamOptions = {},
      ): AsyncGenerator<StreamedEvent, void, undefined> =>
        eventStream(
          (q, lastEventId, signal) =>
            raw.GET("/events/stream", {
              params: { query: q, header: { "Last-Event-ID": lastEventId } },
              parseAs: "stream",
              signal,
            }),
          query,
          options,
        ),
      /**
       * Get an event.
       *
       * One event of the caller's environment, by its id (`evt_…`), as long as it is kept (at least 30
       * days).
       */
      get: (id: string): Promise<Schemas["Event"]> => record(raw.GET("/events/{id}", { params: { path: { id } } })),
    },
    /** Bulk export of courses, institutions and equivalencies as CSV, JSON or CTDL JSON-LD. */
    exports: {
      /**
       * Export a resource in bulk.
       *
       * Streams every record of one resource of the caller's environment (constant memory, however large
       * the table), licensed CC BY 4.0. `format=csv` has a header row with one column per field (nested
       * objects flattened with dotted names); `format=json` is a JSON array of the resource's objects,
       * as the list operations return them; `format=ctdl` exports equivalencies as Credential
       * Transparency Description Language (CTDL) aligned JSON-LD assertions and is only available for
       * `resource=equivalencies` (`400` otherwise). The `Accept` header does not select the format;
       * `format` does.
       */
      download: (query: Query<"exportData"> = {}): Promise<string> =>
        body(raw.GET("/exports", { params: { query }, parseAs: "text" })),
    },
    /** API keys of the calling organization in the caller's environment. */
    keys: {
      /**
       * List API keys.
       *
       * Lists the API keys of the caller's organization in the caller's environment, revoked ones
       * included, ordered by `createdAt`, then `id`. Keys are shown by `prefix` only, never in full.
       */
      list: (query: Query<"listKeys"> = {}): ListRequest<Schemas["ApiKey"], Query<"listKeys">> =>
        page((q) => raw.GET("/keys", { params: { query: q } }), query),
      /**
       * Create an API key.
       *
       * Creates an API key for the caller's organization. The response is the only one that carries the
       * full `key`; store it, since only a hash is kept. The environment and scopes default to the
       * caller's own; a credential cannot create a key with a scope or an environment it does not itself
       * hold (`403`). The body is optional.
       */
      create: (key: Schemas["ApiKeyCreate"] = {}): Promise<Schemas["ApiKeyCreated"]> =>
        record(raw.POST("/keys", { body: key })),
      /**
       * Revoke an API key.
       *
       * Revokes one of the caller's organization's keys at once; requests made with it are answered
       * `401` from then on. The key stays listed with `revokedAt`; revoking it again is answered `204`
       * too. An unknown key, or one of another organization or environment, is answered `404`.
       */
      revoke: (id: string): Promise<void> => nothing(raw.DELETE("/keys/{id}", { params: { path: { id } } })),
    },
    /** The calling credential's organization and the institutions it stewards. */
    organizations: {
      /**
       * The caller's organization and stewardship.
       *
       * Returns the calling credential's organization, environment, kind and scopes, and the
       * institutions its organization **stewards** in that environment: the institutions whose courses
       * it may create and re-upsert, and whose equivalencies (as target institution) it may create and
       * change. `allInstitutions` is true for a standing grant of every institution of the environment
       * (system offices, consortia), including institutions imported later. `institutionIds` lists the
       * explicit grants, ordered by id and paged with `limit` and `offset` like every list
       * (`pagination`, `X-Total-Count` and `Link` describe that list). Grants are made by an
       * administrator with the command-line tool (`orgs grant`).
       */
      me: (query: Query<"getCurrentOrganization"> = {}): Promise<Schemas["CurrentOrganizationResponse"]> =>
        body(raw.GET("/organizations/me", { params: { query } })),
    },
    /** The people of the caller's organization (dashboard users) and their roles; admins only. */
    members: {
      /**
       * List the organization's members.
       *
       * Lists the people (dashboard users) of the caller's organization, disabled ones included, ordered
       * by `createdAt`, then `id`. **People only**: needs a dashboard user's access token with the role
       * `admin`; API keys, OAuth clients and other roles are answered `403`.
       */
      list: (query: Query<"listMembers"> = {}): ListRequest<Schemas["Member"], Query<"listMembers">> =>
        page((q) => raw.GET("/members", { params: { query: q } }), query),
      /**
       * Invite a member.
       *
       * Adds a person to the caller's organization with a role and answers a one-time sign-in link
       * (`signInUrl`, valid for 15 minutes, usable once) to hand to them; shown only in this response.
       * An email the organization already has (compared case-insensitively) is `409` with `existingId`.
       * **People only**: needs a dashboard user's access token with the role `admin`.
       */
      invite: (member: Schemas["MemberInvite"]): Promise<Schemas["MemberInvited"]> =>
        record(raw.POST("/members", { body: member })),
      /**
       * Change a member's role, or disable or enable them.
       *
       * Changes a member's `role`, or disables (`disabled: true`) or enables them. Disabling ends the
       * member's dashboard sessions at once, so their access tokens stop working too. The organization's
       * last enabled admin cannot be demoted or disabled (`409`). A member of another organization is
       * `404`. **People only**: needs a dashboard user's access token with the role `admin`.
       */
      update: (id: string, changes: Schemas["MemberUpdate"]): Promise<Schemas["Member"]> =>
        record(raw.PATCH("/members/{id}", { params: { path: { id } }, body: changes })),
      /**
       * Issue a new sign-in link to a member.
       *
       * Answers a new one-time sign-in link (`signInUrl`, valid for 15 minutes, usable once) for a
       * member of the caller's organization, to hand to them: when their invitation's link expired or
       * was lost, or when they have no identity provider to sign in with. Shown only in this response;
       * links issued earlier stay valid until they expire or are used. A disabled member is `409`
       * (enable them first); a member of another organization is `404`. **People only**: needs a
       * dashboard user's access token with the role `admin`.
       */
      signInLink: (id: string): Promise<Schemas["MemberInvited"]> =>
        record(raw.POST("/members/{id}/sign-in-link", { params: { path: { id } } })),
    },
    /** The append-only log of every change made through the API or the dashboard; admins only. */
    auditEvents: {
      /**
       * List the organization's audit log.
       *
       * Lists the audit log of the caller's organization, newest first (`createdAt` descending, then
       * `id` descending): one append-only entry per successful change made through the API (by any API
       * key, OAuth client, external token or user) or the dashboard, in either environment, with the
       * actor, the operation, the target, the environment and the request id. Entries are kept at least
       * 400 days. Filters combine with AND. **People only**: needs a dashboard user's access token with
       * the role `admin`; an admin reads only their own organization's entries.
       */
      list: (query: Query<"listAuditEvents"> = {}): ListRequest<Schemas["AuditEvent"], Query<"listAuditEvents">> =>
        page((q) => raw.GET("/audit-events", { params: { query: q } }), query),
    },
    /** Single sign-on connections of the calling organization (OIDC or SAML 2.0), read-only; admins only. */
    ssoConnections: {
      /**
       * List the organization's single sign-on connections.
       *
       * Lists the single sign-on connections of the caller's organization (read-only: they are
       * configured by the operator with the `sso` command-line group), oldest first (`createdAt`, then
       * `id`). Each connection serves one email domain through an OpenID Connect provider or a SAML 2.0
       * identity provider; people of that domain sign in to the dashboard there and are provisioned just
       * in time with the role the connection's role map gives them (`viewer` by default). Secrets are
       * never shown: an OIDC connection lists its issuer and client id, a SAML connection its identity
       * provider's entity id, sign-on URL and the SHA-256 fingerprints of its signing certificates.
       * **People only**: needs a dashboard user's access token with the role `admin`.
       */
      list: (
        query: Query<"listSsoConnections"> = {},
      ): ListRequest<Schemas["SsoConnection"], Query<"listSsoConnections">> =>
        page((q) => raw.GET("/sso-connections", { params: { query: q } }), query),
    },
    /** OAuth 2.0 client-credentials clients of the calling organization in the caller's environment. */
    oauthClients: {
      /**
       * List OAuth clients.
       *
       * Lists the OAuth clients of the caller's organization in the caller's environment, revoked ones
       * included, ordered by `createdAt`, then `id`; never their secrets. A dashboard user's token needs
       * the role `admin`.
       */
      list: (query: Query<"listOAuthClients"> = {}): ListRequest<Schemas["OAuthClient"], Query<"listOAuthClients">> =>
        page((q) => raw.GET("/oauth-clients", { params: { query: q } }), query),
      /**
       * Create an OAuth client.
       *
       * Creates an OAuth client (client credentials, RFC 6749 §4.4) for the caller's organization in the
       * caller's environment. The response is the only one that carries `clientSecret`; only a hash is
       * kept. Scopes default to the caller's own; a credential cannot grant a scope it does not hold
       * (`403`). A dashboard user's token needs the role `admin`. The body is optional.
       */
      create: (oauthClient: Schemas["OAuthClientCreate"] = {}): Promise<Schemas["OAuthClientCreated"]> =>
        record(raw.POST("/oauth-clients", { body: oauthClient })),
      /**
       * Revoke an OAuth client.
       *
       * Revokes one of the caller's organization's OAuth clients (of the caller's environment) at once:
       * `/oauth/token` answers `invalid_client` and every token it was already issued is refused from
       * then on. The client stays listed with `revokedAt`; revoking it again is `204` too. An unknown
       * client, or one of another organization or environment, is `404`. A dashboard user's token needs
       * the role `admin`.
       */
      revoke: (id: string): Promise<void> => nothing(raw.DELETE("/oauth-clients/{id}", { params: { path: { id } } })),
    },
    /** The public transfer explorer's reads, without credential and limited per client address; institutions, catalogs, accepted rules in force and evaluations, named for students. */
    explorer: {
      /**
       * What the public explorer can show.
       *
       * The public transfer explorer's first question: how many institutions and `accepted` rules each
       * environment holds, and which environment the explorer opens on (`defaultEnvironment`: `live`,
       * unless live holds no accepted rule and the sandbox does, as on a fresh install).
       */
      environments: (): Promise<Schemas["ExplorerEnvironments"]> => body(raw.GET("/explorer/environments")),
      /**
       * Find institutions by name, city or state.
       *
       * The explorer's type-ahead: institutions of `environment` whose name or city contains `q`
       * (case-insensitively), ordered by `name`, then `id`. A last word of two letters after other words
       * is taken as a state code (`berkeley ca`); `state` filters explicitly. Public, without credential
       * (see `listExplorerEnvironments`).
       */
      institutions: (
        query: Query<"searchExplorerInstitutions"> = {},
      ): ListRequest<Schemas["Institution"], Query<"searchExplorerInstitutions">> =>
        page((q) => raw.GET("/explorer/institutions", { params: { query: q } }), query),
      /**
       * Search one institution's catalog.
       *
       * The courses of one institution (by institution id or IPEDS unit id) in `environment`, ordered by
       * `code`, then `id`; `q` keeps those whose code or title contains it (case-insensitively, spacing
       * aside). Public, without credential (see `listExplorerEnvironments`).
       */
      courses: (
        id: string,
        query: Query<"listExplorerCourses"> = {},
      ): ListRequest<Schemas["Course"], Query<"listExplorerCourses">> =>
        page((q) => raw.GET("/explorer/institutions/{id}/courses", { params: { path: { id }, query: q } }), query),
      /**
       * The transfer agreement between two institutions.
       *
       * Every `accepted` rule of `to` (the receiving institution) whose source courses are courses of
       * `from` (the sending institution) and that is in force today (UTC): its source courses (all of
       * them are needed) with codes, titles and credits, what it gives (targets with their titles and
       * credits, elective or general-education credit, or no credit), its conditions (minimum grade,
       * dates) and who decided it. `from` and `to` are institution ids or IPEDS unit ids. Ordered by the
       * first target's code (rules without a target last), then by source codes. Pending and contested
       * rules are never shown. Public, without credential (see `listExplorerEnvironments`); the data is
       * licensed CC BY 4.0.
       */
      agreement: (
        from: string,
        to: string,
        query: Query<"getExplorerAgreement"> = {},
      ): Promise<Schemas["ExplorerAgreement"]> =>
        record(raw.GET("/explorer/agreements/{from}/{to}", { params: { path: { from, to }, query } })),
      /**
       * Will my courses transfer? (public).
       *
       * `createTransferEvaluation` for the public: the courses given are courses of `from` (by
       * `courseId`, or by `code`; a code the catalog lacks may carry the `title` the student read),
       * evaluated against the `accepted` rules of `to` with the same rules and wording, and answered
       * with names: each result names its course, what it counts for and why (rules are named by their
       * courses, never by id), and the totals. A course of `from` that the catalog lacks is
       * `unknown_course`: nothing is awarded, and the reason says the catalog does not list it. Changes
       * nothing and stores nothing; an evaluation through the explorer counts no demand (`GET
       * /equivalency-requests`): an anonymous caller could otherwise inflate it. Public, without
       * credential (see `listExplorerEnvironments`).
       */
      transferEvaluations: (
        explorer: Schemas["ExplorerEvaluationRequest"],
        options: { environment?: Schemas["Environment"] } = {},
      ): Promise<Schemas["ExplorerEvaluation"]> =>
        record(
          raw.POST("/explorer/transfer-evaluations", {
            params: { query: { environment: options.environment } },
            body: explorer,
          }),
        ),
    },
  };
}
// @generated end

export type Resources = ReturnType<typeof resources>;
