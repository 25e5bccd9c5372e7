// Benchmark of the read paths on 1,000,000 equivalencies: one equivalency by id,
// the first page of accepted ones, and the same list at deep offsets, each for
// ~10 s with 32 connections (autocannon). Baselines measured in the same run:
// the same server's /healthz, which touches neither credentials nor the database;
// for the single read and the list's first page, two floors each: the floor
// (floor-server.ts: node:http, the same SQL, the same credential cache; on the
// embedded database PGlite on the main thread) and the card floor
// (card-floor-server.ts: Koa and openapi-backend over the project's document with
// the project's router and the service's database access, the same SQL and key
// cache, no logging, metrics or rate limiting: what the design card's stack costs
// by itself); and for availability, /healthz latency with no load, beside the same
// while one client downloads the CSV export and two page at offset 500,000 (availability.ts).
// Each row also prints the server process's CPU time per answered request: on a busy
// machine req/s moves with the neighbours' load, CPU per request much less.
//
//   npx tsx scripts/bench/reads.ts [--database-url postgresql://…] [--duration 10]
//       [--equivalencies 1000000] [--only "GET /equivalencies/{id}"|availability]   (the /healthz baseline always runs)
//       [--keep-data DIR]   (embedded: load into DIR and keep it; a later run with the same DIR and count skips the load)
//       [--profile DIR]     (after the measured runs, profiles the floors and the service over one more run of the
//                            single read each, writes the .cpuprofile files into DIR and prints CPU per request by package)
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { createCredential, fixed, freshDatabase, machine, cleanupStack, printTable } from "./harness.ts";
import { describeLatency, healthLatency, healthUnderLoad } from "./availability.ts";
import { loadCatalog, startServerProcess, stopServerProcess } from "./catalog.ts";
import { profileWhile } from "./profiling.ts";
import { cpuMillisOf } from "./procfs.ts";
import { cpuByPlace, readProfile } from "./profile-summary.ts";

const DEFAULT_EQUIVALENCIES = 1_000_000;
let EQUIVALENCIES = DEFAULT_EQUIVALENCIES;
const CONNECTIONS = 32;
const WARMUP_SECONDS = 2;
/** Service ÷ card floor, for the single read and the list's first page, on both databases. */
const GOAL_CARD_FLOOR_RATIO = 0.9;
const LIST_FIRST_PAGE = "GET /equivalencies?status=accepted&limit=100, offset 0";
const GOAL_AVAILABILITY_P99_MS = 50;
const SINGLE_READ = "GET /equivalencies/{id} (random id)";
const CURSOR_DEPTH = 500_000;
const CURSOR_PAGE = "… by cursor (after=) at depth 500,000";
/** A cursor page at any depth costs at most this many times the first page: keyset paging must not grow with depth. */
const GOAL_CURSOR_RATIO = 1.5;

interface Scenario {
  name: string;
  path: string | (() => string);
  /** Counted against the goals, or measured for the record only. */
  goal?: string;
}

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  /** The server process's CPU time (user + system) per answered request, in µs: steadier than req/s on a busy machine. */
  cpuMicrosPerRequest?: number;
  goal?: string;
}

async function measure(
  origin: string,
  key: string,
  scenario: Scenario,
  seconds: number,
  serverPid?: number,
): Promise<Figures> {
  const paths = typeof scenario.path === "string" ? () => scenario.path as string : scenario.path;
  const options = {
    url: origin,
    connections: CONNECTIONS,
    headers: { Authorization: `Bearer ${key}`, Accept: "application/json" },
    requests: [{ method: "GET" as const, setupRequest: (request: object) => ({ ...request, path: paths() }) }],
  };
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const cpuBefore = serverPid === undefined ? 0 : cpuMillisOf(serverPid);
  const result = await autocannon({ ...options, duration: seconds });
  const cpuMillis = serverPid === undefined ? undefined : cpuMillisOf(serverPid) - cpuBefore;
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuMicrosPerRequest: cpuMillis === undefined ? undefined : (cpuMillis * 1000) / Math.max(1, result.requests.total),
    goal: scenario.goal,
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      "database-url": { type: "string" },
      duration: { type: "string", default: "10" },
      equivalencies: { type: "string" },
      only: { type: "string" },
      "keep-data": { type: "string" },
      profile: { type: "string" },
    },
    strict: true,
  });
  const seconds = Math.min(60, Math.max(1, Number(values.duration)));
  EQUIVALENCIES = Math.min(
    DEFAULT_EQUIVALENCIES * 5,
    Math.max(1_000, Number(values.equivalencies ?? DEFAULT_EQUIVALENCIES)),
  );
  const { push, cleanup } = cleanupStack();
  try {
    const bench = await freshDatabase({
      databaseUrl: values["database-url"] ?? null,
      keepDataDir: values["keep-data"],
    });
    push(bench.dispose);
    const { organizationId, key } = await createCredential(bench.database);
    const loadStarted = performance.now();
    const loaded = await bench.database.prisma.equivalency.count();
    if (loaded !== EQUIVALENCIES) {
      if (loaded)
        throw new Error(
          `${values["keep-data"]} holds ${loaded} equivalencies, not ${EQUIVALENCIES}: use another directory.`,
        );
      await loadCatalog(bench, organizationId, EQUIVALENCIES);
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const accepted = await bench.database.prisma.equivalency.count({ where: { status: "accepted" } });
    // PGlite is one process's database: hand it over to the server process.
    if (!bench.config.databaseUrl) await bench.database.close();

    const embedded = !bench.config.databaseUrl;
    const randomId = () =>
      `/api/v1/equivalencies/eq_bench_${String(Math.floor(Math.random() * EQUIVALENCIES)).padStart(8, "0")}`;
    const list = (offset: number) => `/api/v1/equivalencies?status=accepted&limit=100&offset=${offset}`;
    const allScenarios: Scenario[] = [
      { name: "baseline: GET /healthz", path: "/healthz" },
      {
        name: SINGLE_READ,
        path: randomId,
        goal: `≥ ${GOAL_CARD_FLOOR_RATIO} × the card floor's req/s`,
      },
      {
        name: LIST_FIRST_PAGE,
        path: list(0),
        goal: `≥ ${GOAL_CARD_FLOOR_RATIO} × its card floor's req/s`,
      },
      { name: "… offset 10,000", path: list(10_000) },
      { name: "… offset 100,000", path: list(100_000) },
      { name: "… offset 500,000", path: list(500_000) },
      { name: CURSOR_PAGE, path: () => `/api/v1/equivalencies?status=accepted&limit=100&after=${deepCursor}` },
    ];
    const selected = (name: string) => !values.only || name.includes(values.only);
    let deepCursor = "";
    const scenarios = allScenarios.filter((scenario, index) => index === 0 || selected(scenario.name));

    // The floors first, each in its own process (the embedded database admits one process at a time).
    // On the embedded database a second floor sends each statement in one call, as the service's engine thread does.
    const floors: Figures[] = [];
    const profiles: { label: string; file: string; requests: number; processCpuMicros: number }[] = [];
    const profiled = async (
      child: import("node:child_process").ChildProcess,
      label: string,
      run: () => Promise<Figures>,
    ) => {
      fs.mkdirSync(values.profile!, { recursive: true });
      const file = path.join(values.profile!, `${label}.cpuprofile`);
      const cpuBefore = cpuMillisOf(child.pid!);
      const figures = await profileWhile(child, file, run);
      const requests = figures.requestsPerSecond * seconds;
      return { label, file, requests, processCpuMicros: ((cpuMillisOf(child.pid!) - cpuBefore) * 1000) / requests };
    };
    /** Measures one floor server for `scenarios`; profiles its single read when asked. */
    const measureFloor = async (script: string, env: Record<string, string>, runs: Scenario[], label: string) => {
      const server = await startServerProcess(bench, script, env);
      for (const run of runs) {
        await expectOk(server.origin, key, run.name, typeof run.path === "string" ? run.path : run.path());
        floors.push(await measure(server.origin, key, run, seconds, server.child.pid));
      }
      if (values.profile && runs.some((run) => run.path === randomId))
        profiles.push(
          await profiled(server.child, label, () =>
            measure(server.origin, key, { name: label, path: randomId }, seconds),
          ),
        );
      await stopServerProcess(server.child);
    };
    const driver = embedded ? "PGlite on the main thread" : "node:http + pg";
    const floorRuns: Scenario[] = [
      ...(selected(SINGLE_READ) ? [{ name: `floor: ${SINGLE_READ} (${driver})`, path: randomId }] : []),
      ...(selected(LIST_FIRST_PAGE) ? [{ name: `floor: the list's first page (${driver})`, path: list(0) }] : []),
    ];
    const cardRuns: Scenario[] = [
      ...(selected(SINGLE_READ) ? [{ name: `card floor: ${SINGLE_READ}`, path: randomId }] : []),
      ...(selected(LIST_FIRST_PAGE) ? [{ name: "card floor: the list's first page", path: list(0) }] : []),
    ];
    if (floorRuns.length) await measureFloor("floor-server.ts", {}, floorRuns, "floor");
    if (embedded && selected(SINGLE_READ))
      await measureFloor(
        "floor-server.ts",
        { BENCH_FLOOR_ONE_CALL: "1" },
        [{ name: "… the same floor, one call per statement", path: randomId }],
        "floor, one call",
      );
    if (cardRuns.length) await measureFloor("card-floor-server.ts", {}, cardRuns, "card floor");
    const floorOf = (kind: "floor" | "card floor", list: boolean) =>
      floors.find((f) => f.name.startsWith(`${kind}:`) && f.name.includes("list") === list);
    const { child, origin } = await startServerProcess(bench);
    push(() => stopServerProcess(child));
    // The cursor of the 500,000th accepted equivalency: the page after it starts at depth 500,000.
    deepCursor = encodeURIComponent(
      (
        (await (
          await fetch(
            `${origin}${list(Math.max(0, Math.min(CURSOR_DEPTH, accepted - 200) - 1)).replace("limit=100", "limit=1")}`,
            {
              headers: { Authorization: `Bearer ${key}` },
            },
          )
        ).json()) as { pagination: { nextCursor: string } }
      ).pagination.nextCursor,
    );
    for (const scenario of scenarios)
      await expectOk(origin, key, scenario.name, typeof scenario.path === "string" ? scenario.path : scenario.path());
    const figures: Figures[] = [];
    for (const scenario of scenarios) figures.push(await measure(origin, key, scenario, seconds, child.pid));
    if (values.profile && selected(SINGLE_READ))
      profiles.push(
        await profiled(child, "service", () => measure(origin, key, { name: SINGLE_READ, path: randomId }, seconds)),
      );
    const availability = selected("availability")
      ? { idle: await healthLatency(origin, seconds), ...(await healthUnderLoad(origin, key, seconds)) }
      : undefined;

    const baseline = figures[0];
    const single = figures.find((f) => f.name === SINGLE_READ);
    const firstPage = figures.find((f) => f.name === allScenarios[2].name);
    console.log(`\nRead benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `${EQUIVALENCIES.toLocaleString("en-US")} equivalencies (${accepted.toLocaleString("en-US")} accepted) ${loaded ? "reused" : `loaded in ${fixed(loadSeconds)} s`}; ` +
        `${CONNECTIONS} connections, ${seconds} s per row after a ${WARMUP_SECONDS} s warm-up.\n`,
    );
    const rows = [...floors, ...figures];
    /** The single read and the list's first page, and their floors, against both floors of their kind. */
    const ratioTo = (kind: "floor" | "card floor") => (f: Figures) => {
      const isList = f.name.includes("list") || f.name === LIST_FIRST_PAGE;
      const against = floorOf(kind, isList);
      const counted = f === single || f === firstPage || floors.includes(f);
      return counted && against ? fixed(f.requestsPerSecond / against.requestsPerSecond, 2) : "";
    };
    /** The card floor's CPU per request ÷ this row's: the req/s ratio a CPU-bound server would reach. */
    const cpuRatioToCard = (f: Figures) => {
      const isList = f.name.includes("list") || f.name === LIST_FIRST_PAGE;
      const card = floorOf("card floor", isList);
      const counted = f === single || f === firstPage || floors.includes(f);
      return counted && card?.cpuMicrosPerRequest && f.cpuMicrosPerRequest
        ? fixed(card.cpuMicrosPerRequest / f.cpuMicrosPerRequest, 2)
        : "";
    };
    printTable(
      [
        "request",
        "req/s",
        "p50 ms",
        "p99 ms",
        "÷ /healthz",
        "÷ floor",
        "÷ card floor",
        "server CPU µs/req",
        "card floor's CPU ÷ this",
        "non-2xx/errors",
        "goal",
      ],
      rows.map((f) => [
        f.name,
        fixed(f.requestsPerSecond, 0),
        fixed(f.p50, 0),
        fixed(f.p99, 0),
        fixed(f.requestsPerSecond / baseline.requestsPerSecond, 2),
        ratioTo("floor")(f),
        ratioTo("card floor")(f),
        f.cpuMicrosPerRequest === undefined ? "" : fixed(f.cpuMicrosPerRequest, 0),
        cpuRatioToCard(f),
        f.failures,
        f.goal ?? "measured only",
      ]),
    );
    if (availability) {
      console.log(
        `\nAvailability: /healthz probed ${1000 / 50} times a second for ${seconds} s (latency in ms; a probe unanswered after 10 s counts as 10 s).\n`,
      );
      const { load } = availability;
      printTable(
        ["/healthz", "probes", "p50", "p99", "max", "timeouts"],
        [
          ["baseline: no load", ...describeLatency(availability.idle)],
          [
            "during the CSV export + 2 clients at offset 500,000 + 2 by cursor from depth 500,000",
            ...describeLatency(availability.latency),
          ],
        ],
      );
      console.log(
        `Meanwhile: ${fixed(load.exportBytes / 2 ** 20, 0)} MiB of CSV (${load.exportsCompleted} whole exports), ${load.deepPages} deep pages by offset, ${load.cursorPages} by cursor, ${load.failures} failed requests.`,
      );
    }
    if (profiles.length) printProfiles(profiles);
    const verdict = (met: boolean | undefined) => (met === undefined ? "not measured" : met ? "met" : "NOT met");
    const cursorPage = figures.find((f) => f.name === CURSOR_PAGE);
    const cursorRatio =
      cursorPage && firstPage ? firstPage.requestsPerSecond / cursorPage.requestsPerSecond : undefined;
    const againstCard = (f: Figures | undefined, list: boolean) => {
      const card = floorOf("card floor", list);
      return f && card ? f.requestsPerSecond / card.requestsPerSecond : undefined;
    };
    const goal = (ratio: number | undefined) =>
      `${verdict(ratio === undefined ? undefined : ratio >= GOAL_CARD_FLOOR_RATIO)} (${ratio === undefined ? "n/a" : fixed(ratio, 2)})`;
    console.log(
      `\nGoals: single read ≥ ${GOAL_CARD_FLOOR_RATIO} × the card floor ${goal(againstCard(single, false))}; ` +
        `list's first page ≥ ${GOAL_CARD_FLOOR_RATIO} × its card floor ${goal(againstCard(firstPage, true))}; ` +
        `/healthz p99 under load < ${GOAL_AVAILABILITY_P99_MS} ms ${verdict(availability ? availability.latency.p99 < GOAL_AVAILABILITY_P99_MS : undefined)}; ` +
        `cursor page at depth ${CURSOR_DEPTH.toLocaleString("en-US")} ≤ ${GOAL_CURSOR_RATIO} × the first page's time ${verdict(cursorRatio === undefined ? undefined : cursorRatio <= GOAL_CURSOR_RATIO)} (${cursorRatio === undefined ? "n/a" : fixed(cursorRatio, 2)}).`,
    );
  } finally {
    await cleanup();
  }
}

/** CPU time per answered request by package or folder, floor beside service (profiles of one more single-read run each). */
function printProfiles(profiles: { label: string; file: string; requests: number; processCpuMicros: number }[]) {
  // The sampler counts wall time: a thread waiting for a core inside a system call (writev to a socket
  // wakes the reader) counts as that call. Process CPU is the honest total; the table, where it went.
  const perRequest = profiles.map((p) => {
    const places = cpuByPlace(readProfile(p.file));
    return { ...p, places, total: [...places.values()].reduce((sum, ms) => sum + ms, 0) };
  });
  const names = [...new Set(perRequest.flatMap((p) => [...p.places.keys()]))];
  const micros = (p: (typeof perRequest)[number], ms: number) => (ms * 1000) / p.requests;
  const last = perRequest[perRequest.length - 1];
  names.sort((a, b) => (last.places.get(b) ?? 0) - (last.places.get(a) ?? 0));
  console.log(
    `\nCPU per answered request (µs, V8 sampling profiler over one more ${SINGLE_READ} run each; idle left out; files in ${path.dirname(perRequest[0].file)}):\n`,
  );
  printTable(
    ["package or folder", ...perRequest.map((p) => `${p.label} µs`)],
    [
      ["process CPU (utime + stime, from /proc)", ...perRequest.map((p) => fixed(p.processCpuMicros, 0))],
      ["all samples (wall time on the main thread, not idle)", ...perRequest.map((p) => fixed(micros(p, p.total), 0))],
      ...names
        .filter((name) => perRequest.some((p) => micros(p, p.places.get(name) ?? 0) >= 2))
        .map((name) => [name, ...perRequest.map((p) => fixed(micros(p, p.places.get(name) ?? 0), 0))]),
    ],
  );
}

async function expectOk(origin: string, key: string, name: string, path: string): Promise<void> {
  const probe = await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  if (probe.status !== 200) throw new Error(`${name} answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
