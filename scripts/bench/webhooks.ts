// Webhook delivery benchmark: deliveries per second to a local receiver, and
// the latency from an event's commit to its first attempt's arrival, beside the
// receiver's own capacity under the same HTTP client (the baseline).
// Usage: npm run -s bench:webhooks [-- --database-url postgresql://…]
import { createLogger } from "../../src/kernel/logger.ts";
import { Dispatcher } from "../../src/webhooks/dispatcher.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { sendDelivery } from "../../src/webhooks/sender.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import { emitCourseEvents, registerEndpoint, startReceiver } from "./webhook-fixtures.ts";
import {
  createCredential,
  fixed,
  freshDatabase,
  machine,
  onInterrupt,
  percentile,
  printTable,
  readOptions,
} from "./harness.ts";

const THROUGHPUT_EVENTS = 3000;
const LATENCY_EVENTS = 200;
const LATENCY_GAP_MS = 10;
const CONCURRENCY = 16;
const DEADLINE_MS = 120_000;

/** What the receiver takes, sent by the dispatcher's own client with the same concurrency. */
async function baseline(url: string, count: number): Promise<number> {
  const body = JSON.stringify({
    id: "evt_baseline",
    type: "course.updated",
    created: new Date().toISOString(),
    data: {},
  });
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      next += 1;
      await sendDelivery({ url, body, headers: {}, timeoutMs: 5000, allowPrivateTargets: true });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return count / ((performance.now() - started) / 1000);
}

async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function main() {
  const bench = await freshDatabase(readOptions());
  const receiver = await startReceiver();
  const settings = { ...bench.config.webhooks, allowPrivateTargets: true };
  const secrets = openKeyring(bench.config).box;
  const dispatcher = new Dispatcher({
    deliveries: repositoriesOf(bench.database).deliveries,
    settings,
    log: createLogger("warn"),
    secrets,
    pollIntervalMs: 250,
    concurrency: CONCURRENCY,
  });
  const cleanup = async () => {
    await dispatcher.stop();
    await receiver.close();
    await bench.dispose();
  };
  onInterrupt(cleanup);
  try {
    const { organizationId } = await createCredential(bench.database);
    await registerEndpoint(bench.database, organizationId, receiver.url, secrets);
    const emit = (count: number) => emitCourseEvents(bench.database, count);

    const capacity = await baseline(receiver.url, 3000);
    receiver.arrivals.clear();

    // Throughput: a backlog of committed events, drained by a running dispatcher.
    for (let i = 0; i < THROUGHPUT_EVENTS; i += 500) await emit(500);
    const started = performance.now();
    dispatcher.start();
    await waitUntil(() => receiver.arrivals.size >= THROUGHPUT_EVENTS, "the backlog to drain");
    const rate = THROUGHPUT_EVENTS / ((performance.now() - started) / 1000);
    receiver.arrivals.clear();

    // Latency: events committed one at a time (the next after the previous arrived), the
    // dispatcher woken after each commit as the server does after a write.
    const committedAt = new Map<string, number>();
    for (let i = 0; i < LATENCY_EVENTS; i += 1) {
      const [event] = await emit(1);
      committedAt.set(event.id, performance.now());
      dispatcher.wake();
      await waitUntil(() => receiver.arrivals.has(event.id), "a latency event");
      await new Promise((resolve) => setTimeout(resolve, LATENCY_GAP_MS));
    }
    const latencies = [...committedAt].map(([id, at]) => receiver.arrivals.get(id)! - at).sort((a, b) => a - b);

    console.log(`Webhook delivery benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `concurrency ${CONCURRENCY}; ${THROUGHPUT_EVENTS} backlog events; ${LATENCY_EVENTS} events committed one by one, ${LATENCY_GAP_MS} ms apart\n`,
    );
    printTable(
      ["measure", "value", "goal"],
      [
        ["receiver capacity, same client (baseline)", `${fixed(capacity, 0)} req/s`, ""],
        ["deliveries per second (backlog drained)", `${fixed(rate, 0)} /s`, "≥ 500 /s"],
        ["ratio to baseline", `${fixed((rate / capacity) * 100, 0)} %`, ""],
        ["commit → first attempt, p50", `${fixed(percentile(latencies, 50))} ms`, "< 100 ms"],
        ["commit → first attempt, p99", `${fixed(percentile(latencies, 99))} ms`, ""],
      ],
    );
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
