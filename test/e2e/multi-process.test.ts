// Several processes on one PostgreSQL database: two API processes sharing one
// port (SVC_CLUSTER_WORKERS=2) and two webhook dispatchers (`npm run dispatcher`
// twice). Writes reach both API processes, they draw from one rate limit (in
// Redis), a revocation is seen by both at once, every event is delivered once
// and no delivery is in flight twice at the same moment, and the primary's
// /metrics sums the workers. On the embedded database the cluster is refused.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { loadConfig } from "../../src/kernel/config.ts";
import { createRepositories } from "../../src/repositories/index.ts";
import { createOrganizationsService } from "../../src/services/organizations.ts";
import { createKeysService } from "../../src/services/keys.ts";
import { createStewardshipService } from "../../src/services/stewardship.ts";
import { SecretBox, generateSecretsKey, parseSecretsKey } from "../../src/kernel/secret-box.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { insertEndpoint } from "../helpers/webhooks.ts";
import { freshDatabase, usingPostgres, type TestDatabase } from "../helpers/database.ts";
import { connectTestRedis, redisUrl, type TestRedis } from "../helpers/redis.ts";
import {
  exited,
  metricValue,
  portOf,
  request,
  requestLines,
  servingPids,
  spawnService,
  type ServiceProcess,
} from "../helpers/processes.ts";

const secretsKey = generateSecretsKey();

/** A receiver that answers after a short pause and notes any delivery that arrives while the same one is in flight. */
class OverlapReceiver {
  readonly eventIds: string[] = [];
  readonly overlaps: string[] = [];
  private readonly inFlight = new Set<string>();
  private readonly server = http.createServer((req, res) => {
    const delivery = String(req.headers["x-svc-delivery"]);
    if (this.inFlight.has(delivery)) this.overlaps.push(delivery);
    this.inFlight.add(delivery);
    req.resume();
    req.on("end", () =>
      setTimeout(() => {
        this.eventIds.push(String(req.headers["x-svc-event-id"]));
        this.inFlight.delete(delivery);
        res.writeHead(200).end("ok");
      }, 40),
    );
  });
  url = "";
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }
  async close() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe("several processes on one database", function () {
  this.timeout(240_000);

  if (!usingPostgres) {
    it("refuses more than one API process on the embedded database, in one line", async () => {
      const server = spawnService("src/main.ts", { SVC_CLUSTER_WORKERS: "2", DATABASE_URL: "", PORT: "0" });
      await exited(server.child);
      expect(server.child.exitCode).to.equal(78);
      const message = server.stderr().trim();
      expect(message.split("\n")).to.have.length(1);
      expect(message).to.match(/SVC_CLUSTER_WORKERS: 2 API processes need PostgreSQL \(DATABASE_URL\)/);
    });
    return;
  }

  let database: TestDatabase;
  let redis: TestRedis;
  let receiver: OverlapReceiver;
  let api: ServiceProcess;
  const dispatchers: ServiceProcess[] = [];
  let base = "";
  let metricsUrl = "";
  const keys: Record<"writer" | "limited" | "revoked", { id: string; key: string }> = {} as never;
  const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

  before(async () => {
    database = await freshDatabase();
    redis = await connectTestRedis();
    receiver = await new OverlapReceiver().start();
    const repositories = createRepositories(database.prisma);
    const organization = await createOrganizationsService(repositories).createOrganization({
      slug: "acme",
      name: "Acme",
      source: "channel_a",
    });
    const issue = async () => {
      const issued = await createKeysService(repositories).issueKey({
        organizationId: organization.id,
        environment: "live",
      });
      return { id: issued.view.id, key: issued.key };
    };
    keys.writer = await issue();
    keys.limited = await issue();
    keys.revoked = await issue();
    await createStewardshipService(repositories).grantStewardship(organization.id, "live", { all: true });
    await loadInstitutions(database.prisma, "live");
    await insertEndpoint(database.prisma, new SecretBox(parseSecretsKey(secretsKey)!), {
      organizationId: organization.id,
      url: receiver.url,
      events: ["course.updated"],
    });

    const common = {
      DATABASE_URL: database.url!,
      SVC_SECRETS_KEY: secretsKey,
      SVC_SEED_SANDBOX: "false",
      NODE_ENV: "development",
      SVC_METRICS_PORT: "0",
    };
    loadConfig(common); // fails here, not in a child, if the settings are wrong
    api = spawnService("src/main.ts", {
      ...common,
      PORT: "0",
      SVC_CLUSTER_WORKERS: "2",
      SVC_WEBHOOK_DISPATCHER: "off",
      SVC_RATE_LIMIT_REDIS_URL: redisUrl,
      SVC_RATE_LIMIT_REDIS_PREFIX: redis.prefix(),
      // This test checks that the buckets are shared, not Redis's latency on a busy machine.
      SVC_RATE_LIMIT_REDIS_TIMEOUT_MS: "5000",
      SVC_RATE_LIMIT_BURST: "20",
      SVC_RATE_LIMIT_REFILL_PER_SECOND: "0.001",
      SVC_RATE_LIMIT_ORG_BURST: "100000",
      SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "1000",
      // Without the revocation notices a revoked key would stay usable this long in the other process.
      SVC_CREDENTIAL_CACHE_MS: "600000",
    });
    for (let i = 0; i < 2; i++)
      dispatchers.push(spawnService("src/dispatcher.ts", { ...common, SVC_WEBHOOK_TIMEOUT_MS: "2000" }));
    const [listening, metrics] = await Promise.all([
      api.waitForLog("cluster listening"),
      api.waitForLog("metrics listening"),
      ...dispatchers.map((d) => d.waitForLog("webhook dispatcher running")),
    ]);
    base = `http://127.0.0.1:${portOf(listening)}/api/v1`;
    metricsUrl = String(metrics.url);
  });

  after(async () => {
    if (process.env.DEBUG_MP)
      console.log(
        api.logs.filter((l) => (l.level ?? 0) >= 40),
        api.stderr(),
      );
    await Promise.all([api?.stop(), ...dispatchers.map((d) => d.stop())]);
    await receiver?.close();
    await redis?.close();
    await database?.close();
  });

  const COURSES = 40;
  const BATCHES = 5;
  const batch = (b: number, title: string) =>
    Array.from({ length: COURSES }, (_, i) => ({
      institutionId: "inst_122977",
      code: `MP ${b}-${i}`,
      title,
      credits: 3,
      level: "lower",
    }));

  it("two API processes answer on one port and both write (upsertCourses)", async () => {
    for (const title of ["Created", "Updated"]) {
      const answers = await Promise.all(
        Array.from({ length: BATCHES }, (_, b) =>
          request(`${base}/courses`, { method: "POST", headers: auth(keys.writer.key), body: batch(b, title) }),
        ),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(BATCHES).fill(201));
    }
    await requestLines(api, 0, "POST", "/api/v1/courses", 2 * BATCHES);
    expect(servingPids(api.logs, "POST", "/api/v1/courses").size, "API processes that wrote").to.equal(2);
    const versions = await database.prisma.course.groupBy({ by: ["version"], _count: true });
    expect(versions).to.deep.equal([{ version: 2, _count: COURSES * BATCHES }]);
  });

  it("both processes draw from one rate limit in Redis", async () => {
    const from = api.logs.length;
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => request(`${base}/institutions?limit=1`, { headers: auth(keys.limited.key) })),
    );
    const statuses = answers.map((a) => a.status).sort();
    // 20 per credential in all, not 20 per process.
    expect(statuses.filter((s) => s === 200)).to.have.length(20);
    expect(statuses.filter((s) => s === 429)).to.have.length(10);
    // Every answer's line, refused ones included: each process writes its lines in blocks, so the
    // first twenty lines to arrive may all be one process's.
    const lines = await requestLines(api, from, "GET", "/api/v1/institutions", answers.length);
    expect(servingPids(lines, "GET", "/api/v1/institutions").size).to.equal(2);
  });

  it("a revocation (revokeKey) is seen by both processes at once", async () => {
    const path = `/api/v1/courses`;
    const before = api.logs.length;
    for (let i = 0; i < 6; i++)
      expect((await request(`${base}/courses?limit=1`, { headers: auth(keys.revoked.key) })).status).to.equal(200);
    await requestLines(api, before, "GET", path, 6);
    expect(servingPids(api.logs.slice(before), "GET", path).size, "both processes cached the key").to.equal(2);
    const revoked = await request(`${base}/keys/${keys.revoked.id}`, {
      method: "DELETE",
      headers: auth(keys.writer.key),
    });
    expect(revoked.status).to.equal(204);
    const after = api.logs.length;
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push((await request(`${base}/courses?limit=1`, { headers: auth(keys.revoked.key) })).status);
    expect(answers).to.deep.equal(Array(6).fill(401));
    await requestLines(api, after, "GET", path, 6);
    expect(servingPids(api.logs.slice(after), "GET", path).size, "both processes refused it").to.equal(2);
  });

  it("two dispatchers deliver every event once, none in flight twice", async () => {
    const events = COURSES * BATCHES;
    const succeeded = () => database.prisma.webhookDelivery.count({ where: { status: "succeeded" } });
    // A dispatcher records success after the receiver has answered, so the last deliveries can
    // reach the receiver a moment before their rows say so: wait for both, bounded.
    const deadline = Date.now() + 60_000;
    while ((receiver.eventIds.length < events || (await succeeded()) < events) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(receiver.eventIds).to.have.length(events);
    expect(new Set(receiver.eventIds).size, "distinct events").to.equal(events);
    expect(receiver.overlaps).to.deep.equal([]);
    const rows = await database.prisma.webhookDelivery.groupBy({ by: ["status"], _count: true });
    expect(rows).to.deep.equal([{ status: "succeeded", _count: events }]);
  });

  it("the primary's /metrics sums both API processes", async () => {
    const text = (await request(metricsUrl)).text;
    expect(metricValue(text, "svc_http_requests_total", { operation: "upsertCourses", status: "201" })).to.equal(
      2 * BATCHES,
    );
    expect(metricValue(text, "svc_rate_limit_rejections_total", { bucket: "credential" })).to.equal(10);
    expect(metricValue(text, "svc_outbox_pending_events")).to.equal(0);
    expect(metricValue(text, "svc_db_pool_connections", { state: "max" })).to.equal(20);
  });
});
