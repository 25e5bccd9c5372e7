// Benchmark of POST /equivalencies/imports' work: a CSV file of `--rows` rules
// (default 10,000; one source course each, accepted, C or better, dated) imported through the
// import service, parsed as it streams and written row by row. The baseline, in the same run and
// on the same database, creates as many rules one by one with the service the import calls for
// each row (createEquivalency), without the file: what the CSV, the code lookups and the issues
// cost on top. Goal: ≥ 5,000 rows/s on both databases.
//
//   npm run bench:import -- [--rows 10000] [--database-url postgresql://…]
import { repositoriesOf } from "../../src/repositories/index.ts";
import { createEquivalencyImportService } from "../../src/services/equivalency-import.ts";
import { cleanupStack, fixed, machine, printTable } from "./harness.ts";
import { courseId, createCourses, readRuleBenchOptions, ruleBench } from "./rules-common.ts";

const GOAL_ROWS_PER_SECOND = 5_000;

async function main() {
  const options = readRuleBenchOptions({ rows: 10_000 });
  const { rows } = options.counts;
  const { push, cleanup } = cleanupStack();
  try {
    const { bench, source, target, caller, rules } = await ruleBench(options);
    push(bench.dispose);
    await createCourses(bench.database, source, "imp", rows);
    await createCourses(bench.database, source, "base", rows);
    await createCourses(bench.database, target, "tgt", 1);
    const imports = createEquivalencyImportService({
      ...repositoriesOf(bench.database),
      equivalenciesService: rules,
    });

    const baselineStarted = performance.now();
    for (let n = 0; n < rows; n++) {
      await rules.createEquivalency(caller, {
        sourceCourseIds: [courseId("base", n)],
        targetInstitutionId: target,
        targets: [{ courseId: courseId("tgt", 0) }],
        minimumGrade: "C",
        effectiveFrom: "2024-08-15",
        status: "accepted",
      });
    }
    const baselineSeconds = (performance.now() - baselineStarted) / 1000;

    const header =
      "source_institution,source_course_1,target_institution,target_course_1,minimum_grade,effective_from,status";
    const lines = Array.from({ length: rows }, (_, n) => `${source},IMP ${n},${target},TGT 0,C,2024-08-15,accepted`);
    const csv = `${header}\r\n${lines.join("\r\n")}\r\n`;
    const started = performance.now();
    const result = await imports.importEquivalencies(caller, csv);
    const seconds = (performance.now() - started) / 1000;
    if (result.summary.created !== rows)
      throw new Error(
        `The import created ${result.summary.created} of ${rows} rows: ${JSON.stringify(result.issues.slice(0, 3))}`,
      );

    const rate = rows / seconds;
    const baselineRate = rows / baselineSeconds;
    console.log(`\nRule import benchmark — ${bench.label}; ${machine()}`);
    console.log(
      `${rows.toLocaleString("en-US")} rows (${(csv.length / 1024).toFixed(0)} KiB of CSV), every one created accepted.\n`,
    );
    printTable(
      ["pass", "rows/s", "ratio to baseline"],
      [
        [
          "importEquivalencies (CSV parse, code lookups, one transaction a row)",
          fixed(rate, 0),
          fixed(rate / baselineRate, 2),
        ],
        ["baseline: createEquivalency per rule, no file", fixed(baselineRate, 0), "1.00"],
      ],
    );
    console.log(
      `\nGoal: ≥ ${GOAL_ROWS_PER_SECOND.toLocaleString("en-US")} rows/s — ${rate >= GOAL_ROWS_PER_SECOND ? "met" : "NOT met"} (${fixed(rate, 0)}).`,
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
