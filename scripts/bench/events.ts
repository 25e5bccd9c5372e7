// Change feed benchmark: events per second to a Server-Sent Events consumer of
// GET /events/stream and the latency from an event's commit to its arrival there, beside the same
// two figures for a webhook receiver fed by the dispatcher, in the same run on the same events.
// Usage: npm run -s bench:events [-- --database-url postgresql://… --events 3000 --latency-events 200]
import { parseArgs } from "node:util";
import { createLogger } from "../../src/kernel/logger.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { Dispatcher } from "../../src/webhooks/dispatcher.ts";
import { type Arrivals, emitCourseEvents, registerEndpoint, startReceiver } from "./webhook-fixtures.ts";
import {
  createCredential,
  fixed,
  freshDatabase,
  machine,
  onInterrupt,
  percentile,
  printTable,
  runBench,
  startServer,
} from "./harness.ts";

const CONCURRENCY = 16;
const DEADLINE_MS = 300_000;
const LATENCY_GAP_MS = 10;

function options() {
  const { values } = parseArgs({
    options: {
      "database-url": { type: "string" },
      events: { type: "string", default: "3000" },
      "latency-events": { type: "string", default: "200" },
    },
    strict: true,
  });
  return {
    databaseUrl: values["database-url"] ?? null,
    events: Number(values.events),
    latencyEvents: Number(values["latency-events"]),
  };
}

/** A stream consumer: reads GET /events/stream and notes when each event's message arrived. */
function consumeStream(url: string, key: string, arrivals: Arrivals): { close(): void; done: Promise<void> } {
  const abort = new AbortController();
  const done = (async () => {
    const response = await fetch(url, {
      headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" },
      signal: abort.signal,
    });
    if (!response.ok) throw new Error(`the stream was refused: ${response.status} ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .find((line) => line.startsWith("data: "));
        if (data) {
          const id = (JSON.parse(data.slice(6)) as { id: string }).id;
          if (!arrivals.has(id)) arrivals.set(id, performance.now());
        }
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
      }
    }
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  return { close: () => abort.abort(), done };
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function main() {
  const settings = options();
  const bench = await freshDatabase({ databaseUrl: settings.databaseUrl });
  const server = await startServer(bench);
  const streamArrivals: Arrivals = new Map();
  const hookArrivals: Arrivals = new Map();
  const receiver = await startReceiver(hookArrivals);
  const secrets = openKeyring(bench.config).box;
  const dispatcher = new Dispatcher({
    deliveries: repositoriesOf(bench.database).deliveries,
    settings: { ...bench.config.webhooks, allowPrivateTargets: true },
    log: createLogger("warn"),
    secrets,
    pollIntervalMs: 250,
    concurrency: CONCURRENCY,
  });
  let stream: ReturnType<typeof consumeStream> | null = null;
  const cleanup = async () => {
    stream?.close();
    await dispatcher.stop();
    await receiver.close();
    await server.close();
    await bench.dispose();
  };
  onInterrupt(cleanup);
  try {
    const { organizationId, key } = await createCredential(bench.database);
    await registerEndpoint(bench.database, organizationId, receiver.url, secrets);
    const emit = async (count: number) => {
      const events = await emitCourseEvents(bench.database, count);
      const committed = performance.now();
      // As the server does after a write: the dispatcher and this process's streams look now.
      dispatcher.wake();
      server.app.context.services.events.wake();
      return { events, committed };
    };
    const streamUrl = `${server.origin}/api/v1/events/stream`;
    const startCursor = async () => {
      const response = await fetch(`${server.origin}/api/v1/events?limit=1`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      return ((await response.json()) as { pagination: { nextCursor: string } }).pagination.nextCursor;
    };

    // Throughput: a backlog of committed events, read by a stream from before it and drained by
    // the dispatcher, both started at once.
    const before = await startCursor();
    for (let i = 0; i < settings.events; i += 500) await emit(Math.min(500, settings.events - i));
    const started = performance.now();
    stream = consumeStream(`${streamUrl}?after=${encodeURIComponent(before)}`, key, streamArrivals);
    dispatcher.start();
    await waitUntil(() => streamArrivals.size >= settings.events, "the stream to read the backlog");
    const streamRate = settings.events / ((performance.now() - started) / 1000);
    await waitUntil(() => hookArrivals.size >= settings.events, "the webhooks to drain the backlog");
    const hookRate = settings.events / ((performance.now() - started) / 1000);

    // Latency: events committed one at a time, the next once the previous reached both consumers.
    const committedAt = new Map<string, number>();
    for (let i = 0; i < settings.latencyEvents; i += 1) {
      const { events, committed } = await emit(1);
      const [event] = events;
      committedAt.set(event.id, committed);
      await waitUntil(() => streamArrivals.has(event.id) && hookArrivals.has(event.id), "a latency event");
      await new Promise((resolve) => setTimeout(resolve, LATENCY_GAP_MS));
    }
    const latencies = (arrivals: Arrivals) =>
      [...committedAt].map(([eventId, at]) => arrivals.get(eventId)! - at).sort((a, b) => a - b);
    const streamLatency = latencies(streamArrivals);
    const hookLatency = latencies(hookArrivals);

    console.log(`Change feed benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `${settings.events} backlog events read by one stream and delivered to one webhook endpoint (dispatcher concurrency ${CONCURRENCY}); ${settings.latencyEvents} events committed one by one, ${LATENCY_GAP_MS} ms apart\n`,
    );
    printTable(
      ["measure", "stream (GET /events/stream)", "webhook receiver"],
      [
        ["events per second (backlog)", `${fixed(streamRate, 0)} /s`, `${fixed(hookRate, 0)} /s`],
        [
          "commit → receipt, p50",
          `${fixed(percentile(streamLatency, 50))} ms`,
          `${fixed(percentile(hookLatency, 50))} ms`,
        ],
        [
          "commit → receipt, p99",
          `${fixed(percentile(streamLatency, 99))} ms`,
          `${fixed(percentile(hookLatency, 99))} ms`,
        ],
      ],
    );
  } finally {
    await cleanup();
  }
}

runBench(main);
