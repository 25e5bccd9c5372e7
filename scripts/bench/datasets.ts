// Benchmark of publishing a dataset: `--rules` equivalencies of one organization (default
// 100,000, each with a source and a target course; every `--issue-every`th source course, default
// 100, has no CIP code, so that rule has a row issue) published through the service three times:
// first (every state stored: the baseline), again with nothing changed, and again after
// `--changed` rules (default 10) were edited. A publication is decided from versions and stores
// only the states that changed, so the later two should cost a fraction of the first. Goals: the
// first publication completes (no transaction timeout); each later one at most 0.2 × the first.
//
//   npm run bench:datasets -- [--rules 100000] [--changed 10] [--issue-every 100] [--database-url postgresql://…]
import os from "node:os";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { createDatasetsService } from "../../src/services/datasets.ts";
import { cleanupStack, fixed, machine, printTable, runBench } from "./harness.ts";
import { createCourses, readRuleBenchOptions, ruleBench } from "./rules-common.ts";

const GOAL_RATIO = 0.2;

async function main() {
  const options = readRuleBenchOptions({ rules: 100_000, changed: 10, "issue-every": 100 });
  const { rules, changed, "issue-every": issueEvery } = options.counts;
  const { push, cleanup } = cleanupStack();
  try {
    const { bench, source, target, caller } = await ruleBench(options);
    push(bench.dispose);
    const db = bench.database.prisma;
    await createCourses(bench.database, source, "src", rules);
    await createCourses(bench.database, target, "tgt", 1);
    await db.$executeRawUnsafe(
      `UPDATE courses SET cip_code = '11.0701' WHERE institution_id = $1 AND substring(id from '[0-9]+$')::int % $2 <> 0`,
      source,
      issueEvery,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO equivalencies (id, environment, organization_id, source_course_id, source_course_ids,
                                  target_institution_id, target_course_id, target_key, targets, status,
                                  decided_at, created_at, updated_at)
       SELECT 'eq_' || n, 'live', $1, 'crs_src_' || n, ARRAY['crs_src_' || n], $2, 'crs_tgt_0', 'course:crs_tgt_0',
              '[{"courseId": "crs_tgt_0", "code": "TGT 0", "credits": null}]'::jsonb, 'accepted', now(), now(), now()
       FROM generate_series(0, $3 - 1) AS n`,
      caller.organizationId,
      target,
      rules,
    );
    // The seeding bypasses the service; the embedded database has no autovacuum to refresh statistics.
    await db.$executeRawUnsafe("ANALYZE");
    const repositories = repositoriesOf(bench.database);
    // Each dataset repository call inside the publication's transaction is timed, by method.
    const phases = new Map<string, number>();
    const datasets = createDatasetsService({
      datasets: repositories.datasets,
      transaction: (work, transactionOptions) =>
        repositories.transaction(
          (inside) => work({ ...inside, datasets: timed(inside.datasets, phases) }),
          transactionOptions,
        ),
      stalePendingDays: 30,
    });

    const publish = async (name: string) => {
      phases.clear();
      const started = performance.now();
      const dataset = await datasets.publishDataset(caller, { label: name });
      const seconds = (performance.now() - started) / 1000;
      const [{ stored }] = await db.$queryRawUnsafe<{ stored: number }[]>(
        `SELECT count(*)::int AS stored FROM dataset_states AS s JOIN dataset_versions AS v ON v.id = $1
         WHERE s.organization_id = v.organization_id AND s.environment = v.environment AND s.first_sequence = v.sequence`,
        dataset.id,
      );
      const calls = [...phases].map(([method, ms]) => `${method} ${fixed(ms / 1000, 2)}`).join(", ");
      return { name, seconds, stored, issues: dataset.issueCount, load: os.loadavg()[0], calls };
    };
    const loadAtStart = os.loadavg()[0];
    const first = await publish("first publication (every state stored): baseline");
    const unchanged = await publish("again, nothing changed");
    await db.$executeRawUnsafe(
      "UPDATE equivalencies SET priority = 1, version = version + 1, updated_at = now() WHERE id = ANY($1::text[])",
      Array.from({ length: changed }, (_, n) => `eq_${n * Math.floor(rules / changed)}`),
    );
    const edited = await publish(`again, after ${changed} rules were edited`);

    console.log(`\nDataset publication benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `${rules.toLocaleString("en-US")} accepted rules of one organization, published through the service.\n`,
    );
    printTable(
      ["publication", "seconds", "states stored", "issues", "load after", "ratio to baseline", "of which (s)"],
      [first, unchanged, edited].map((p) => [
        p.name,
        fixed(p.seconds, 2),
        p.stored.toLocaleString("en-US"),
        p.issues.toLocaleString("en-US"),
        fixed(p.load, 1),
        fixed(p.seconds / first.seconds, 2),
        p.calls,
      ]),
    );
    console.log(`\nGoals (load average ${fixed(loadAtStart, 1)} at the start):`);
    console.log(
      `- ${rules.toLocaleString("en-US")} rules published without a transaction timeout — met (${fixed(first.seconds, 2)} s)`,
    );
    for (const later of [unchanged, edited]) {
      const ratio = later.seconds / first.seconds;
      console.log(
        `- ${later.name} ≤ ${GOAL_RATIO} × the first — ${ratio <= GOAL_RATIO ? "met" : "NOT met"} (${fixed(ratio, 2)})`,
      );
    }
  } finally {
    await cleanup();
  }
}

/** `target` with each method's time added to `phases` under the method's name. */
function timed<T extends object>(target: T, phases: Map<string, number>): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await value.apply(object, args);
        } finally {
          phases.set(String(key), (phases.get(String(key)) ?? 0) + performance.now() - started);
        }
      };
    },
  });
}

runBench(main);
