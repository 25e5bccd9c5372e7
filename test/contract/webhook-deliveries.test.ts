import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { Receiver } from "../helpers/receiver.ts";
import { insertEndpoint, type TestEndpoint } from "../helpers/webhooks.ts";
import { webhookContractErrors } from "../helpers/webhook-contract.ts";
import { createOutboxRepository } from "../../src/repositories/outbox.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { Dispatcher } from "../../src/webhooks/dispatcher.ts";

describe("webhook deliveries: contract", () => {
  let t: TestApp;
  let receiver: Receiver;
  let endpoint: TestEndpoint;
  let dispatcher: Dispatcher;
  const base = () => `/api/v1/webhooks/${endpoint.id}`;
  const get = (path: string, key = t.keys.live) => t.http.get(path).set(bearer(key));
  const post = (path: string, key = t.keys.live) => t.http.post(path).set(bearer(key));

  async function emit(...types: ("course.updated" | "equivalency.created")[]) {
    await t.database.prisma.$transaction((tx) =>
      createOutboxRepository(tx).recordEvents(
        "live",
        types.map((type) =>
          type === "course.updated"
            ? { type, data: { courseId: "crs_1", version: 2, changedFields: ["title"] } }
            : { type, data: { equivalencyId: "eq_1", status: "pending" } },
        ),
      ),
    );
    await dispatcher.runOnce();
  }

  beforeEach(async () => {
    // Retries an hour away: no retry falls due while a test runs, however slow the machine, so each
    // dispatcher run sends exactly what the test queued.
    t = await createTestApp({ SVC_WEBHOOK_RETRY_SCHEDULE: "1h,2h", SVC_WEBHOOK_TIMEOUT_MS: "1000" });
    receiver = await Receiver.start();
    endpoint = await insertEndpoint(t.database.prisma, t.secrets, {
      organizationId: t.organizationId,
      url: receiver.url("/a"),
      events: ["equivalency.created", "course.updated"],
    });
    receiver.expectSecrets("/a", [endpoint.secret]);
    dispatcher = new Dispatcher({
      deliveries: t.app.context.repositories.deliveries,
      settings: t.config.webhooks,
      log: createLogger("silent"),
      secrets: t.secrets,
    });
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  describe("listWebhookDeliveries (GET /webhooks/{id}/deliveries)", () => {
    it("lists attempts newest first with filters, paging headers and the exact body", async () => {
      const empty = await get(`${base()}/deliveries`);
      await expectContract(empty, 200);
      expect(empty.body).to.deep.equal({
        data: [],
        pagination: { total: 0, limit: 25, offset: 0, returned: 0, nextCursor: null },
      });

      await emit("course.updated");
      receiver.behave("/a", "fail");
      await emit("equivalency.created");
      const all = await get(`${base()}/deliveries`);
      await expectContract(all, 200);
      expect(all.headers["x-total-count"]).to.equal("3");
      // The failed attempt and its queued retry are newer than the success.
      expect(all.body.data.map((d: { status: string }) => d.status).sort()).to.deep.equal([
        "failed",
        "pending",
        "succeeded",
      ]);
      expect(all.body.data[2]).to.include({
        status: "succeeded",
        eventType: "course.updated",
        attempt: 1,
        responseStatus: 200,
        error: null,
      });
      expect(all.body.data[2].signature).to.match(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(all.body.data[2].requestBody).to.equal(receiver.requests[0].body);
      const created = [...all.body.data].map((d: { createdAt: string; id: string }) => `${d.createdAt}|${d.id}`);
      expect(created).to.deep.equal([...created].sort().reverse());

      const failed = await get(`${base()}/deliveries?status=failed`);
      await expectContract(failed, 200);
      expect(failed.body.data).to.have.length(1);
      expect(failed.body.data[0]).to.include({ eventType: "equivalency.created", responseStatus: 500, attempt: 1 });
      expect(failed.body.data[0].nextRetryAt).to.be.a("string");
      const byType = await get(`${base()}/deliveries?eventType=course.updated`);
      expect(byType.body.data).to.have.length(1);

      const page = await get(`${base()}/deliveries?limit=1&offset=1`);
      await expectContract(page, 200);
      expect(page.body.pagination).to.include({ total: 3, limit: 1, offset: 1, returned: 1 });
      expect(page.headers.link).to.contain('rel="next"').and.contain('rel="prev"');
    });

    it("400 for a bad filter or page, 401 without a key, 403 without read scope", async () => {
      await expectContract(await get(`${base()}/deliveries?limit=101`), 400);
      await expectContract(await get(`${base()}/deliveries?status=lost`), 400);
      await expectContract(await t.http.get(`${base()}/deliveries`), 401);
      const writeOnly = (
        await t.app.context.services.keys.issueKey({
          organizationId: t.organizationId,
          environment: "live",
          scopes: ["write:contribute"],
          name: "w",
        })
      ).key;
      await expectContract(await get(`${base()}/deliveries`, writeOnly), 403);
    });

    it("404 for an unknown endpoint, another organization's, and another environment's", async () => {
      expectProblem(await get(`/api/v1/webhooks/wh_missing/deliveries`), "not-found");
      const other = await t.otherOrganization("other");
      const response = await get(`${base()}/deliveries`, other.key);
      await expectContract(response, 404);
      expectProblem(response, "not-found");
      await expectContract(await get(`${base()}/deliveries`, t.keys.sandbox), 404);
    });
  });

  describe("getWebhookDelivery (GET /webhooks/{id}/deliveries/{deliveryId})", () => {
    it("reads one attempt; 404 when it belongs to another endpoint; 401; 403", async () => {
      await emit("course.updated");
      const [delivery] = (await get(`${base()}/deliveries`)).body.data;
      const one = await get(`${base()}/deliveries/${delivery.id}`);
      await expectContract(one, 200);
      expect(one.body.data).to.deep.equal(delivery);

      const second = await insertEndpoint(t.database.prisma, t.secrets, {
        organizationId: t.organizationId,
        url: receiver.url("/b"),
        events: ["course.updated"],
      });
      await expectContract(await get(`/api/v1/webhooks/${second.id}/deliveries/${delivery.id}`), 404);
      await expectContract(await get(`${base()}/deliveries/dlv_missing`), 404);
      await expectContract(await t.http.get(`${base()}/deliveries/${delivery.id}`), 401);
      const writeOnly = (
        await t.app.context.services.keys.issueKey({
          organizationId: t.organizationId,
          environment: "live",
          scopes: ["write:contribute"],
          name: "w",
        })
      ).key;
      await expectContract(await get(`${base()}/deliveries/${delivery.id}`, writeOnly), 403);
    });
  });

  describe("redeliverWebhookDelivery (POST /webhooks/{id}/deliveries/{deliveryId}/redeliver)", () => {
    it("202: queues a new pending attempt of the same event and body, which the dispatcher sends", async () => {
      receiver.behave("/a", "fail");
      await emit("course.updated");
      const [retry, first] = (await get(`${base()}/deliveries`)).body.data;
      expect(retry).to.include({ status: "pending", attempt: 2 });
      receiver.behave("/a", "ok");
      const response = await post(`${base()}/deliveries/${first.id}/redeliver`);
      await expectContract(response, 202);
      expect(response.body.data).to.include({
        status: "pending",
        attempt: 3,
        eventId: first.eventId,
        requestBody: first.requestBody,
        signature: null,
        attemptedAt: null,
      });
      expect(response.body.data.id).to.not.equal(first.id);

      const counts = await dispatcher.runOnce();
      expect(counts.succeeded).to.equal(1); // the retry of attempt 2 is not due yet
      const sent = receiver.to("/a").at(-1)!;
      expect(sent.headers["x-svc-delivery"]).to.equal(response.body.data.id);
      expect(sent.headers["x-svc-event-id"]).to.equal(first.eventId);
      expect(sent.body).to.equal(first.requestBody);
      expect(sent.verifiedWith).to.deep.equal([endpoint.secret]);
      const after = await get(`${base()}/deliveries/${response.body.data.id}`);
      expect(after.body.data).to.include({ status: "succeeded", responseStatus: 200, nextRetryAt: null });
    });

    it("404 for another endpoint's delivery or another organization; 401; 403 for a read-only key", async () => {
      await emit("course.updated");
      const [delivery] = (await get(`${base()}/deliveries`)).body.data;
      const other = await t.otherOrganization("other");
      await expectContract(await post(`${base()}/deliveries/${delivery.id}/redeliver`, other.key), 404);
      await expectContract(await post(`${base()}/deliveries/dlv_missing/redeliver`), 404);
      await expectContract(await t.http.post(`${base()}/deliveries/${delivery.id}/redeliver`), 401);
      await expectContract(await post(`${base()}/deliveries/${delivery.id}/redeliver`, t.keys.liveReadOnly), 403);
    });
  });

  describe("events while an endpoint is disabled (updateWebhook)", () => {
    it("queues them for the disabled endpoint and delivers them once it is enabled again", async () => {
      const patch = (status: string) => t.http.patch(base()).set(bearer(t.keys.live)).send({ status });
      await expectContract(await patch("disabled"), 200);
      await emit("course.updated", "equivalency.created");
      expect(receiver.to("/a")).to.have.length(0);
      const waiting = await get(`${base()}/deliveries`);
      await expectContract(waiting, 200);
      expect(waiting.body.data.map((d: { status: string }) => d.status)).to.deep.equal(["pending", "pending"]);
      expect((await dispatcher.runOnce()).attempted).to.equal(0);
      await expectContract(await patch("enabled"), 200);
      await dispatcher.runOnce();
      const sent = receiver.to("/a").map((request) => JSON.parse(request.body).type);
      expect(sent.sort()).to.deep.equal(["course.updated", "equivalency.created"]);
      const delivered = await get(`${base()}/deliveries?status=succeeded`);
      expect(delivered.body.pagination.total).to.equal(2);
    });
  });

  describe("testWebhook (POST /webhooks/{id}/test)", () => {
    it("200: sends a signed test event of the first subscribed type and answers the recorded attempt", async () => {
      const response = await post(`${base()}/test`);
      await expectContract(response, 200);
      expect(response.body.data).to.include({
        status: "succeeded",
        eventType: "equivalency.created",
        attempt: 1,
        responseStatus: 200,
        nextRetryAt: null,
      });
      const [sent] = receiver.to("/a");
      expect(sent.verifiedWith).to.deep.equal([endpoint.secret]);
      expect(sent.body).to.equal(response.body.data.requestBody);
      const body = JSON.parse(sent.body);
      expect(body).to.include({ test: true, type: "equivalency.created" });
      expect(Object.keys(body)).to.deep.equal(["id", "type", "created", "test", "data"]);
      expect(webhookContractErrors("equivalency.created", sent.headers, sent.body)).to.deep.equal([]);
      const listed = await get(`${base()}/deliveries`);
      expect(listed.body.data[0].id).to.equal(response.body.data.id);
    });

    it("200 with the failure recorded when the receiver fails; works on a disabled endpoint; never retried", async () => {
      receiver.behave("/a", "fail");
      await t.database.prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { status: "disabled" } });
      const response = await post(`${base()}/test`);
      await expectContract(response, 200);
      expect(response.body.data).to.include({
        status: "failed",
        responseStatus: 500,
        responseExcerpt: "receiver is broken",
        nextRetryAt: null,
      });
      expect((await dispatcher.runOnce()).attempted).to.equal(0);
      const health = await t.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      expect(health.failingSince).to.equal(null);
    });

    it("404 for another organization's endpoint; 401; 403 for a read-only key", async () => {
      const other = await t.otherOrganization("other");
      await expectContract(await post(`${base()}/test`, other.key), 404);
      await expectContract(await post(`/api/v1/webhooks/wh_missing/test`), 404);
      await expectContract(await t.http.post(`${base()}/test`), 401);
      await expectContract(await post(`${base()}/test`, t.keys.liveReadOnly), 403);
      expect(receiver.requests).to.have.length(0);
    });
  });
});

describe("webhook deliveries: rate limit", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_RATE_LIMIT_BURST: "1", SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.01" });
  });
  after(() => t.close());

  it("429 when the bucket is empty", async () => {
    const endpoint = await insertEndpoint(t.database.prisma, t.secrets, {
      organizationId: t.organizationId,
      url: "http://127.0.0.1:9/x",
      events: ["course.updated"],
    });
    await t.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries`).set(bearer(t.keys.live));
    for (const request of [
      t.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries`),
      t.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries/dlv_x`),
      t.http.post(`/api/v1/webhooks/${endpoint.id}/deliveries/dlv_x/redeliver`),
      t.http.post(`/api/v1/webhooks/${endpoint.id}/test`),
    ]) {
      const limited = await request.set(bearer(t.keys.live));
      await expectContract(limited, 429);
    }
  });
});
