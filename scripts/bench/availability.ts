// The availability scenario of scripts/bench/reads.ts: how long /healthz takes
// to answer while one client downloads the whole equivalency export as CSV, two
// clients page at a deep offset and two more page by cursor from the same depth,
// against the same probe with no load in the same run. Probes are sent on a fixed schedule (20 a second), not one after the
// other, so that a stalled server cannot hide its stall by delaying the probes.
import { fixed, percentile } from "./harness.ts";

const PROBE_INTERVAL_MS = 50;
/** A probe unanswered after this long counts as this long (and as a timeout). */
const PROBE_TIMEOUT_MS = 10_000;
const DEEP_OFFSET = 500_000;
const DEEP_PAGERS = 2;
const CURSOR_PAGERS = 2;

export interface HealthLatency {
  probes: number;
  p50: number;
  p99: number;
  max: number;
  timeouts: number;
}

export interface LoadDone {
  exportBytes: number;
  exportsCompleted: number;
  deepPages: number;
  cursorPages: number;
  failures: number;
}

async function probe(url: string): Promise<number> {
  const started = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
    return performance.now() - started;
  } catch (error) {
    if ((error as Error).name === "TimeoutError") return PROBE_TIMEOUT_MS;
    throw error;
  }
}

export async function healthLatency(origin: string, seconds: number): Promise<HealthLatency> {
  const count = Math.round((seconds * 1000) / PROBE_INTERVAL_MS);
  const started = performance.now();
  const probes = Array.from({ length: count }, async (_, i) => {
    const due = started + i * PROBE_INTERVAL_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    return probe(`${origin}/healthz`);
  });
  const latencies = (await Promise.all(probes)).sort((a, b) => a - b);
  return {
    probes: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1],
    timeouts: latencies.filter((ms) => ms >= PROBE_TIMEOUT_MS).length,
  };
}

/** Runs `client` again and again until stopped; returns what the loop counted. */
function loop(stop: AbortSignal, client: () => Promise<void>): Promise<void> {
  return (async () => {
    while (!stop.aborted) await client();
  })();
}

/** Measures /healthz while the export and the deep pagers run. */
export async function healthUnderLoad(
  origin: string,
  key: string,
  seconds: number,
): Promise<{ latency: HealthLatency; load: LoadDone }> {
  const headers = { Authorization: `Bearer ${key}` };
  const stop = new AbortController();
  const done: LoadDone = { exportBytes: 0, exportsCompleted: 0, deepPages: 0, cursorPages: 0, failures: 0 };
  const failed = (error: Error) => {
    if (error.name !== "AbortError") done.failures++;
  };
  const exporter = loop(stop.signal, async () => {
    const response = await fetch(`${origin}/api/v1/exports?resource=equivalencies&format=csv`, {
      headers,
      signal: stop.signal,
    });
    if (!response.ok || !response.body) throw new Error(`the export answered ${response.status}`);
    for await (const chunk of response.body) done.exportBytes += chunk.length;
    done.exportsCompleted++;
  }).catch(failed);
  const pagers = Array.from({ length: DEEP_PAGERS }, () =>
    loop(stop.signal, async () => {
      const response = await fetch(`${origin}/api/v1/equivalencies?status=accepted&limit=100&offset=${DEEP_OFFSET}`, {
        headers,
        signal: stop.signal,
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`a deep page answered ${response.status}`);
      done.deepPages++;
    }).catch(failed),
  );
  // Cursor pagers: each starts at depth DEEP_OFFSET and walks on by nextCursor (back to the depth at the end).
  const deep = `${origin}/api/v1/equivalencies?status=accepted&limit=1&offset=${DEEP_OFFSET - 1}`;
  const start = ((await (await fetch(deep, { headers })).json()) as { pagination: { nextCursor: string } }).pagination
    .nextCursor;
  const cursorPagers = Array.from({ length: CURSOR_PAGERS }, () => {
    let cursor: string | null = start;
    return loop(stop.signal, async () => {
      const response = await fetch(
        `${origin}/api/v1/equivalencies?status=accepted&limit=100&after=${encodeURIComponent(cursor ?? start)}`,
        { headers, signal: stop.signal },
      );
      const body = (await response.json()) as { pagination: { nextCursor: string | null } };
      if (!response.ok) throw new Error(`a cursor page answered ${response.status}`);
      cursor = body.pagination.nextCursor;
      done.cursorPages++;
    }).catch(failed);
  });
  try {
    // Let the load get going (the export's first batch, the first deep pages) before probing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const latency = await healthLatency(origin, seconds);
    return { latency, load: done };
  } finally {
    stop.abort();
    await Promise.all([exporter, ...pagers, ...cursorPagers]);
  }
}

export function describeLatency(latency: HealthLatency): string[] {
  return [
    String(latency.probes),
    fixed(latency.p50, 1),
    fixed(latency.p99, 1),
    fixed(latency.max, 0),
    String(latency.timeouts),
  ];
}
