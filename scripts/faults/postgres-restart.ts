// `npm run fault:postgres-restart`: PostgreSQL is restarted under a steady
// load of writes. A private PostgreSQL server is started for this (never the
// machine's shared one), the service runs on it as `npm start` does (two API
// processes, the inline dispatcher), and writers keep re-upserting a course
// (course.updated events) and patching an equivalency with If-Match. After a
// few seconds the database is stopped (fast shutdown), left down, and started
// again. Checked:
//   - while it is down the service answers 503 problems (service-unavailable,
//     with Retry-After), never a 500, and /readyz says 503;
//   - it recovers by itself (no restart of the service) and writes succeed again;
//   - no committed change is lost: every acknowledged course and equivalency
//     version is in the database, and every committed event reached the receiver;
//   - no version number was acknowledged twice, and the stored history has no gap.
import { check, PrivatePostgres, prepare, SECRETS_KEY, sleep, TrackingReceiver } from "./support.ts";
import { portOf, request, spawnService } from "../../test/helpers/processes.ts";
import pg from "pg";

const LOAD_BEFORE_MS = 4_000;
const DOWN_MS = 6_000;
const LOAD_AFTER_MS = 8_000;
const WRITERS = 4;

async function main() {
  const postgres = await PrivatePostgres.create();
  const receiver = await new TrackingReceiver(5).start();
  const server = { current: null as ReturnType<typeof spawnService> | null };
  try {
    console.log(`private PostgreSQL on port ${postgres.port} (${postgres.dir})`);
    const { key } = await prepare(postgres.url, receiver.url);
    server.current = spawnService("src/main.ts", {
      DATABASE_URL: postgres.url,
      PORT: "0",
      SVC_CLUSTER_WORKERS: "2",
      SVC_SECRETS_KEY: SECRETS_KEY,
      SVC_SEED_SANDBOX: "false",
      SVC_RATE_LIMIT_BURST: "1000000",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: "100000",
      SVC_RATE_LIMIT_ORG_BURST: "1000000",
      SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "100000",
      SVC_WEBHOOK_RETRY_SCHEDULE: "1s,1s,2s,2s,5s,5s,10s",
    });
    const api = server.current;
    const base = `http://127.0.0.1:${portOf(await api.waitForLog("cluster listening", 300_000))}`;
    const auth = { Authorization: `Bearer ${key}` };
    const course = (title: string) => ({
      institutionId: "inst_122977",
      code: "FLT 1",
      title,
      credits: 3,
      level: "lower",
    });
    const created = await request(`${base}/api/v1/courses`, { method: "POST", headers: auth, body: course("v1") });
    const courseId = created.json<{ data: { id: string }[] }>().data[0].id;
    const target = await request(`${base}/api/v1/courses`, {
      method: "POST",
      headers: auth,
      body: { ...course("target"), institutionId: "inst_110635", code: "FLT T" },
    });
    const equivalency = await request(`${base}/api/v1/equivalencies`, {
      method: "POST",
      headers: auth,
      body: {
        sourceCourseId: courseId,
        targetInstitutionId: "inst_110635",
        targetCourseId: target.json<{ data: { id: string }[] }>().data[0].id,
      },
    });
    if (equivalency.status !== 201)
      throw new Error(`creating the equivalency: ${equivalency.status} ${equivalency.text}`);
    const equivalencyId = equivalency.json<{ data: { id: string } }>().data.id;

    const statuses = new Map<string, number>();
    const count = (phase: string, status: number) => {
      const k = `${phase} ${status}`;
      statuses.set(k, (statuses.get(k) ?? 0) + 1);
    };
    const ackedCourseVersions: number[] = [];
    const ackedEquivalencyVersions: number[] = [];
    const problemsWhileDown: string[] = [];
    let phase = "before";
    let running = true;
    const writer = async (n: number) => {
      for (let i = 0; running; i++) {
        try {
          if ((n + i) % 2 === 0) {
            const answer = await request(`${base}/api/v1/courses`, {
              method: "POST",
              headers: auth,
              body: course(`w${n}-${i}`),
              timeoutMs: 20_000,
            });
            count(phase, answer.status);
            if (answer.status === 201)
              ackedCourseVersions.push(answer.json<{ data: { version: number }[] }>().data[0].version);
            else if (phase === "down") problemsWhileDown.push(answer.headers["content-type"] ?? "");
          } else {
            const current = await request(`${base}/api/v1/equivalencies/${equivalencyId}`, { headers: auth });
            if (current.status !== 200) {
              count(phase, current.status);
              if (phase === "down") problemsWhileDown.push(current.headers["content-type"] ?? "");
              await sleep(100);
              continue;
            }
            const answer = await request(`${base}/api/v1/equivalencies/${equivalencyId}`, {
              method: "PATCH",
              headers: { ...auth, "If-Match": String(current.headers.etag) },
              body: { targetCode: `W${n}-${i}` },
              timeoutMs: 20_000,
            });
            count(phase, answer.status);
            if (answer.status === 200)
              ackedEquivalencyVersions.push(answer.json<{ data: { version: number } }>().data.version);
          }
        } catch {
          count(phase, 0);
          await sleep(100);
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, n) => writer(n));
    await sleep(LOAD_BEFORE_MS);
    console.log("stopping PostgreSQL");
    postgres.stop();
    phase = "down";
    await sleep(DOWN_MS / 2);
    const readyWhileDown = await request(`${base}/readyz`);
    await sleep(DOWN_MS / 2);
    console.log("starting PostgreSQL");
    postgres.start();
    phase = "after";
    await sleep(LOAD_AFTER_MS);
    running = false;
    await Promise.all(writers);
    const readyAfter = await request(`${base}/readyz`);

    // Every committed event reaches the receiver (the dispatcher retries what failed while the database was down).
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    // The endpoint subscribes to these two types; other events (equivalency.created) have no delivery.
    const events = (
      await db.query<{ id: string }>(
        "SELECT id FROM outbox_events WHERE type IN ('course.updated', 'equivalency.updated')",
      )
    ).rows.map((r) => r.id);
    const waitUntil = Date.now() + 60_000;
    while (events.some((id) => !receiver.eventIds().has(id)) && Date.now() < waitUntil) await sleep(250);
    const undelivered = events.filter((id) => !receiver.eventIds().has(id));
    for (const id of undelivered) {
      const outbox = await db.query(
        "SELECT sequence, type, created_at, dispatched_at FROM outbox_events WHERE id = $1",
        [id],
      );
      const rows = await db.query(
        "SELECT id, status, attempt, error, response_status, next_retry_at, lease_owner, lease_expires_at FROM webhook_deliveries WHERE event_id = $1",
        [id],
      );
      console.log("not delivered:", id, outbox.rows[0], rows.rows);
    }
    const courseRow = (await db.query<{ version: number }>("SELECT version FROM courses WHERE id = $1", [courseId]))
      .rows[0];
    const storedVersions = (
      await db.query<{ version: number }>(
        "SELECT version FROM equivalency_versions WHERE equivalency_id = $1 ORDER BY version",
        [equivalencyId],
      )
    ).rows.map((r) => r.version);
    const courseEvents = receiver.received
      .map((r) => JSON.parse(r.body) as { type: string; data: { courseId?: string; version?: number } })
      .filter((e) => e.type === "course.updated" && e.data.courseId === courseId)
      .map((e) => e.data.version!);
    await db.end();

    console.log("answers by phase and status:", Object.fromEntries([...statuses].sort()));
    console.log(
      `acknowledged: ${ackedCourseVersions.length} course versions, ${ackedEquivalencyVersions.length} equivalency versions; ` +
        `events: ${events.length} committed, ${receiver.received.length} received (${receiver.eventIds().size} distinct)`,
    );
    const unique = (list: number[]) => new Set(list).size === list.length;
    const contiguous = storedVersions.every((v, i) => v === i + 1);
    const code = check([
      { ok: (statuses.get("down 503") ?? 0) > 0, what: "503 answers while the database was down" },
      {
        ok: problemsWhileDown.every((type) => type.startsWith("application/problem+json")),
        what: "every answer while down was a problem document",
      },
      { ok: ![...statuses.keys()].some((k) => k.endsWith(" 500")), what: "no 500 at any time" },
      { ok: readyWhileDown.status === 503, what: `/readyz answered 503 while down (got ${readyWhileDown.status})` },
      { ok: readyAfter.status === 200, what: "/readyz answered 200 after the restart" },
      {
        ok: (statuses.get("after 201") ?? 0) + (statuses.get("after 200") ?? 0) > 0,
        what: "writes succeeded again after the restart, without restarting the service",
      },
      { ok: unique(ackedCourseVersions), what: "no course version acknowledged twice" },
      { ok: unique(ackedEquivalencyVersions), what: "no equivalency version acknowledged twice" },
      {
        ok: courseRow.version >= Math.max(1, ...ackedCourseVersions),
        what: `the course's stored version (${courseRow.version}) is at least every acknowledged one`,
      },
      {
        ok: ackedEquivalencyVersions.every((v) => storedVersions.includes(v)) && contiguous,
        what: `every acknowledged equivalency version is stored, history 1..${storedVersions.length} without a gap`,
      },
      {
        ok: ackedCourseVersions.filter((v) => v > 1).every((v) => courseEvents.includes(v)),
        what: "every acknowledged course update reached the receiver as course.updated",
      },
      { ok: undelivered.length === 0, what: `every committed event was delivered (${undelivered.length} not)` },
      { ok: receiver.overlaps.length === 0, what: "no delivery in flight twice at once" },
    ]);
    process.exitCode = code;
  } finally {
    await server.current?.stop();
    await receiver.close();
    postgres.dispose();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
