// `npm run bench:load`: a fixed arrival rate of a realistic mix against the real
// server as `npm start` runs it, with 1, 2 and 4 API processes on PostgreSQL
// (SVC_CLUSTER_WORKERS) and one process on the embedded database. The mix is
// mostly reads, as a partner's traffic is: 80 % reads (a course or an equivalency
// by id, a page of courses or institutions), 15 % course batches (POST /courses,
// 20 re-upserted courses), 5 % PATCH /equivalencies/{id} with If-Match (the ETag
// of a GET made just before, not timed). Open loop: requests are started on
// schedule whether or not earlier ones have answered (at most --max-in-flight at
// once; the rest are counted as not sent). Reports per configuration: throughput,
// p50/p99 per operation, errors (5xx, network; 412 on a PATCH that lost a race is
// counted apart), RSS of the whole process tree before and after, and ratios
// against one process on PostgreSQL.
//
//   npm run bench:load -- [--rate 300] [--seconds 60] [--only pg1,pg2,pg4,embedded]
//                         [--database-url postgresql://postgres@127.0.0.1:5432/postgres]
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import http from "node:http";
import net from "node:net";
import { spawnService, type ServiceProcess } from "../../test/helpers/processes.ts";
import { processTable, TICKS_PER_SECOND, treeMemory, treeOf } from "./procfs.ts";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "300" },
    seconds: { type: "string", default: "60" },
    warmup: { type: "string", default: "5" },
    only: { type: "string", default: "pg1,pg2,pg4,embedded" },
    "max-in-flight": { type: "string", default: "512" },
    "database-url": { type: "string", default: "postgresql://postgres@127.0.0.1:5432/postgres" },
  },
  strict: true,
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const MAX_IN_FLIGHT = Number(values["max-in-flight"]);
const SERVER_URL = values["database-url"]!;
const SECRETS_KEY = "c".repeat(64);
const COURSES = 2_000;
const EQUIVALENCIES = 500;
const INSTITUTIONS = ["inst_110635", "inst_122977"];

type Op = "getCourse" | "getEquivalency" | "listCourses" | "listInstitutions" | "upsertCourses" | "updateEquivalency";
const MIX: [Op, number][] = [
  ["getCourse", 30],
  ["getEquivalency", 20],
  ["listCourses", 15],
  ["listInstitutions", 15],
  ["upsertCourses", 15],
  ["updateEquivalency", 5],
];

interface Setup {
  label: string;
  workers: number;
  embedded: boolean;
}
const SETUPS: Record<string, Setup> = {
  pg1: { label: "PostgreSQL, 1 process", workers: 1, embedded: false },
  pg2: { label: "PostgreSQL, 2 processes", workers: 2, embedded: false },
  pg4: { label: "PostgreSQL, 4 processes", workers: 4, embedded: false },
  embedded: { label: "embedded, 1 process", workers: 1, embedded: true },
};

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Resident memory of a process and all its descendants, in MB (Linux /proc). */
/** CPU seconds used so far by the service's process tree, by PostgreSQL's processes, by this load generator, and by the whole machine. */
function cpuSeconds(serverPid: number) {
  const table = processTable();
  const service = treeOf(serverPid, table);
  let serviceTicks = 0;
  let postgresTicks = 0;
  for (const [pid, entry] of table) {
    if (service.has(pid)) serviceTicks += entry.ticks;
    else if (entry.command === "postgres") postgresTicks += entry.ticks;
  }
  const [, ...machine] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: busy is everything but idle and iowait.
  const machineBusy = machine.slice(0, 8).reduce((sum, ticks, i) => (i === 3 || i === 4 ? sum : sum + ticks), 0);
  const own = process.cpuUsage();
  return {
    service: serviceTicks / TICKS_PER_SECOND,
    postgres: postgresTicks / TICKS_PER_SECOND,
    loadGenerator: (own.user + own.system) / 1e6,
    machine: machineBusy / TICKS_PER_SECOND,
  };
}

/** Cores each part kept busy between two readings `seconds` apart. */
function coresBusy(before: ReturnType<typeof cpuSeconds>, after: ReturnType<typeof cpuSeconds>, seconds: number) {
  const per = (key: keyof typeof before) => (after[key] - before[key]) / seconds;
  return {
    service: per("service"),
    postgres: per("postgres"),
    loadGenerator: per("loadGenerator"),
    machine: per("machine"),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function seedCredentials(databaseUrl: string, dataDir: string): Promise<string> {
  // The same code path as the CLI: organization, key, stewardship, institutions.
  const { loadConfig } = await import("../../src/kernel/config.ts");
  const { createLogger } = await import("../../src/kernel/logger.ts");
  const { openMigratedDatabase } = await import("../../src/process/startup.ts");
  const { createRepositories } = await import("../../src/repositories/index.ts");
  const { createOrganizationsService } = await import("../../src/services/organizations.ts");
  const { createKeysService } = await import("../../src/services/keys.ts");
  const { createStewardshipService } = await import("../../src/services/stewardship.ts");
  const { loadInstitutions } = await import("../../test/helpers/fixtures.ts");
  const config = loadConfig({ DATABASE_URL: databaseUrl, SVC_DATA_DIR: dataDir, SVC_SECRETS_KEY: SECRETS_KEY });
  const database = await openMigratedDatabase(config, createLogger("silent"));
  try {
    const repositories = createRepositories(database.prisma);
    const organization = await createOrganizationsService(repositories).createOrganization({
      slug: "bench",
      name: "Bench",
      source: "channel_a",
    });
    await createStewardshipService(repositories).grantStewardship(organization.id, "live", { all: true });
    await loadInstitutions(database.prisma, "live");
    const issued = await createKeysService(repositories).issueKey({
      organizationId: organization.id,
      environment: "live",
    });
    return issued.key;
  } finally {
    await database.close();
  }
}

interface Sample {
  op: Op;
  ms: number;
  status: number;
  /** Why a request got no answer (status 0): the network error's code or message. */
  failure?: string;
}

async function runSetup(setup: Setup) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bench-load-"));
  const name = `svc_bench_load_${crypto.randomBytes(4).toString("hex")}`;
  let databaseUrl = "";
  if (!setup.embedded) {
    await admin(`CREATE DATABASE "${name}"`);
    databaseUrl = withDatabase(SERVER_URL, name);
  }
  let server: ServiceProcess | null = null;
  const port = await freePort();
  try {
    const key = await seedCredentials(databaseUrl, dataDir);
    server = spawnService(
      "src/main.ts",
      {
        DATABASE_URL: databaseUrl,
        SVC_DATA_DIR: dataDir,
        SVC_CLUSTER_WORKERS: String(setup.workers),
        SVC_SECRETS_KEY: SECRETS_KEY,
        SVC_SEED_SANDBOX: "false",
        SVC_WEBHOOK_DISPATCHER: "off",
        SVC_RATE_LIMIT_BURST: "1000000",
        SVC_RATE_LIMIT_REFILL_PER_SECOND: "1000000",
        SVC_RATE_LIMIT_ORG_BURST: "1000000",
        SVC_RATE_LIMIT_ORG_REFILL_PER_SECOND: "1000000",
        NODE_ENV: "production",
        SVC_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        PORT: String(port),
      },
      { stdout: "ignore" },
    );
    // Request logs are written as in production, to /dev/null; readiness tells when the server listens.
    const base = `http://127.0.0.1:${port}/api/v1`;
    const startDeadline = Date.now() + 300_000;
    for (;;) {
      if (server.child.exitCode !== null) throw new Error(`the server exited: ${server.stderr()}`);
      if (Date.now() > startDeadline) throw new Error("the server did not start in time");
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // A cluster's other workers may still be starting: give them the time the slowest start takes here.
    if (setup.workers > 1) await new Promise((resolve) => setTimeout(resolve, 15_000));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const call = (method: string, url: string, body?: unknown, extra: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = http.request(`${base}${url}`, {
          method,
          agent,
          headers: { ...headers, ...extra },
          timeout: 30_000,
        });
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.on("error", reject);
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString("utf8"),
            }),
          );
        });
        req.end(payload);
      });

    // Data: 2,000 courses, 500 equivalencies between them.
    const courseIds: string[] = [];
    for (let b = 0; b < COURSES / 500; b++) {
      const items = Array.from({ length: 500 }, (_, i) => ({
        institutionId: INSTITUTIONS[(b * 500 + i) % 2],
        code: `LD ${b * 500 + i}`,
        title: `Load course ${b * 500 + i}`,
        credits: 3,
        level: "lower",
      }));
      const created = await call("POST", "/courses", items);
      if (created.status !== 201) throw new Error(`seeding courses: ${created.status} ${created.text}`);
      for (const r of JSON.parse(created.text).data as { id: string }[]) courseIds.push(r.id);
    }
    const equivalencyIds: string[] = [];
    for (let i = 0; i < EQUIVALENCIES; i++) {
      const source = courseIds[i * 2];
      const created = await call("POST", "/equivalencies", {
        sourceCourseId: source,
        targetInstitutionId: INSTITUTIONS[1 - ((i * 2) % 2)],
        targetCourseId: courseIds[i * 2 + 1],
      });
      if (created.status !== 201) throw new Error(`seeding equivalencies: ${created.status} ${created.text}`);
      equivalencyIds.push(JSON.parse(created.text).data.id);
    }
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
    const totalWeight = MIX.reduce((sum, [, w]) => sum + w, 0);
    const chooseOp = (): Op => {
      let r = Math.random() * totalWeight;
      for (const [op, w] of MIX) {
        r -= w;
        if (r < 0) return op;
      }
      return MIX[0][0];
    };
    let batchNo = 0;
    const run = async (op: Op): Promise<Sample> => {
      let started = performance.now();
      let status = 0;
      let failure: string | undefined;
      try {
        switch (op) {
          case "getCourse":
            status = (await call("GET", `/courses/${pick(courseIds)}`)).status;
            break;
          case "getEquivalency":
            status = (await call("GET", `/equivalencies/${pick(equivalencyIds)}`)).status;
            break;
          case "listCourses":
            status = (
              await call(
                "GET",
                `/courses?institution=${pick(INSTITUTIONS)}&limit=25&offset=${Math.floor(Math.random() * 900)}`,
              )
            ).status;
            break;
          case "listInstitutions":
            status = (await call("GET", "/institutions?limit=25")).status;
            break;
          case "upsertCourses": {
            const first = (batchNo++ * 20) % COURSES;
            const items = Array.from({ length: 20 }, (_, i) => ({
              institutionId: INSTITUTIONS[(first + i) % 2],
              code: `LD ${first + i}`,
              title: `Load course ${first + i} (${batchNo})`,
              credits: 3,
              level: "lower",
            }));
            status = (await call("POST", "/courses", items)).status;
            break;
          }
          case "updateEquivalency": {
            const id = pick(equivalencyIds);
            const current = await call("GET", `/equivalencies/${id}`);
            started = performance.now();
            status = (
              await call(
                "PATCH",
                `/equivalencies/${id}`,
                { targetCode: `L${Date.now() % 100000}` },
                { "if-match": String(current.headers.etag) },
              )
            ).status;
            break;
          }
        }
      } catch (error) {
        status = 0;
        failure = `${op}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      }
      return { op, ms: performance.now() - started, status, failure };
    };

    // Warm-up at the same rate, not measured; then the measured run.
    const drive = async (seconds: number, measure: boolean) => {
      const samples: Sample[] = [];
      let inFlight = 0;
      let notSent = 0;
      const pending = new Set<Promise<void>>();
      const begin = performance.now();
      let launched = 0;
      while (performance.now() - begin < seconds * 1000) {
        const due = Math.floor(((performance.now() - begin) / 1000) * RATE);
        for (; launched < due; launched++) {
          if (inFlight >= MAX_IN_FLIGHT) {
            notSent++;
            continue;
          }
          inFlight++;
          const work = run(chooseOp()).then((sample) => {
            inFlight--;
            if (measure) samples.push(sample);
          });
          pending.add(work);
          void work.finally(() => pending.delete(work));
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const sentWindowMs = performance.now() - begin;
      await Promise.all(pending);
      return { samples, notSent, seconds: sentWindowMs / 1000, drainedMs: performance.now() - begin - sentWindowMs };
    };
    await drive(WARMUP, false);
    const rssBefore = Math.round(treeMemory(server.child.pid!).rss);
    const cpuBefore = cpuSeconds(server.child.pid!);
    const result = await drive(SECONDS, true);
    const cores = coresBusy(cpuBefore, cpuSeconds(server.child.pid!), result.seconds + result.drainedMs / 1000);
    const rssAfter = Math.round(treeMemory(server.child.pid!).rss);
    agent.destroy();

    const ok = result.samples.filter((s) => s.status >= 200 && s.status < 300);
    const conflicts = result.samples.filter((s) => s.status === 412);
    const errors = result.samples.filter((s) => !(s.status >= 200 && s.status < 300) && s.status !== 412);
    const perOp = Object.fromEntries(
      MIX.map(([op]) => {
        const times = result.samples
          .filter((s) => s.op === op)
          .map((s) => s.ms)
          .sort((a, b) => a - b);
        return [op, { n: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99) }];
      }),
    );
    const all = result.samples.map((s) => s.ms).sort((a, b) => a - b);
    return {
      setup,
      offered: RATE,
      throughput: ok.length / result.seconds,
      p50: quantile(all, 0.5),
      p99: quantile(all, 0.99),
      perOp,
      errors: errors.length,
      errorStatuses: [...new Set(errors.map((e) => (e.status ? String(e.status) : `no answer: ${e.failure}`)))],
      conflicts: conflicts.length,
      notSent: result.notSent,
      drainedMs: result.drainedMs,
      rssBefore,
      rssAfter,
      cores,
    };
  } finally {
    await server?.stop();
    if (!setup.embedded) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : "–");

async function main() {
  console.log(
    `load: ${RATE} requests/s offered for ${SECONDS} s (after ${WARMUP} s of warm-up), at most ${MAX_IN_FLIGHT} in flight; ` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} at the start`,
  );
  const results = [];
  for (const key of values.only!.split(",")) {
    const setup = SETUPS[key.trim()];
    if (!setup) throw new Error(`unknown setup ${key}; choose from ${Object.keys(SETUPS).join(", ")}`);
    process.stdout.write(`${setup.label}: `);
    const result = await runSetup(setup);
    results.push(result);
    console.log(
      `${fmt(result.throughput)} req/s, p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms, errors ${result.errors}` +
        `${result.errorStatuses.length ? ` (${result.errorStatuses.join(", ")})` : ""}, 412 ${result.conflicts}, not sent ${result.notSent}, ` +
        `RSS ${result.rssBefore} → ${result.rssAfter} MB (load average now ${os.loadavg()[0].toFixed(1)})`,
    );
  }
  const baseline = results.find((r) => !r.setup.embedded && r.setup.workers === 1);
  console.log("\n| Setup | Throughput (req/s) | × 1 process | p50 / p99 all (ms) | errors | RSS before → after (MB) |");
  console.log("|---|---|---|---|---|---|");
  for (const r of results)
    console.log(
      `| ${r.setup.label} | ${fmt(r.throughput)} of ${r.offered} offered | ${baseline ? (r.throughput / baseline.throughput).toFixed(2) : "–"} | ${fmt(r.p50)} / ${fmt(r.p99)} | ${r.errors} | ${r.rssBefore} → ${r.rssAfter} (${(((r.rssAfter - r.rssBefore) / r.rssBefore) * 100).toFixed(1)} %) |`,
    );
  console.log(`\n| Setup | ${MIX.map(([op]) => `${op} p50 / p99`).join(" | ")} |`);
  console.log(`|---|${MIX.map(() => "---").join("|")}|`);
  for (const r of results)
    console.log(
      `| ${r.setup.label} | ${MIX.map(([op]) => `${fmt(r.perOp[op].p50)} / ${fmt(r.perOp[op].p99)}`).join(" | ")} |`,
    );
  // Where the machine's cores went during the measured minute: the ceiling when more processes add nothing.
  console.log(
    `\n| Setup | cores busy: service | PostgreSQL | load generator | whole machine (of ${os.cpus().length}) | CPU ms per answered request |`,
  );
  console.log("|---|---|---|---|---|---|");
  const two = (n: number) => n.toFixed(2);
  for (const r of results)
    console.log(
      `| ${r.setup.label} | ${two(r.cores.service)} | ${two(r.cores.postgres)} | ${two(r.cores.loadGenerator)} | ${two(r.cores.machine)} | ` +
        `${fmt(((r.cores.service + r.cores.postgres) * 1000) / r.throughput)} (service + PostgreSQL) |`,
    );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
