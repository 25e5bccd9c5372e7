// The change feed under concurrent writers: 8 writers commit 2,000 events while a
// consumer polls GET /events and another process streams GET /events/stream. Each consumer must
// see every event exactly once, in commit order: when one write request had returned (committed)
// before another began, all of the first's events come before any of the second's.
import { expect } from "chai";
import supertest from "supertest";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { envelopesOf, readStream } from "../helpers/sse.ts";

const WRITERS = 8;
const REQUESTS_PER_WRITER = 25;
const COURSES_PER_WRITER = 10;
const TOTAL = WRITERS * REQUESTS_PER_WRITER * COURSES_PER_WRITER;

interface WriteRequest {
  /** Ticks of one counter taken when the request was sent and when its answer came. */
  began: number;
  ended: number;
  /** `<courseId> <version>` of each event it caused. */
  events: string[];
}

type Envelope = { id: string; type: string; data: { courseId: string; version: number } };

const courseOf = (writer: number, index: number) => ({
  institutionId: "inst_122977",
  code: `W${writer} ${index}`,
  title: `Writer ${writer} course ${index}`,
  credits: 3,
  level: "lower",
});

/** Fails unless the consumer saw each event once, and no event before one committed earlier. */
function expectExactlyOnceInCommitOrder(seen: Envelope[], requests: WriteRequest[], allIds: Set<string>) {
  expect(seen).to.have.length(TOTAL);
  expect(new Set(seen.map((e) => e.id))).to.deep.equal(allIds);
  const index = new Map(seen.map((e, i) => [`${e.data.courseId} ${e.data.version}`, i]));
  const spans = requests.map((request) => {
    const positions = request.events.map((key) => index.get(key)!);
    return { ...request, first: Math.min(...positions), last: Math.max(...positions) };
  });
  const byEnd = [...spans].sort((a, b) => a.ended - b.ended);
  for (const later of spans) {
    for (const earlier of byEnd) {
      if (earlier.ended >= later.began) break;
      expect(earlier.last, "an event committed earlier was seen after a later one").to.be.below(later.first);
    }
  }
}

describe("event feed: 8 concurrent writers, a polling consumer and a stream consumer in another process", () => {
  let t: TestApp;

  before(async () => {
    const unlimited = { SVC_RATE_LIMIT_BURST: "1000000", SVC_RATE_LIMIT_ORG_BURST: "1000000" };
    t = await createTestApp({ ...unlimited, SVC_EVENTS_POLL_MS: "50" });
    await loadInstitutions(t.database.prisma, "live");
  });
  after(() => t.close());

  it("listEvents and streamEvents each deliver all 2,000 events exactly once, in commit order", async () => {
    for (let writer = 0; writer < WRITERS; writer++) {
      const courses = Array.from({ length: COURSES_PER_WRITER }, (_, i) => courseOf(writer, i));
      const created = await t.http.post("/api/v1/courses").set(bearer(t.keys.live)).send(courses);
      expect(created.status).to.equal(201);
    }
    const start = (await t.http.get("/api/v1/events").set(bearer(t.keys.live))).body.pagination.nextCursor as string;
    expect((await t.http.get("/api/v1/events").set(bearer(t.keys.live))).body.data).to.deep.equal([]);

    // Another API process over the same database streams the feed.
    const other = await createApp({
      config: t.config,
      database: t.database,
      log: createLogger("silent"),
      secrets: t.secrets,
    });
    const streamed = readStream(
      { http: supertest(other.koa.callback()) },
      other,
      `/api/v1/events/stream?after=${encodeURIComponent(start)}`,
      { ...bearer(t.keys.live), Accept: "text/event-stream" },
      (messages) => envelopesOf(messages).length >= TOTAL,
    );

    let tick = 0;
    const requests: WriteRequest[] = [];
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let round = 1; round <= REQUESTS_PER_WRITER; round++) {
        const courses = Array.from({ length: COURSES_PER_WRITER }, (_, i) => ({
          ...courseOf(writer, i),
          title: `Writer ${writer} course ${i}, round ${round}`,
        }));
        const began = tick++;
        const response = await t.http.post("/api/v1/courses").set(bearer(t.keys.live)).send(courses);
        const ended = tick++;
        expect(response.status, JSON.stringify(response.body)).to.equal(201);
        const events = response.body.data.map((r: { id: string; version: number }) => `${r.id} ${r.version}`);
        requests.push({ began, ended, events });
      }
    });

    // The polling consumer follows nextCursor while the writers write.
    const polled: Envelope[] = [];
    const polling = (async () => {
      let cursor = start;
      while (polled.length < TOTAL) {
        // Read before the request: once every write had returned, an empty page means events were lost.
        const writesPending = writing;
        const page = await t.http
          .get(`/api/v1/events?limit=100&after=${encodeURIComponent(cursor)}`)
          .set(bearer(t.keys.live));
        expect(page.status, JSON.stringify(page.body)).to.equal(200);
        polled.push(...page.body.data);
        cursor = page.body.pagination.nextCursor;
        if (!page.body.data.length && !writesPending) expect.fail(`the feed ended after ${polled.length} events`);
        if (!page.body.data.length) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    await Promise.all(writers);
    writing = false;
    await polling;
    const { messages } = await streamed;
    await other.close();

    const allIds = new Set(
      (await t.database.prisma.outboxEvent.findMany({ select: { id: true } })).map((event) => event.id),
    );
    expect(allIds.size).to.equal(TOTAL);
    expectExactlyOnceInCommitOrder(polled, requests, allIds);
    expectExactlyOnceInCommitOrder(envelopesOf(messages) as Envelope[], requests, allIds);
  });
});
