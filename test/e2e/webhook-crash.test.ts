// Crash safety: the real server is killed (SIGKILL) in the middle of a burst
// of writes and restarted on the same database (the embedded data directory,
// or a fresh PostgreSQL database when SVC_TEST_DATABASE_URL is set). Every
// change the database committed must then reach the receiver at least once,
// and nothing that was never committed may.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadConfig } from "../../src/kernel/config.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { createRepositories } from "../../src/repositories/index.ts";
import { createOrganizationsService } from "../../src/services/organizations.ts";
import { createKeysService } from "../../src/services/keys.ts";
import { createStewardshipService } from "../../src/services/stewardship.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { Receiver } from "../helpers/receiver.ts";
import { insertEndpoint } from "../helpers/webhooks.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { SecretBox, generateSecretsKey, parseSecretsKey } from "../../src/kernel/secret-box.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BURST = 200;
/** Requests of the burst in flight at once. */
const BURST_LANES = 8;
/** The server and this test seal and open webhook secrets with the same key. */
const secretsKey = generateSecretsKey();

describe("webhooks survive a crash", () => {
  let dataDir: string;
  let receiver: Receiver;
  let child: ChildProcess | null = null;
  /** The PostgreSQL database of this test, when the suite runs on a server. */
  let serverDatabase: TestDatabase | null = null;
  const port = String(21_000 + (process.pid % 20_000));
  const api = `http://127.0.0.1:${port}/api/v1`;
  const env = () => ({
    ...process.env,
    PORT: port,
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: serverDatabase?.url ?? "",
    NODE_ENV: "development",
    SVC_SEED_SANDBOX: "false",
    SVC_LOG_LEVEL: "silent",
    SVC_WEBHOOK_RETRY_SCHEDULE: "500ms,500ms,1s,1s,1s,1s,1s,1s",
    SVC_WEBHOOK_TIMEOUT_MS: "1000",
    SVC_RATE_LIMIT_BURST: "100000",
    SVC_SECRETS_KEY: secretsKey,
  });

  async function startServer(): Promise<ChildProcess> {
    const started = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: ROOT,
      env: env(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    started.stderr!.on("data", (chunk) => (stderr += chunk));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`server exited with ${started.exitCode}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`server did not start: ${stderr}`);
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return started;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  function exited(process: ChildProcess): Promise<void> {
    return process.exitCode !== null || process.signalCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => process.once("exit", () => resolve()));
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-webhook-crash-"));
    receiver = await Receiver.start();
    const database = await freshDatabase();
    if (database.url) serverDatabase = database;
    else await database.close();
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await receiver.close();
    await serverDatabase?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("delivers every committed change at least once, and nothing uncommitted", async function () {
    this.timeout(180_000);
    const config = loadConfig(env());
    const setup = await openMigratedDatabase(config, createLogger("silent"));
    const repositories = createRepositories(setup.prisma);
    const organization = await createOrganizationsService(repositories).createOrganization({
      slug: "acme",
      name: "Acme",
      source: "channel_a",
    });
    const { key } = await createKeysService(repositories).issueKey({
      organizationId: organization.id,
      environment: "live",
      name: "crash test",
    });
    await createStewardshipService(repositories).grantStewardship(organization.id, "live", { all: true });
    await loadInstitutions(setup.prisma, "live");
    const endpoint = await insertEndpoint(setup.prisma, new SecretBox(parseSecretsKey(secretsKey)!), {
      organizationId: organization.id,
      url: receiver.url("/hook"),
      events: ["course.updated"],
    });
    receiver.expectSecrets("/hook", [endpoint.secret]);
    await setup.close();

    child = await startServer();
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    const course = (title: string) =>
      JSON.stringify({ institutionId: "inst_122977", code: "MATH 7", title, credits: 5, level: "lower" });
    const created = await fetch(`${api}/courses`, { method: "POST", headers, body: course("Calculus") });
    expect(created.status).to.equal(201);

    // A burst of re-upserts, each committing one course.updated event, sent by a few lanes at a
    // time; the server is killed by the lane that sees a quarter of the burst answered while
    // deliveries are under way, so the rest of the burst is never sent, however fast or slow
    // the machine.
    let answered = 0;
    let killed = false;
    const lane = async (first: number) => {
      for (let i = first; i < BURST && !killed; i += BURST_LANES) {
        const ok = await fetch(`${api}/courses`, { method: "POST", headers, body: course(`Calculus ${i}`) }).then(
          (response) => response.ok,
          () => false,
        );
        if (ok) answered++;
        if (!killed && answered >= BURST / 4 && receiver.requests.length > 0) {
          killed = true;
          child!.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: BURST_LANES }, (_, first) => lane(first)));
    expect(killed, "deliveries were under way while a quarter of the burst was answered").to.equal(true);
    await exited(child);
    expect(answered, "the crash interrupted the burst").to.be.below(BURST);

    child = await startServer();
    const current = await fetch(`${api}/courses?limit=1`, { headers }).then(
      (r) => r.json() as Promise<{ data: { version: number }[] }>,
    );
    const committedChanges = current.data[0].version - 1;
    expect(committedChanges).to.be.at.least(answered);
    const delivered = () => new Set(receiver.to("/hook").map((r) => r.headers["x-svc-event-id"]));
    await receiver.waitFor(
      () => delivered().size >= committedChanges,
      60_000,
      `${committedChanges} distinct events delivered`,
    );
    child.kill("SIGTERM");
    await exited(child);

    const after = await openMigratedDatabase(config, createLogger("silent"));
    try {
      const committed = new Set((await after.prisma.outboxEvent.findMany({ select: { id: true } })).map((e) => e.id));
      expect(committed.size).to.equal(committedChanges);
      expect([...delivered()].sort()).to.deep.equal([...committed].sort());
      expect(receiver.to("/hook").every((r) => r.verifiedWith.length === 1)).to.equal(true);
    } finally {
      await after.close();
    }
  });
});
