// Prometheus metrics (prom-client), in prom-client's global registry: what each
// process serves on SVC_METRICS_PORT, and what the cluster's primary collects
// from its workers (AggregatorRegistry) and serves summed. Each metric says how
// the workers' values combine: counters and histograms add up; the outbox
// backlog, the same database seen from every worker, takes the largest.
import client from "prom-client";
import { RequestStats } from "./request-stats.ts";

export const registry = client.register;

/**
 * The metric of that name if this process has one already, else a new one: the
 * registry is global to the process, and a module instance loaded a second
 * time (tsx loads a file once as CommonJS and once as ESM when both ask for it,
 * as mocha's hooks and the test files do) must not register its metrics again.
 */
function metric<T>(name: string, create: (name: string) => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create(name);
}

let defaultsCollected = false;
/** Process metrics (resident memory, CPU, event-loop lag, heap), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  client.collectDefaultMetrics({ register: registry });
}

/** svc_http_request_duration_seconds's buckets, in seconds. */
export const REQUEST_DURATION_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Requests answered (svc_http_requests_total) and their durations (svc_http_request_duration_seconds),
 * by operationId (or the route outside the contract) and status: recorded without allocating
 * (request-stats.ts), read by the registry when scraped.
 */
export const requestStats: RequestStats = (() => {
  const registered = registry.getSingleMetric("svc_http_requests_total") as { stats?: RequestStats } | undefined;
  if (registered?.stats) return registered.stats;
  const stats = new RequestStats(REQUEST_DURATION_BUCKETS);
  const requests = stats.counter(
    "svc_http_requests_total",
    "HTTP requests answered, by operationId (or operational route) and status",
  );
  registry.registerMetric(Object.assign(requests, { stats }) as never);
  registry.registerMetric(
    stats.histogram(
      "svc_http_request_duration_seconds",
      "Time from receiving a request to its handler's answer (streamed bodies not included), by operationId and status",
    ) as never,
  );
  return stats;
})();

export const rateLimitRejections = metric(
  "svc_rate_limit_rejections_total",
  (name) =>
    new client.Counter({
      name,
      help: "Requests answered 429, by the bucket that was empty",
      labelNames: ["bucket"] as const,
    }),
);

export const webhookAttempts = metric(
  "svc_webhook_delivery_attempts_total",
  (name) =>
    new client.Counter({
      name,
      help: "Webhook delivery attempts by outcome (succeeded, retrying, failed, lost_lease, error)",
      labelNames: ["outcome"] as const,
    }),
);

/** Event streams (GET /events/stream) open in this process; the cluster's primary sums them. */
export const eventStreamsOpen = metric(
  "svc_event_streams_open",
  (name) => new client.Gauge({ name, help: "Event streams (GET /events/stream) open now", aggregator: "sum" }),
);

export const eventStreamEvents = metric(
  "svc_event_stream_events_sent_total",
  (name) => new client.Counter({ name, help: "Events sent on event streams (GET /events/stream)" }),
);

export const eventStreamsRefused = metric(
  "svc_event_streams_refused_total",
  (name) =>
    new client.Counter({
      name,
      help: "Event streams refused because the organization held as many as allowed (429 too-many-streams)",
    }),
);

/** What a process can report about its database; several apps may share a process (tests). */
export interface DatabaseGaugeSource {
  poolStats(): { total: number; idle: number; waiting: number; max: number } | null;
  /** Events not yet fanned out to deliveries, and the age of the oldest. */
  outboxBacklog(): Promise<{ pending: number; oldestAgeSeconds: number }>;
}

// Kept on the process, like the registry, so that a second instance of this module feeds the same gauges.
const SOURCES = Symbol.for("course-equivalency.metrics.database-sources");
const processGlobals = globalThis as { [SOURCES]?: Set<DatabaseGaugeSource> };
processGlobals[SOURCES] ??= new Set<DatabaseGaugeSource>();
const sources = processGlobals[SOURCES];

/** Reports this source's database in the gauges below until the answered function is called. */
export function registerDatabaseGauges(source: DatabaseGaugeSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

metric(
  "svc_db_pool_connections",
  (name) =>
    new client.Gauge({
      name,
      help: "PostgreSQL connection pool: connections open (total), idle, requests waiting for one, and the pool's size (max)",
      labelNames: ["state"] as const,
      collect() {
        this.reset();
        for (const source of sources) {
          const stats = source.poolStats();
          if (!stats) continue;
          for (const state of ["total", "idle", "waiting", "max"] as const) this.inc({ state }, stats[state]);
        }
      },
    }),
);

/** One reading per scrape serves both backlog gauges. */
let lastBacklogs: { at: number; readings: Promise<{ pending: number; oldestAgeSeconds: number }[]> } | null = null;

function backlogs() {
  const now = Date.now();
  if (lastBacklogs && now - lastBacklogs.at < 1_000) return lastBacklogs.readings;
  const unknown = { pending: Number.NaN, oldestAgeSeconds: Number.NaN };
  const readings = Promise.all([...sources].map((source) => source.outboxBacklog().catch(() => unknown)));
  lastBacklogs = { at: now, readings };
  return readings;
}

metric(
  "svc_outbox_pending_events",
  (name) =>
    new client.Gauge({
      name,
      help: "Committed events not yet fanned out to webhook deliveries (NaN when the database did not answer)",
      aggregator: "max",
      async collect() {
        const readings = await backlogs();
        this.set(readings.length ? Math.max(...readings.map((r) => r.pending)) : 0);
      },
    }),
);

metric(
  "svc_outbox_oldest_pending_age_seconds",
  (name) =>
    new client.Gauge({
      name,
      help: "Age of the oldest event not yet fanned out (0 when none; NaN when the database did not answer)",
      aggregator: "max",
      async collect() {
        const readings = await backlogs();
        this.set(readings.length ? Math.max(...readings.map((r) => r.oldestAgeSeconds)) : 0);
      },
    }),
);

/** A bucket's subject ("for this organization in live") as a short label. */
export function bucketLabel(subject: string): string {
  if (subject.startsWith("for this organization")) return "organization";
  if (subject === "for this credential") return "credential";
  if (subject === "for this key from this address") return "public_key_address";
  if (subject === "for tokens from this address") return "token_endpoint";
  if (subject.includes("failed authentication")) return "auth_failures";
  return "other";
}
