// Requests answered, counted and timed per (operation, status) without allocating on the hot path:
// each pair gets its counters once, in plain arrays, and a request only adds to them. Prometheus
// reads them through two metric objects of the registry (svc_http_requests_total and
// svc_http_request_duration_seconds) that render, when scraped, exactly what prom-client's
// Counter and Histogram would for the same observations (test/unit/request-stats.test.ts), so the
// cluster's AggregatorRegistry sums them across workers as before.

/** One (operation, status) pair's counters. */
interface Tally {
  labels: { operation: string; status: string };
  count: number;
  sum: number;
  /** Observations at or below each bound (not cumulative; cumulated when rendered). */
  buckets: Float64Array;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

interface MetricData {
  name: string;
  help: string;
  type: "counter" | "histogram";
  values: MetricValue[];
  aggregator: "sum";
}

/** What prom-client's registry asks of a metric object. */
export interface RegistryMetric {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  get(): Promise<MetricData>;
  reset(): void;
}

export class RequestStats {
  private readonly byOperation = new Map<string, Map<number, Tally>>();

  constructor(readonly bounds: readonly number[]) {}

  record(operation: string, status: number, seconds: number): void {
    let byStatus = this.byOperation.get(operation);
    if (!byStatus) {
      byStatus = new Map();
      this.byOperation.set(operation, byStatus);
    }
    let tally = byStatus.get(status);
    if (!tally) {
      tally = {
        labels: { operation, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Float64Array(this.bounds.length),
      };
      byStatus.set(status, tally);
    }
    tally.count += 1;
    tally.sum += seconds;
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]) {
        tally.buckets[i] += 1;
        break;
      }
    }
  }

  reset(): void {
    this.byOperation.clear();
  }

  private *tallies(): Generator<Tally> {
    for (const byStatus of this.byOperation.values()) yield* byStatus.values();
  }

  /** The counter's form: one value per pair. */
  counter(name: string, help: string): RegistryMetric {
    return {
      name,
      help,
      type: "counter",
      aggregator: "sum",
      get: async () => ({
        name,
        help,
        type: "counter",
        aggregator: "sum",
        values: [...this.tallies()].map((tally) => ({ labels: tally.labels, value: tally.count })),
      }),
      reset: () => this.reset(),
    };
  }

  /** The histogram's form: cumulative buckets, +Inf, sum and count per pair. */
  histogram(name: string, help: string): RegistryMetric {
    return {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: async () => ({
        name,
        help,
        type: "histogram",
        aggregator: "sum",
        values: [...this.tallies()].flatMap((tally) => {
          let cumulative = 0;
          const buckets = this.bounds.map((bound, i) => {
            cumulative += tally.buckets[i];
            return { labels: { le: bound, ...tally.labels }, value: cumulative, metricName: `${name}_bucket` };
          });
          return [
            ...buckets,
            { labels: { le: "+Inf", ...tally.labels }, value: tally.count, metricName: `${name}_bucket` },
            { labels: tally.labels, value: tally.sum, metricName: `${name}_sum` },
            { labels: tally.labels, value: tally.count, metricName: `${name}_count` },
          ];
        }),
      }),
      reset: () => this.reset(),
    };
  }
}
