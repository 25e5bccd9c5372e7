// Crash consistency: the real server takes a mixed write load (course batches with an
// Idempotency-Key, PATCHes of an equivalency with If-Match, key creations, and the CLI's changes)
// and is killed with SIGKILL at a seeded random point of the request stream (after N answered
// requests), over several rounds, then restarted on the same database (the embedded data
// directory, or PostgreSQL with SVC_TEST_DATABASE_URL). After every round each idempotent request
// is retried with its key; at the end the database must hold, for every record, exactly one audit
// entry per committed change and one event per committed event-bearing change, no entry or event
// of a change that did not commit, every answered change, and every retried request done once.
// CRASH_SEED picks another sequence (a failure prints its seed).
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
import { runCli } from "../../src/cli/program.ts";
import { forwardCommand } from "../../src/process/admin-channel.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import type { Database } from "../../src/db/database.ts";
import { loadInstitutions } from "../helpers/fixtures.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { type Answer, portOf, request, type ServiceProcess, spawnService } from "../helpers/processes.ts";
import { generateSecretsKey, parseSecretsKey } from "../../src/kernel/secret-box.ts";

const SEED = Number(process.env.CRASH_SEED ?? 20261126);
const ROUNDS = 3;
/** Requests of the load in flight at once. */
const LANES = 3;
const secretsKey = generateSecretsKey();

/** mulberry32: a small seeded generator, so a failing sequence can be replayed with its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A course batch sent with an Idempotency-Key, and what the first answer said if one came. */
interface IdempotentBatch {
  key: string;
  body: object[];
  codes: string[];
  answer: Answer | null;
}

describe("crash consistency: audit entries, events and idempotent answers across SIGKILL", function () {
  this.timeout(600_000);
  let dataDir: string;
  let serverDatabase: TestDatabase | null = null;
  let server: ServiceProcess | null = null;
  let apiKey = "";
  const env = () => ({
    PORT: "0",
    HOST: "127.0.0.1",
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: serverDatabase?.url ?? "",
    NODE_ENV: "development",
    SVC_SEED_SANDBOX: "false",
    SVC_RATE_LIMIT_BURST: "100000",
    SVC_SECRETS_KEY: secretsKey,
    SVC_WEBHOOK_DISPATCHER: "off",
  });

  let api = "";
  let cliSocket: string | null = null;

  async function start(): Promise<void> {
    server = spawnService("src/main.ts", env());
    const listening = await server.waitForLog("listening");
    api = `http://127.0.0.1:${portOf(listening)}/api/v1`;
    cliSocket = typeof listening.cli === "string" ? listening.cli : null;
  }

  /** The server's error lines, for a failure's message. */
  const serverErrors = () => JSON.stringify((server?.logs ?? []).filter((line) => (line.level ?? 0) >= 50).slice(-3));

  const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    request(`${api}${url}`, { method, body, headers: { Authorization: `Bearer ${apiKey}`, ...headers } });

  /** The CLI's `keys create`: over the server's channel beside the embedded server, else in this process. */
  async function cliKeysCreate(name: string, database: () => Promise<Database>): Promise<boolean> {
    const argv = ["keys", "create", "--org", "acme", "--env", "live", "--name", name];
    const io = { stdout: () => undefined, stderr: () => undefined };
    if (cliSocket) {
      const terminal = { outColors: false, errColors: false };
      const code = await forwardCommand(cliSocket, { argv, cwd: dataDir, terminal }, io).catch(() => null);
      return code === 0;
    }
    const keyring = () => openKeyring({ dataDir, secrets: { key: parseSecretsKey(secretsKey)!, oldKeys: [] } });
    return (await runCli(argv, io, { openDb: database, openRaw: database, openKeys: keyring })) === 0;
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-crash-consistency-"));
    const database = await freshDatabase();
    if (database.url) serverDatabase = database;
    else await database.close();
  });
  after(async () => {
    await server?.kill();
    await serverDatabase?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`keeps every committed change with one audit entry and one event, and nothing else (seed ${SEED})`, async () => {
    const config = loadConfig(env());
    const setup = await openMigratedDatabase(config, createLogger("silent"));
    const repositories = createRepositories(setup.prisma);
    const organization = await createOrganizationsService(repositories).createOrganization({
      slug: "acme",
      name: "Acme",
      source: "channel_a",
    });
    apiKey = (
      await createKeysService(repositories).issueKey({
        organizationId: organization.id,
        environment: "live",
        name: "load",
      })
    ).key;
    await createStewardshipService(repositories).grantStewardship(organization.id, "live", { all: true });
    await loadInstitutions(setup.prisma, "live");
    await setup.close();
    // The in-process CLI (PostgreSQL) opens the database itself, as it does beside a server there.
    let cliDatabase: Database | null = null;
    const cliOpen = async () => {
      cliDatabase ??= await openMigratedDatabase(config, createLogger("silent"));
      return { ...cliDatabase, close: async () => {} };
    };

    await start();
    const course = (code: string, title = code, institutionId = "inst_122977") => ({
      institutionId,
      code,
      title,
      credits: 3,
      level: "lower",
    });
    const base = await call("POST", "/courses", [course("SRC 1"), course("TGT 1", "Target", "inst_110635")]);
    expect(base.status, base.text).to.equal(201);
    const [source, target] = base.json<{ data: { id: string }[] }>().data;
    const rule = await call("POST", "/equivalencies", {
      sourceCourseId: source.id,
      targetInstitutionId: "inst_110635",
      targetCourseId: target.id,
    });
    expect(rule.status, rule.text).to.equal(201);
    const ruleId = rule.json<{ data: { id: string } }>().data.id;

    const batches: IdempotentBatch[] = [];
    const answeredKeys: string[] = [];
    let answeredCli = 0;
    const next = random(SEED);

    for (let round = 0; round < ROUNDS; round++) {
      // Killed after this many answered requests: a random point of the stream, whatever the machine's speed.
      const killAfter = 4 + Math.floor(next() * 16);
      let answered = 0;
      let killed = false;
      let serial = 0;
      const acknowledge = async () => {
        answered++;
        if (!killed && answered >= killAfter) {
          killed = true;
          await server!.kill("SIGKILL");
        }
      };
      const lane = async (laneRandom: () => number) => {
        while (!killed) {
          const n = serial++;
          const pick = laneRandom();
          try {
            if (pick < 0.4) {
              const codes = [`R${round}N${n}A`, `R${round}N${n}B`];
              const batch: IdempotentBatch = {
                key: `batch-${round}-${n}`,
                // Each batch also updates a course every batch shares: one course.updated per commit.
                body: [...codes.map((code) => course(code)), course("SHARED 1", `Shared ${round}-${n}`)],
                codes,
                answer: null,
              };
              batches.push(batch);
              batch.answer = await call("POST", "/courses", batch.body, { "Idempotency-Key": batch.key });
            } else if (pick < 0.65) {
              const current = await call("GET", `/equivalencies/${ruleId}`);
              await call(
                "PATCH",
                `/equivalencies/${ruleId}`,
                { policyBasis: `basis ${round}-${n}` },
                { "If-Match": String(current.headers.etag) },
              );
            } else if (pick < 0.85) {
              const created = await call("POST", "/keys", { name: `api-${round}-${n}`, scopes: ["read:public"] });
              if (created.status === 201) answeredKeys.push(created.json<{ data: { id: string } }>().data.id);
            } else {
              if (await cliKeysCreate(`cli-${round}-${n}`, cliOpen)) answeredCli++;
            }
            await acknowledge();
          } catch {
            // The connection died with the server: the request may or may not have committed.
            if (!killed) throw new Error(`round ${round}: request ${n} failed before the kill (seed ${SEED})`);
          }
        }
      };
      await Promise.all(Array.from({ length: LANES }, (_, i) => lane(random(SEED * 31 + round * 7 + i))));
      await server!.kill("SIGKILL");
      await start();
      // Every idempotent batch is retried with its key: it replays the committed answer, or runs
      // now if it never committed; never twice.
      for (const batch of batches) {
        const retry = await call("POST", "/courses", batch.body, { "Idempotency-Key": batch.key });
        expect(retry.status, `${batch.key}: ${retry.text} (seed ${SEED}) ${serverErrors()}`).to.equal(201);
        if (batch.answer?.status === 201) {
          expect(retry.headers["idempotent-replayed"], batch.key).to.equal("true");
          expect(retry.json(), batch.key).to.deep.equal(batch.answer.json());
        }
        batch.answer = retry;
      }
    }
    await server!.stop();
    if (cliDatabase) await (cliDatabase as Database).close();

    const check = await openMigratedDatabase(config, createLogger("silent"));
    try {
      const db = check.prisma;
      const entries = await db.auditEntry.findMany({ where: { organizationId: organization.id } });
      const entriesOf = (id: string) => entries.filter((entry) => entry.targetId === id);
      const events = await db.outboxEvent.findMany();
      const dataOf = (event: (typeof events)[number]) => (event.payload as { data: Record<string, unknown> }).data;
      const eventsAbout = (field: string, id: string) => events.filter((event) => dataOf(event)[field] === id);

      // Courses: one entry per version (the creation and each update), one course.updated per update.
      const courses = await db.course.findMany();
      for (const row of courses) {
        expect(entriesOf(row.id), `audit entries of ${row.code} v${row.version}`).to.have.length(row.version);
        expect(eventsAbout("courseId", row.id), `events of ${row.code}`).to.have.length(row.version - 1);
      }
      // Every retried batch ran exactly once: each of its courses exists once, at version 1.
      for (const batch of batches) {
        for (const code of batch.codes) {
          const found = courses.filter((row) => row.code === code);
          expect(
            found.map((row) => row.version),
            `${code} of ${batch.key} (seed ${SEED})`,
          ).to.deep.equal([1]);
        }
      }
      // The rule: one entry per version, equivalency.created then one equivalency.updated per later version.
      const stored = await db.equivalency.findUniqueOrThrow({ where: { id: ruleId } });
      expect(entriesOf(ruleId)).to.have.length(stored.version);
      expect(await db.equivalencyVersion.count({ where: { equivalencyId: ruleId } })).to.equal(stored.version);
      expect(eventsAbout("equivalencyId", ruleId)).to.have.length(stored.version);
      // Keys made by the load (API and CLI): each exists with exactly one creation entry, and every answered one exists.
      const keys = await db.apiKey.findMany({
        where: { OR: [{ name: { startsWith: "api-" } }, { name: { startsWith: "cli-" } }] },
      });
      for (const key of keys) {
        const operations = entriesOf(key.id).map((entry) => entry.operationId);
        expect(operations, `${key.name}`).to.deep.equal([
          key.name?.startsWith("cli-") ? "cli:keys create" : "createKey",
        ]);
      }
      const keyIds = new Set(keys.map((key) => key.id));
      expect(answeredKeys.filter((id) => !keyIds.has(id))).to.deep.equal([]);
      expect(keys.filter((key) => key.name?.startsWith("cli-")).length).to.be.at.least(answeredCli);
      // Nothing of an uncommitted change: every entry and every event names a record that exists.
      const known = new Set([...courses.map((row) => row.id), ruleId, ...keyIds]);
      expect(entries.filter((entry) => entry.targetId !== null && !known.has(entry.targetId))).to.deep.equal([]);
      expect(
        events.filter((event) => {
          const data = dataOf(event);
          return !known.has(String(data.courseId ?? data.equivalencyId));
        }),
      ).to.deep.equal([]);
      // No retried key is left in progress.
      expect(await db.idempotencyRecord.count({ where: { responseStatus: 0 } })).to.equal(0);
    } finally {
      await check.close();
    }
  });
});
