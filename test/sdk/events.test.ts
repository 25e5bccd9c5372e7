// The SDK's change feed helpers against the real app on a real port: events.follow pages from a
// stored cursor and keeps polling; events.stream reconnects with Last-Event-ID when the server ends
// its streams (as it does when it stops), without losing or repeating an event.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { COURSES, loadInstitutions } from "../helpers/fixtures.ts";
import { serve } from "./serve.ts";
import {
  ApiError,
  AuthenticationError,
  createClient,
  type CourseEquivalencyClient,
  type FeedEvent,
} from "../../sdk/src/index.ts";

describe("SDK: the change feed (events.follow, events.stream)", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serve>>;
  let client: CourseEquivalencyClient;
  let title = 0;

  const retitle = async () => {
    const response = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send({ ...COURSES["CS 55"], title: `Java ${++title}` });
    expect(response.status).to.equal(201);
  };
  const versions = (events: FeedEvent[]) => events.map((e) => (e.type === "course.updated" ? e.data.version : null));
  /** The cursor of the end of the feed now. */
  const endOfFeed = async () => (await client.events.list({ since: "9999-12-31T00:00:00Z" })).pagination.nextCursor!;

  before(async () => {
    t = await createTestApp();
    await loadInstitutions(t.database.prisma, "live");
    await retitle(); // creates the course: no event
    served = await serve(t);
    client = createClient({ baseUrl: served.baseUrl, apiKey: t.keys.live });
  });
  after(async () => {
    await t.app.closeStreams();
    await served.close();
    await t.close();
  });

  it("follow pages from a stored cursor, waits for new events, and resumes from the cursor it gave", async () => {
    const stored = await endOfFeed();
    for (let i = 0; i < 3; i++) await retitle();
    const stop = new AbortController();
    const seen: FeedEvent[] = [];
    let cursor = stored;
    for await (const page of client.events.follow({
      after: stored,
      limit: 2,
      pollIntervalMs: 20,
      signal: stop.signal,
    })) {
      seen.push(...page.data);
      cursor = page.cursor;
      if (seen.length === 3) void retitle();
      if (seen.length === 4) stop.abort();
    }
    expect(versions(seen)).to.deep.equal([2, 3, 4, 5]);

    // A restart: a new iteration from the stored cursor gives what came after, and nothing twice.
    await retitle();
    const again = new AbortController();
    for await (const page of client.events.follow({ after: cursor, pollIntervalMs: 20, signal: again.signal })) {
      expect(versions(page.data)).to.deep.equal([6]);
      again.abort();
    }
  });

  it("follow({ untilCaughtUp }) reads to the end of the feed and stops, handing out the last cursor", async () => {
    const stored = await endOfFeed();
    for (let i = 0; i < 3; i++) await retitle();
    const pages: { versions: (number | null)[]; caughtUp: boolean }[] = [];
    let cursor = stored;
    for await (const page of client.events.follow({ after: stored, limit: 2, untilCaughtUp: true })) {
      pages.push({ versions: versions(page.data), caughtUp: page.caughtUp });
      cursor = page.cursor;
    }
    expect(pages.map((p) => p.caughtUp)).to.deep.equal([false, true]);
    expect(pages.flatMap((p) => p.versions)).to.have.length(3);

    // Caught up already: one page without events, with the cursor to store.
    const empty: { data: FeedEvent[]; cursor: string }[] = [];
    for await (const page of client.events.follow({ after: cursor, untilCaughtUp: true })) empty.push(page);
    expect(empty).to.have.length(1);
    expect(empty[0].data).to.deep.equal([]);
    expect(empty[0].cursor).to.be.a("string");
  });

  it("stream reconnects with Last-Event-ID when the server ends the stream, and loses nothing", async () => {
    const start = await endOfFeed();
    await retitle();
    const stop = new AbortController();
    const seen: FeedEvent[] = [];
    const ids: string[] = [];
    for await (const { id, event } of client.events.stream(
      { after: start },
      { reconnectDelayMs: 10, signal: stop.signal },
    )) {
      seen.push(event);
      ids.push(id);
      if (seen.length === 1) {
        // The server stops streaming (a restart); an event commits while the client is away.
        await t.app.closeStreams();
        await retitle();
      }
      if (seen.length === 2) stop.abort();
    }
    // Course versions follow the titles: the event before the stop, and the one committed during it.
    expect(versions(seen)).to.deep.equal([title - 1, title]);
    expect(new Set(ids).size).to.equal(2);
  });

  it("stream reconnects at once after the server's stream-closed (maximum lifetime), and throws 401 once the key is revoked", async () => {
    const { view, key } = await t.app.context.services.keys.issueKey({
      organizationId: t.organizationId,
      environment: "live",
      scopes: ["read:public"],
    });
    const own = createClient({ baseUrl: served.baseUrl, apiKey: key });
    const start = await endOfFeed();
    await retitle();
    const seen: FeedEvent[] = [];
    let error: unknown;
    try {
      // A reconnect delay far beyond the test's timeout: only an immediate reconnect passes.
      for await (const { event } of own.events.stream({ after: start }, { reconnectDelayMs: 3_600_000 })) {
        seen.push(event);
        if (seen.length === 1) {
          // The stream's lifetime ends; an event commits while the client reconnects.
          await t.app.context.services.events.recheckStreams(new Date(Date.now() + t.config.events.maxStreamMs));
          await retitle();
        }
        if (seen.length === 2) await t.app.context.services.keys.revokeAnyKey(view.id);
      }
    } catch (caught) {
      error = caught;
    }
    expect(versions(seen)).to.deep.equal([title - 1, title]);
    expect(error).to.be.instanceOf(AuthenticationError);
    expect((error as ApiError).status).to.equal(401);
    expect((error as ApiError).detail).to.match(/revoked/);
  });

  it("stream throws an ApiError a retry cannot change (an altered cursor: 400)", async () => {
    let error: unknown;
    try {
      for await (const _ of client.events.stream({}, { lastEventId: "altered.cursor" })) break;
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).status).to.equal(400);
    expect((error as ApiError).code).to.equal("invalid-cursor");
  });
});
