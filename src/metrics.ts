// Prometheus metrics (prom-client), in prom-client's global registry: what each
// process serves on SVC_METRICS_PORT, and what the cluster's primary collects
// from its workers (AggregatorRegistry) and serves summed. Each metric says how
// the workers' values combine: counters and histograms add up; the outbox
// backlog, the same database seen from every worker, takes the largest.
import client from "prom-client";

export const registry = client.register;

let defaultsCollected = false;
/** Process metrics (resident memory, CPU, event-loop lag, heap), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  client.collectDefaultMetrics({ register: registry });
}

export const httpRequests = new client.Counter({
  name: "svc_http_requests_total",
  help: "HTTP requests answered, by operationId (or operational route) and status",
  labelNames: ["operation", "status"] as const,
});

export const httpDuration = new client.Histogram({
  name: "svc_http_request_duration_seconds",
  help: "Time from receiving a request to its handler's answer (streamed bodies not included), by operationId and status",
  labelNames: ["operation", "status"] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

export const rateLimitRejections = new client.Counter({
  name: "svc_rate_limit_rejections_total",
  help: "Requests answered 429, by the bucket that was empty",
  labelNames: ["bucket"] as const,
});

export const webhookAttempts = new client.Counter({
  name: "svc_webhook_delivery_attempts_total",
  help: "Webhook delivery attempts by outcome (succeeded, retrying, failed, lost_lease, error)",
  labelNames: ["outcome"] as const,
});

/** What a process can report about its database; several apps may share a process (tests). */
export interface DatabaseGaugeSource {
  poolStats(): { total: number; idle: number; waiting: number; max: number } | null;
  /** Events not yet fanned out to deliveries, and the age of the oldest. */
  outboxBacklog(): Promise<{ pending: number; oldestAgeSeconds: number }>;
}

const sources = new Set<DatabaseGaugeSource>();

/** Reports this source's database in the gauges below until the answered function is called. */
export function registerDatabaseGauges(source: DatabaseGaugeSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

new client.Gauge({
  name: "svc_db_pool_connections",
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
});

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

new client.Gauge({
  name: "svc_outbox_pending_events",
  help: "Committed events not yet fanned out to webhook deliveries (NaN when the database did not answer)",
  aggregator: "max",
  async collect() {
    const readings = await backlogs();
    this.set(readings.length ? Math.max(...readings.map((r) => r.pending)) : 0);
  },
});

new client.Gauge({
  name: "svc_outbox_oldest_pending_age_seconds",
  help: "Age of the oldest event not yet fanned out (0 when none; NaN when the database did not answer)",
  aggregator: "max",
  async collect() {
    const readings = await backlogs();
    this.set(readings.length ? Math.max(...readings.map((r) => r.oldestAgeSeconds)) : 0);
  },
});

/** A bucket's subject ("for this organization in live") as a short label. */
export function bucketLabel(subject: string): string {
  if (subject.startsWith("for this organization")) return "organization";
  if (subject === "for this credential") return "credential";
  if (subject === "for this key from this address") return "public_key_address";
  if (subject === "for tokens from this address") return "token_endpoint";
  if (subject.includes("failed authentication")) return "auth_failures";
  return "other";
}
