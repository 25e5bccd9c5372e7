import { expect } from "chai";
import { createApp } from "../../src/app/app.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract } from "../helpers/contract.ts";
import { COURSES, loadInstitutions, postCourses } from "../helpers/fixtures.ts";
import { envelopesOf, readStream } from "../helpers/sse.ts";

const DAY_MS = 86_400_000;

/** Re-upserts CS 55 with a new title: one course.updated event each time. */
async function retitle(t: TestApp, title: string, key = t.keys.live) {
  const response = await t.http
    .post("/api/v1/courses")
    .set(bearer(key))
    .send({ ...COURSES["CS 55"], title });
  expect(response.status, JSON.stringify(response.body)).to.equal(201);
}

async function createEquivalency(t: TestApp, courses: Record<string, string>) {
  const response = await t.http.post("/api/v1/equivalencies").set(bearer(t.keys.live)).send({
    sourceCourseId: courses["CS 55"],
    targetInstitutionId: "inst_110635",
    targetCourseId: courses["CS 61B"],
  });
  expect(response.status, JSON.stringify(response.body)).to.equal(201);
  return response.body.data.id as string;
}

describe("events: the change feed (GET /events, GET /events/{id}, GET /events/stream)", () => {
  let t: TestApp;
  let courses: Record<string, string>;

  beforeEach(async () => {
    t = await createTestApp({ SVC_EVENTS_MAX_STREAMS_PER_ORGANIZATION: "2", SVC_EVENTS_KEEPALIVE_SECONDS: "1" });
    await loadInstitutions(t.database.prisma, "live");
    await loadInstitutions(t.database.prisma, "sandbox");
    courses = await postCourses(t, [COURSES["CS 55"], COURSES["CS 61B"]]);
  });
  afterEach(() => t.close());

  const list = (query = "", key = t.keys.live) => t.http.get(`/api/v1/events${query}`).set(bearer(key));

  describe("listEvents", () => {
    it("listEvents answers 200 with every event of the environment in commit order, each a webhook envelope", async () => {
      await retitle(t, "Java Programming I");
      const equivalencyId = await createEquivalency(t, courses);
      const patched = await t.http
        .patch(`/api/v1/equivalencies/${equivalencyId}`)
        .set(bearer(t.keys.live))
        .send({ status: "accepted", decidedBy: "Registrar" });
      expect(patched.status).to.equal(200);

      const response = await list();
      await expectContract(response, 200);
      expect(response.body.data.map((e: { type: string }) => e.type)).to.deep.equal([
        "course.updated",
        "equivalency.created",
        "equivalency.updated",
      ]);
      const outbox = await t.database.prisma.outboxEvent.findMany({ orderBy: { sequence: "asc" } });
      expect(response.body.data).to.deep.equal(outbox.map((row) => row.payload));
      expect(response.body.pagination).to.include({ total: 3, returned: 3, hasMore: false });
      expect(response.headers["x-total-count"]).to.equal("3");
      // The sandbox sees none of live's events.
      const sandbox = await list("", t.keys.sandbox);
      await expectContract(sandbox, 200);
      expect(sandbox.body.data).to.deep.equal([]);
    });

    it("listEvents pages by cursor, and the last page's cursor resumes with what was committed since", async () => {
      for (const title of ["A", "B", "C"]) await retitle(t, title);
      const first = await list("?limit=2");
      await expectContract(first, 200);
      expect(first.body.pagination).to.include({ returned: 2, hasMore: true });
      expect(first.headers.link).to.include('rel="next"');
      const second = await list(`?limit=2&after=${encodeURIComponent(first.body.pagination.nextCursor)}`);
      await expectContract(second, 200);
      expect(second.body.pagination).to.include({ returned: 1, hasMore: false });
      expect(second.body.data.map((e: { data: { version: number } }) => e.data.version)).to.deep.equal([4]);

      const caughtUp = second.body.pagination.nextCursor as string;
      const empty = await list(`?after=${encodeURIComponent(caughtUp)}`);
      await expectContract(empty, 200);
      expect(empty.body.data).to.deep.equal([]);
      // Cursors are encrypted with a fresh nonce: the empty page's is another text for the same place.
      const stillCaughtUp = empty.body.pagination.nextCursor as string;

      await retitle(t, "D");
      for (const cursor of [caughtUp, stillCaughtUp]) {
        const later = await list(`?after=${encodeURIComponent(cursor)}`);
        expect(later.body.data.map((e: { data: { version: number } }) => e.data.version)).to.deep.equal([5]);
      }
    });

    it("listEvents filters by repeated type and by since, and a filtered cursor resumes the whole feed", async () => {
      await retitle(t, "A");
      const equivalencyId = await createEquivalency(t, courses);
      const one = await list("?type=equivalency.created");
      await expectContract(one, 200);
      expect(one.body.data.map((e: { data: { equivalencyId: string } }) => e.data.equivalencyId)).to.deep.equal([
        equivalencyId,
      ]);
      const both = await list("?type=equivalency.created&type=course.updated");
      await expectContract(both, 200);
      expect(both.body.data).to.have.length(2);

      const future = await list(`?since=${encodeURIComponent(new Date(Date.now() + DAY_MS).toISOString())}`);
      await expectContract(future, 200);
      expect(future.body.data).to.deep.equal([]);
      const past = await list(`?since=${encodeURIComponent(new Date(Date.now() - DAY_MS).toISOString())}`);
      expect(past.body.data).to.have.length(2);

      await retitle(t, "B");
      const resumed = await list(`?after=${encodeURIComponent(one.body.pagination.nextCursor)}`);
      expect(resumed.body.data.map((e: { type: string }) => e.type)).to.deep.equal(["course.updated"]);
    });

    it("listEvents answers 400 (invalid-cursor) to a cursor of another list or another organization", async () => {
      const courseList = await t.http.get("/api/v1/courses?limit=1").set(bearer(t.keys.live));
      const foreign = await list(`?after=${encodeURIComponent(courseList.body.pagination.nextCursor)}`);
      await expectContract(foreign, 400);
      expect(foreign.body.type).to.match(/invalid-cursor$/);

      await retitle(t, "A");
      const mine = await list();
      const other = await t.otherOrganization("beta");
      const theirs = await list(`?after=${encodeURIComponent(mine.body.pagination.nextCursor)}`, other.key);
      await expectContract(theirs, 400);
      const badType = await list("?type=course.deleted");
      await expectContract(badType, 400);
    });

    it("listEvents: a sandbox cursor reveals nothing about live writes (encrypted positions), and earlier signed cursors still resume", async () => {
      const sandboxCursor = async () => (await list("", t.keys.sandbox)).body.pagination.nextCursor as string;
      const before = await sandboxCursor();
      for (const title of ["A", "B", "C"]) await retitle(t, title);
      const after = await sandboxCursor();
      // Nothing in the text decodes to a position: no signed JSON payload, and a fresh nonce each time.
      for (const cursor of [before, after]) {
        expect(cursor).not.to.include(".");
        expect(Buffer.from(cursor, "base64url").toString("latin1")).not.to.match(/\[\s*"?\d+"?\s*\]/);
      }
      expect(await sandboxCursor()).not.to.equal(after);
      // Either cursor resumes the sandbox's feed, which has nothing new.
      for (const cursor of [before, after]) {
        const page = await list(`?after=${encodeURIComponent(cursor)}`, t.keys.sandbox);
        await expectContract(page, 200);
        expect(page.body.data).to.deep.equal([]);
      }
      // Altered, it is refused; the live feed does not open it either.
      const altered = `${after.slice(0, 20)}${after[20] === "A" ? "B" : "A"}${after.slice(21)}`;
      await expectContract(await list(`?after=${encodeURIComponent(altered)}`, t.keys.sandbox), 400);
      await expectContract(await list(`?after=${encodeURIComponent(after)}`), 400);
      // A signed cursor handed out before feed cursors were encrypted still resumes where it stood.
      const scope = JSON.stringify(["/events", "live", t.organizationId]);
      const legacy = t.app.context.services.cursors.seal(scope, ["0"]);
      const resumed = await list(`?after=${encodeURIComponent(legacy)}`);
      await expectContract(resumed, 200);
      expect(resumed.body.data.map((e: { type: string }) => e.type)).to.deep.equal([
        "course.updated",
        "course.updated",
        "course.updated",
      ]);
    });

    it("listEvents answers 410 (cursor-expired) to a cursor or since older than the events kept", async () => {
      await retitle(t, "A");
      const start = await list();
      expect(start.body.data).to.have.length(1);
      await retitle(t, "B");
      const end = (await list()).body.pagination.nextCursor as string;
      // Both events fanned out to webhooks long ago, then the retention passes.
      await t.database.prisma.outboxEvent.updateMany({ data: { dispatchedAt: new Date() } });
      const removed = await t.app.context.services.events.pruneExpiredEvents(new Date(Date.now() + 31 * DAY_MS));
      expect(removed).to.equal(2);

      const expired = await list(`?after=${encodeURIComponent(start.body.pagination.nextCursor)}`);
      await expectContract(expired, 410);
      expect(expired.body.type).to.match(/cursor-expired$/);
      expect(expired.body.detail).to.match(/export/);
      const expiredSince = await list(`?since=${encodeURIComponent(new Date(Date.now() - DAY_MS).toISOString())}`);
      await expectContract(expiredSince, 410);
      // A cursor at the end of the feed lost nothing: it still reads what comes next.
      await retitle(t, "C");
      const current = await list(`?after=${encodeURIComponent(end)}`);
      await expectContract(current, 200);
      expect(current.body.data.map((e: { data: { version: number } }) => e.data.version)).to.deep.equal([4]);
    });
  });

  describe("getEvent", () => {
    it("getEvent answers 200 with the envelope of one event, and 404 for another environment's", async () => {
      await retitle(t, "A");
      const [event] = (await list()).body.data;
      const response = await t.http.get(`/api/v1/events/${event.id}`).set(bearer(t.keys.live));
      await expectContract(response, 200);
      expect(response.body.data).to.deep.equal(event);
      const elsewhere = await t.http.get(`/api/v1/events/${event.id}`).set(bearer(t.keys.sandbox));
      await expectContract(elsewhere, 404);
      const unknown = await t.http.get("/api/v1/events/evt_unknown").set(bearer(t.keys.live));
      await expectContract(unknown, 404);
    });
  });

  describe("streamEvents", () => {
    const streamHeaders = (extra: Record<string, string> = {}) => ({
      ...bearer(t.keys.live),
      Accept: "text/event-stream",
      ...extra,
    });

    it("streamEvents answers 200 text/event-stream: each event with its cursor as id, resumable with Last-Event-ID", async () => {
      const start = (await list()).body.pagination.nextCursor as string;
      await retitle(t, "A");
      await retitle(t, "B");
      const { response, messages } = await readStream(
        t,
        t.app,
        `/api/v1/events/stream?after=${encodeURIComponent(start)}`,
        streamHeaders(),
        (received) => envelopesOf(received).length >= 2,
      );
      await expectContract(response, 200);
      expect(response.headers["content-type"]).to.match(/^text\/event-stream/);
      expect(messages[0].retry).to.be.a("number");
      const events = messages.filter((m) => m.data !== undefined);
      const listed = (await list()).body.data;
      expect(events.map((m) => JSON.parse(m.data!))).to.deep.equal(listed);
      expect(events.map((m) => m.event)).to.deep.equal(["course.updated", "course.updated"]);

      // Reconnecting after the first event with Last-Event-ID gives the second, then a new one.
      const resumed = await readStream(
        t,
        t.app,
        "/api/v1/events/stream",
        streamHeaders({ "Last-Event-ID": events[0].id! }),
        (received) => envelopesOf(received).length >= 2,
        (received) => {
          if (envelopesOf(received).length === 1) void retitle(t, "C");
        },
      );
      await expectContract(resumed.response, 200);
      expect(envelopesOf(resumed.messages).map((e) => e.data.version)).to.deep.equal([3, 4]);
      // The stream's ids are the feed's cursors: the last one pages on from there.
      const after = await list(`?after=${encodeURIComponent(resumed.messages.filter((m) => m.id).at(-1)!.id!)}`);
      expect(after.body.data).to.deep.equal([]);
    });

    it("streamEvents without a cursor starts at the end of the feed and sends keep-alive comments while idle", async () => {
      await retitle(t, "old");
      let wrote = false;
      const { response, messages } = await readStream(
        t,
        t.app,
        "/api/v1/events/stream?type=course.updated",
        streamHeaders(),
        (received) => envelopesOf(received).length >= 1 && received.some((m) => m.comment === "keep-alive"),
        (received) => {
          if (!wrote && received.some((m) => m.comment === "keep-alive")) {
            wrote = true;
            void retitle(t, "new");
          }
        },
      );
      await expectContract(response, 200);
      expect(envelopesOf(messages).map((e) => (e.data as { version: number }).version)).to.deep.equal([3]);
    });

    it("streamEvents answers 429 (too-many-streams) beyond the organization's streams, counted in the metrics", async () => {
      // Two streams, the organization's limit in this test: each has begun once its first message came.
      const begun: Promise<void>[] = [];
      const open = [1, 2].map(() => {
        let started!: () => void;
        begun.push(new Promise<void>((resolve) => (started = resolve)));
        return readStream(t, t.app, "/api/v1/events/stream", streamHeaders(), () => false, started);
      });
      await Promise.all(begun);
      const refused = await t.http.get("/api/v1/events/stream").set(streamHeaders());
      await expectContract(refused, 429);
      expect(refused.body.type).to.match(/too-many-streams$/);
      expect(refused.headers["retry-after"]).to.be.a("string");
      const metrics = await (await import("../../src/kernel/metrics.ts")).registry.metrics();
      expect(metrics).to.match(/svc_event_streams_open 2/);
      expect(metrics).to.match(/svc_event_streams_refused_total [1-9]/);
      // Another organization has streams of its own.
      const other = await t.otherOrganization("beta");
      const theirs = await readStream(
        t,
        t.app,
        "/api/v1/events/stream",
        { ...bearer(other.key), Accept: "text/event-stream" },
        (messages) => messages.length > 0,
      );
      await expectContract(theirs.response, 200);
      // closeStreams ended the two streams too (as a server stop does); their room is free again.
      for (const stream of await Promise.all(open)) await expectContract(stream.response, 200);
      expect(await (await import("../../src/kernel/metrics.ts")).registry.metrics()).to.match(
        /svc_event_streams_open 0/,
      );
    });

    it("streamEvents answers 400 to a foreign Last-Event-ID and 410 to an expired one", async () => {
      const bad = await t.http.get("/api/v1/events/stream").set(streamHeaders({ "Last-Event-ID": "nope" }));
      await expectContract(bad, 400);
      await retitle(t, "A");
      const cursor = (await list()).body.pagination.nextCursor as string;
      await retitle(t, "B");
      await t.database.prisma.outboxEvent.updateMany({ data: { dispatchedAt: new Date() } });
      await t.app.context.services.events.pruneExpiredEvents(new Date(Date.now() + 31 * DAY_MS));
      const expired = await t.http
        .get(`/api/v1/events/stream?after=${encodeURIComponent(cursor)}`)
        .set(streamHeaders());
      await expectContract(expired, 410);
    });

    it("streamEvents streams every event in every API process sharing the database", async () => {
      const second = await createApp({
        config: t.config,
        database: t.database,
        log: createLogger("silent"),
        secrets: t.secrets,
        validateResponses: true,
      });
      try {
        const http2 = (await import("supertest")).default(second.koa.callback());
        const start = (await list("?type=dataset.published")).body.pagination.nextCursor as string;
        const path = `/api/v1/events/stream?after=${encodeURIComponent(start)}`;
        let wrote = false;
        const write = (received: unknown[]) => {
          if (!wrote && received.length >= 1) {
            wrote = true;
            void (async () => {
              for (const title of ["A", "B", "C"]) await retitle(t, title);
            })();
          }
        };
        const [here, there] = await Promise.all([
          readStream(t, t.app, path, streamHeaders(), (m) => envelopesOf(m).length >= 3, write),
          readStream({ http: http2 }, second, path, streamHeaders(), (m) => envelopesOf(m).length >= 3),
        ]);
        const versions = (messages: typeof here.messages) =>
          envelopesOf(messages).map((e) => (e.data as { version: number }).version);
        expect(versions(here.messages)).to.deep.equal([2, 3, 4]);
        expect(versions(there.messages)).to.deep.equal([2, 3, 4]);
      } finally {
        await second.close();
      }
    });
  });
});
