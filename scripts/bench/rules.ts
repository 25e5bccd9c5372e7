// Benchmark of writing accepted rules with the ambiguity check: among `--rules`
// accepted rules already stored for one target institution (default 1,000,000; every tenth with
// an alternative source set, "A or B"), `--writes` rules (default 1,000) of two source courses
// each (every tenth with an alternative, "(A + B) or B") are created `accepted` through the service,
// so each takes the source set's advisory lock and looks for overlapping accepted rules. The
// baseline, in the same run and on the same database, creates as many rules `pending`: the same
// inserts, versions and events, without the check. Goal: ≥ 0.8 × the baseline.
//
//   npm run bench:rules -- [--rules 1000000] [--writes 1000] [--database-url postgresql://…]
import { cleanupStack, fixed, machine, printTable } from "./harness.ts";
import { courseId, createCourses, readRuleBenchOptions, ruleBench } from "./rules-common.ts";

const GOAL_RATIO = 0.8;

async function main() {
  const options = readRuleBenchOptions({ rules: 1_000_000, writes: 1_000 });
  const { rules: stored, writes } = options.counts;
  const { push, cleanup } = cleanupStack();
  try {
    const { bench, source, target, caller, rules } = await ruleBench(options);
    push(bench.dispose);
    // One source course per stored rule, and two per written rule (baseline and checked passes).
    await createCourses(bench.database, source, "old", stored);
    await createCourses(bench.database, source, "new", 4 * writes);
    await createCourses(bench.database, target, "tgt", 1);
    const seeding = performance.now();
    await bench.database.prisma.$executeRawUnsafe(
      `INSERT INTO equivalencies (id, environment, source_course_id, source_course_ids, source_course_sets,
                                  target_institution_id, target_code, target_key, status, decided_at, created_at, updated_at)
       SELECT 'eq_old_' || n, 'live', 'crs_old_' || n, ARRAY['crs_old_' || n],
              CASE WHEN n % 10 = 0
                THEN jsonb_build_array(jsonb_build_array('crs_old_' || n), jsonb_build_array('crs_old_' || ((n + 1) % $2)))
                ELSE '[]' END,
              $1, 'TGT 0', 'code:TGT 0', 'accepted', now(), now(), now()
       FROM generate_series(0, $2 - 1) AS n`,
      target,
      stored,
    );
    // The seeding bypasses the service; an import of as many rules refreshes the statistics the
    // same way (the embedded database has no autovacuum to do it).
    await bench.database.prisma.$executeRawUnsafe("ANALYZE equivalencies");
    const seedSeconds = (performance.now() - seeding) / 1000;

    const pass = async (name: string, status: "pending" | "accepted", first: number) => {
      const started = performance.now();
      for (let i = 0; i < writes; i++) {
        const n = first + 2 * i;
        const firstSet = [courseId("new", n), courseId("new", n + 1)];
        await rules.createEquivalency(caller, {
          sourceCourseIds: firstSet,
          // Every tenth with an alternative: "(A + B) or B".
          ...(i % 10 === 0 ? { sourceCourseSets: [firstSet, [courseId("new", n + 1)]] } : {}),
          targetInstitutionId: target,
          targets: [{ courseId: courseId("tgt", 0) }],
          minimumGrade: "C",
          effectiveFrom: "2024-08-15",
          status,
        });
      }
      const seconds = (performance.now() - started) / 1000;
      return { name, seconds, rate: writes / seconds };
    };
    const baseline = await pass("baseline: created pending (no ambiguity check)", "pending", 0);
    const checked = await pass("created accepted (advisory lock + ambiguity check)", "accepted", 2 * writes);

    console.log(`\nAccepted-rule write benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `${stored.toLocaleString("en-US")} accepted rules stored for one target institution (seeded in ${fixed(seedSeconds)} s); ` +
        `${writes.toLocaleString("en-US")} rules of two source courses written per pass, one at a time, through the service.\n`,
    );
    printTable(
      ["pass", "rules/s", "ms/rule", "ratio to baseline"],
      [baseline, checked].map((p) => [
        p.name,
        fixed(p.rate, 0),
        fixed((1000 * p.seconds) / writes, 2),
        fixed(p.rate / baseline.rate, 2),
      ]),
    );
    const ratio = checked.rate / baseline.rate;
    console.log(
      `\nGoal: ≥ ${GOAL_RATIO} × the baseline — ${ratio >= GOAL_RATIO ? "met" : "NOT met"} (${fixed(ratio, 2)}).`,
    );
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
