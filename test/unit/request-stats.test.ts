// Request statistics are kept in plain counters (src/kernel/request-stats.ts) and rendered for
// Prometheus when scraped; what a scrape reads, and what the cluster's aggregation sums, must be
// exactly what prom-client's own Counter and Histogram give for the same requests.
import { expect } from "chai";
import client from "prom-client";
import { RequestStats } from "../../src/kernel/request-stats.ts";

const BOUNDS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const OBSERVATIONS: [string, number, number][] = [
  ["getEquivalency", 200, 0.0031],
  ["getEquivalency", 200, 0.002],
  ["getEquivalency", 404, 0.0012],
  ["GET /healthz", 200, 0.0004],
  ["upsertCourses", 201, 0.7],
  ["upsertCourses", 400, 12.5],
  ["getEquivalency", 200, 0.049],
];

function promClientRegistry(): client.Registry {
  const registry = new client.Registry();
  const counter = new client.Counter({
    name: "svc_http_requests_total",
    help: "requests",
    labelNames: ["operation", "status"],
    registers: [registry],
  });
  const histogram = new client.Histogram({
    name: "svc_http_request_duration_seconds",
    help: "durations",
    labelNames: ["operation", "status"],
    buckets: BOUNDS,
    registers: [registry],
  });
  for (const [operation, status, seconds] of OBSERVATIONS) {
    counter.inc({ operation, status: String(status) });
    histogram.observe({ operation, status: String(status) }, seconds);
  }
  return registry;
}

function statsRegistry(): client.Registry {
  const registry = new client.Registry();
  const stats = new RequestStats(BOUNDS);
  registry.registerMetric(stats.counter("svc_http_requests_total", "requests") as never);
  registry.registerMetric(stats.histogram("svc_http_request_duration_seconds", "durations") as never);
  for (const [operation, status, seconds] of OBSERVATIONS) stats.record(operation, status, seconds);
  return registry;
}

describe("request statistics: counted without allocating, scraped as prom-client renders them", () => {
  it("renders the same exposition text as prom-client's Counter and Histogram", async () => {
    expect(await statsRegistry().metrics()).to.equal(await promClientRegistry().metrics());
  });

  it("sums across workers as prom-client's own metrics do", async () => {
    const ours = await client.AggregatorRegistry.aggregate([
      await statsRegistry().getMetricsAsJSON(),
      await statsRegistry().getMetricsAsJSON(),
    ]).metrics();
    const theirs = await client.AggregatorRegistry.aggregate([
      await promClientRegistry().getMetricsAsJSON(),
      await promClientRegistry().getMetricsAsJSON(),
    ]).metrics();
    expect(ours).to.equal(theirs);
    expect(ours).to.contain('svc_http_requests_total{operation="getEquivalency",status="200"} 6');
  });
});
