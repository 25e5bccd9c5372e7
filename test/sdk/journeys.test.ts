// Journeys through the SDK against the running app on a real port: a
// subscriber who registers an endpoint, sees its writes arrive as signed
// deliveries and reads the delivery log; and a reader who pages through a
// large list. The dispatcher is run with runOnce(), so nothing races time.
import { expect } from "chai";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { COURSES, INSTITUTIONS, loadInstitutions } from "../helpers/fixtures.ts";
import { Receiver } from "../helpers/receiver.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { Dispatcher } from "../../src/webhooks/dispatcher.ts";
import { serve } from "./serve.ts";
import {
  createClient,
  verifyWebhook,
  type Course,
  type CourseEquivalencyClient,
  type Event,
} from "../../sdk/src/index.ts";

const ALL_EVENTS = ["equivalency.created", "equivalency.updated", "course.updated", "dataset.published"] as const;

interface Journey {
  t: TestApp;
  client: CourseEquivalencyClient;
  baseUrl: string;
  close(): Promise<void>;
}

async function startJourney(): Promise<Journey> {
  const t = await createTestApp();
  await loadInstitutions(t.database.prisma, "live");
  const served = await serve(t);
  return {
    t,
    baseUrl: served.baseUrl,
    client: createClient({ baseUrl: served.baseUrl, apiKey: t.keys.live }),
    async close() {
      await served.close();
      await t.close();
    },
  };
}

describe("SDK journeys against the running app", () => {
  describe("a subscriber", () => {
    let journey: Journey;
    let receiver: Receiver;
    before(async () => {
      journey = await startJourney();
      receiver = await Receiver.start();
    });
    after(async () => {
      await receiver.close();
      await journey.close();
    });

    it("registers an endpoint, receives its writes as verifiable typed events and reads the delivery log", async () => {
      const { client, t } = journey;
      const endpoint = await client.webhooks.create({
        url: receiver.url("/hooks"),
        events: [...ALL_EVENTS],
        description: "journey",
      });
      expect(endpoint.secret).to.match(/^whsec_/);

      // Writes through the SDK; creating a course emits nothing, re-upserting it does.
      const course = COURSES["CS 55"];
      const created = await client.courses.upsert([
        course,
        { ...course, institutionId: "inst_110635", code: "CS 61B", title: "Data Structures", credits: 4 },
      ]);
      const [sourceId, targetId] = created.data.map((result) => result.id!);
      await client.courses.upsert({ ...course, title: "Java Programming I" });
      const equivalency = await client.equivalencies.create({
        sourceCourseId: sourceId,
        targetInstitutionId: "inst_110635",
        targetCourseId: targetId,
      });
      await client.equivalencies.update(
        equivalency.id,
        { status: "accepted", note: "articulated" },
        { ifMatch: `"${equivalency.id}.v1"` },
      );
      const dataset = await client.datasets.publish({ label: "Spring 2026" });

      const counts = await new Dispatcher({
        deliveries: t.app.context.repositories.deliveries,
        settings: t.config.webhooks,
        log: createLogger("silent"),
        secrets: t.secrets,
      }).runOnce();
      expect(counts).to.include({ events: 4, deliveriesQueued: 4, attempted: 4, succeeded: 4 });

      const received = receiver.to("/hooks");
      const events = received.map((request) =>
        verifyWebhook(request.body, String(request.headers["x-svc-signature"]), endpoint.secret, {
          toleranceSeconds: 300,
        }),
      );
      expect(events.map((event) => event.type)).to.have.members([...ALL_EVENTS]);
      for (const [index, event] of events.entries()) {
        expect(received[index].headers["x-svc-event-id"]).to.equal(event.id);
        expect(received[index].headers["x-svc-event"]).to.equal(event.type);
        checkPayload(event, { sourceId, equivalencyId: equivalency.id, datasetId: dataset.id });
      }

      // The delivery log, read through the SDK, is what the receiver saw.
      const deliveries = await client.webhooks.deliveries(endpoint.id).all();
      expect(deliveries).to.have.length(received.length);
      for (const request of received) {
        const delivery = deliveries.find((d) => d.id === request.headers["x-svc-delivery"]);
        expect(delivery, `delivery ${request.headers["x-svc-delivery"]}`).to.include({
          webhookId: endpoint.id,
          eventId: request.headers["x-svc-event-id"],
          eventType: request.headers["x-svc-event"],
          status: "succeeded",
          responseStatus: 200,
          attempt: 1,
          requestBody: request.body,
          signature: request.headers["x-svc-signature"],
        });
      }
      const courseUpdates = await client.webhooks.deliveries(endpoint.id, { eventType: "course.updated" }).all();
      expect(courseUpdates.map((d) => d.eventType)).to.deep.equal(["course.updated"]);
      expect((await client.webhooks.delivery(endpoint.id, courseUpdates[0].id)).requestBody).to.equal(
        courseUpdates[0].requestBody,
      );
    });

    it("rotates its secret and verifies a test event with the new secret and, during the overlap, the old one", async () => {
      const { client } = journey;
      const endpoint = await client.webhooks.create({ url: receiver.url("/rotating"), events: ["course.updated"] });
      const rotated = await client.webhooks.rotateSecret(endpoint.id);
      expect(rotated.secret).to.not.equal(endpoint.secret);
      const attempt = await client.webhooks.test(endpoint.id);
      expect(attempt).to.include({ status: "succeeded", responseStatus: 200 });
      const [request] = receiver.to("/rotating");
      expect(request.headers["x-svc-delivery"]).to.equal(attempt.id);
      for (const secret of [rotated.secret, endpoint.secret]) {
        const event = verifyWebhook(request.body, String(request.headers["x-svc-signature"]), secret, {
          toleranceSeconds: 300,
        });
        expect(event).to.include({ test: true, type: "course.updated" });
      }
    });
  });

  describe("a reader", () => {
    const COURSES = 3000;
    const BATCH = 500;
    const PAGE = 100; // the largest page the API serves
    let journey: Journey;
    before(async () => {
      journey = await startJourney();
    });
    after(() => journey.close());

    it(`pages through ${COURSES} courses in order, each once, with the largest page`, async () => {
      const institutions = INSTITUTIONS.slice(0, 3).map((i) => `inst_${i.ipedsId}`);
      const courses = Array.from({ length: COURSES }, (_, i) => ({
        institutionId: institutions[i % institutions.length],
        code: `JRN ${String(i).padStart(4, "0")}`,
        title: `Journey course ${i}`,
        credits: 3,
        level: "lower" as const,
        cipCode: "11.0701",
      }));
      for (let start = 0; start < COURSES; start += BATCH) {
        const result = await journey.client.courses.upsert(courses.slice(start, start + BATCH));
        expect(result.summary).to.include({ received: BATCH, created: BATCH });
      }

      const reader = createClient({ baseUrl: journey.baseUrl, apiKey: journey.t.keys.liveReadOnly });
      const list = reader.courses.list({ limit: PAGE });
      expect((await list).pagination.total).to.equal(COURSES);
      const seen: Course[] = [];
      for await (const course of list) seen.push(course);

      expect(seen).to.have.length(COURSES);
      expect(new Set(seen.map((c) => c.id)).size, "no duplicates").to.equal(COURSES);
      // The list's order: institutionId, then code (every code here has the same shape, so any collation agrees).
      const expected = courses.map((c) => `${c.institutionId} ${c.code}`).sort();
      expect(seen.map((c) => `${c.institutionId} ${c.code}`)).to.deep.equal(expected);

      const sizes: number[] = [];
      for await (const page of reader.courses.list({ limit: PAGE }).pages()) sizes.push(page.data.length);
      expect(sizes).to.deep.equal(Array(COURSES / PAGE).fill(PAGE));
    });
  });
});

/** Narrows each event by its type and checks the payload the writes should have produced. */
function checkPayload(event: Event, ids: { sourceId: string; equivalencyId: string; datasetId: string }): void {
  switch (event.type) {
    case "course.updated":
      expect(event.data).to.deep.equal({ courseId: ids.sourceId, version: 2, changedFields: ["title"] });
      return;
    case "equivalency.created":
      expect(event.data).to.include({ equivalencyId: ids.equivalencyId, status: "pending" });
      expect(event.data.sourceCourse).to.include({ code: "CS 55" });
      return;
    case "equivalency.updated":
      expect(event.data).to.include({
        equivalencyId: ids.equivalencyId,
        version: 2,
        previousStatus: "pending",
        status: "accepted",
      });
      expect(event.data.changedFields).to.include("status");
      return;
    case "dataset.published":
      expect(event.data).to.include({ datasetVersionId: ids.datasetId, label: "Spring 2026", sequence: 1 });
      return;
    default: {
      const unexpected: never = event;
      throw new Error(`unexpected event ${JSON.stringify(unexpected)}`);
    }
  }
}
