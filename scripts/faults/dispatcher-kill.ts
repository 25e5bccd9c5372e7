// `npm run fault:dispatcher-kill`: two dispatchers (`npm run dispatcher` twice)
// deliver a burst of events; one is killed with SIGKILL in the middle of it.
// Checked: every committed event reaches the receiver at least once (the
// survivor takes over the dead one's deliveries when their leases expire), and
// no delivery is ever in flight twice at the same moment. Runs on a fresh
// database of the PostgreSQL server at --database-url (default the local one;
// this script only creates and drops its own database there).
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import pg from "pg";
import { check, prepare, SECRETS_KEY, sleep, TrackingReceiver } from "./support.ts";
import { portOf, request, spawnService, type ServiceProcess } from "../../test/helpers/processes.ts";

const { values } = parseArgs({
  options: { "database-url": { type: "string", default: "postgresql://postgres@127.0.0.1:5432/postgres" } },
});
const SERVER_URL = values["database-url"]!;
const COURSES = 300;

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function main() {
  const name = `svc_fault_kill_${crypto.randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const receiver = await new TrackingReceiver(50).start();
  const processes: ServiceProcess[] = [];
  try {
    const { key } = await prepare(databaseUrl, receiver.url);
    const common = { DATABASE_URL: databaseUrl, SVC_SECRETS_KEY: SECRETS_KEY, SVC_SEED_SANDBOX: "false" };
    const api = spawnService("src/main.ts", {
      ...common,
      PORT: "0",
      SVC_WEBHOOK_DISPATCHER: "off",
      SVC_RATE_LIMIT_BURST: "100000",
      SVC_RATE_LIMIT_ORG_BURST: "100000",
    });
    processes.push(api);
    const workers = [0, 1].map(() => spawnService("src/dispatcher.ts", { ...common, SVC_WEBHOOK_TIMEOUT_MS: "2000" }));
    processes.push(...workers);
    const [listening] = await Promise.all([
      api.waitForLog("listening", 300_000),
      ...workers.map((w) => w.waitForLog("webhook dispatcher running", 300_000)),
    ]);
    const base = `http://127.0.0.1:${portOf(listening)}/api/v1`;
    const auth = { Authorization: `Bearer ${key}` };
    const batch = (title: string, from: number) =>
      Array.from({ length: 50 }, (_, i) => ({
        institutionId: "inst_122977",
        code: `KILL ${from + i}`,
        title,
        credits: 3,
        level: "lower",
      }));
    // Create the courses (no events), then re-upsert them: one course.updated each.
    for (let from = 0; from < COURSES; from += 50)
      await request(`${base}/courses`, { method: "POST", headers: auth, body: batch("v1", from) });
    const answers = await Promise.all(
      Array.from({ length: COURSES / 50 }, (_, b) =>
        request(`${base}/courses`, { method: "POST", headers: auth, body: batch("v2", b * 50) }),
      ),
    );
    if (answers.some((a) => a.status !== 201)) throw new Error(`writes failed: ${answers.map((a) => a.status)}`);

    const deadline = Date.now() + 120_000;
    while (receiver.received.length < COURSES / 5 && Date.now() < deadline) await sleep(5);
    const atKill = receiver.received.length;
    console.log(`killing dispatcher ${workers[0].child.pid} with SIGKILL after ${atKill} of ${COURSES} deliveries`);
    await workers[0].kill("SIGKILL");
    while (receiver.eventIds().size < COURSES && Date.now() < deadline) await sleep(50);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const events = (await db.query<{ id: string }>("SELECT id FROM outbox_events WHERE type = 'course.updated'")).rows;
    await db.end();
    const missing = events.filter((e) => !receiver.eventIds().has(e.id));
    console.log(
      `${events.length} events committed; ${receiver.received.length} deliveries received, ` +
        `${receiver.eventIds().size} distinct events (${receiver.received.length - receiver.eventIds().size} sent again after the kill)`,
    );
    process.exitCode = check([
      { ok: atKill < COURSES, what: `the kill came in the middle of the burst (${atKill} delivered before it)` },
      { ok: missing.length === 0 && events.length === COURSES, what: "every event delivered at least once" },
      { ok: receiver.overlaps.length === 0, what: "no delivery in flight twice at the same moment" },
    ]);
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await receiver.close();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
