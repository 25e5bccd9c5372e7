// Receivers that misbehave under a burst: one hangs, one answers slowly, one
// sends 10 MB. The dispatcher keeps delivering to the healthy endpoint while
// the hanging one holds its slots until the timeout, reads only a bounded part
// of the 10 MB answer, and stores a 1,024-character excerpt.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { insertEndpoint } from "../helpers/webhooks.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { createOutboxRepository } from "../../src/repositories/outbox.ts";
import { Dispatcher } from "../../src/webhooks/dispatcher.ts";

const EVENTS = 12;
/** Long enough that, even on a busy machine, the healthy deliveries finish while the hanging ones still wait. */
const TIMEOUT_MS = 15_000;

describe("webhook receivers that hang, answer slowly or send 10 MB", function () {
  this.timeout(240_000);
  let t: TestApp;
  let server: http.Server;
  let base = "";
  const arrivals: Record<string, number[]> = { ok: [], hang: [], slow: [], huge: [] };
  const hanging: http.ServerResponse[] = [];

  before(async () => {
    t = await createTestApp({ SVC_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), SVC_WEBHOOK_RETRY_SCHEDULE: "1h" });
    server = http.createServer((req, res) => {
      const path = (req.url ?? "/").slice(1);
      arrivals[path]?.push(Date.now());
      req.resume();
      req.on("end", () => {
        if (path === "hang") return void hanging.push(res);
        if (path === "slow") return void setTimeout(() => res.writeHead(200).end("slow"), 1_000);
        if (path === "huge") {
          res.writeHead(200, { "Content-Type": "text/plain" });
          const chunk = "y".repeat(64 * 1024);
          for (let i = 0; i < 160; i++) res.write(chunk); // 10 MB
          return void res.end();
        }
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  it("keeps the healthy endpoint's deliveries flowing and stores a bounded excerpt", async () => {
    const ids: Record<string, string> = {};
    for (const path of ["hang", "slow", "huge", "ok"]) {
      const endpoint = await insertEndpoint(t.database.prisma, t.secrets, {
        organizationId: t.organizationId,
        url: `${base}/${path}`,
        events: ["course.updated"],
      });
      ids[path] = endpoint.id;
    }
    await t.database.prisma.$transaction((tx) =>
      createOutboxRepository(tx).recordEvents(
        "live",
        Array.from({ length: EVENTS }, (_, i) => ({
          type: "course.updated" as const,
          data: { courseId: `crs_${i}`, version: 2, changedFields: [] },
        })),
      ),
    );
    const dispatcher = new Dispatcher({
      deliveries: t.app.context.repositories.deliveries,
      settings: t.config.webhooks,
      log: createLogger("silent"),
      secrets: t.secrets,
      concurrency: 16,
    });
    const started = Date.now();
    dispatcher.start();
    try {
      const deadline = started + 60_000;
      while (arrivals.ok.length < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(arrivals.ok, "deliveries to the healthy endpoint").to.have.length(EVENTS);
      // Every healthy delivery arrived while the hanging attempts were still waiting for their timeout.
      const hangRecorded = await t.database.prisma.webhookDelivery.count({
        where: { webhookId: ids.hang, status: { not: "pending" } },
      });
      expect(hangRecorded, "hanging attempts still waiting for their timeout").to.equal(0);

      // Then every first attempt is recorded (the hanging ones once they time out).
      while (Date.now() < deadline) {
        const attempted = await t.database.prisma.webhookDelivery.count({ where: { attemptedAt: { not: null } } });
        if (attempted >= 4 * EVENTS) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await dispatcher.stop();
    }
    const rows = await t.database.prisma.webhookDelivery.findMany({ where: { attemptedAt: { not: null } } });
    const of = (path: string) => rows.filter((r) => r.webhookId === ids[path]);
    expect(of("huge")).to.have.length(EVENTS);
    for (const row of of("huge")) {
      expect(row).to.include({ status: "succeeded", responseStatus: 200 });
      expect(row.responseExcerpt).to.have.length(1024);
    }
    expect(of("slow").every((r) => r.status === "succeeded")).to.equal(true);
    for (const row of of("hang")) {
      expect(row.responseStatus).to.equal(null);
      expect(row.error).to.match(/timed out/);
    }
  });
});
