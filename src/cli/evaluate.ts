// `evaluate --file transcript.csv` and `requests list`: "will these courses transfer?" and the rules
// students asked for, through the same services as POST /transfer-evaluations and GET
// /equivalency-requests. The transcript is a CSV file with a header row: `institution,code,grade,
// completed_on` (grade and date may be empty), or `course_id` in place of institution and code.
import fs from "node:fs";
import type { Command } from "commander";
import { parse } from "csv-parse/sync";
import type { Environment } from "../../generated/prisma/enums.ts";
import type { EvaluationRequest } from "../services/rules/evaluation-service.ts";
import { institutionIdOf } from "../kernel/ids.ts";
import { actingAs } from "./rules.ts";
import type { ImportInput } from "./equivalencies.ts";
import { calendarDate, envOption, orgOption, wholeNumber, type WithServices } from "./options.ts";
import type { Output } from "./output.ts";

const COURSE_GRADES = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F", "P", "NP", "W", "I"];

type TranscriptCourse = EvaluationRequest["courses"][number];

/**
 * The transcript's courses, or every problem of the file at once (row 1 is the first data row).
 * Grades are read in any case (`b` is `B`).
 */
export function readTranscript(csv: string): TranscriptCourse[] {
  let records: Record<string, string>[];
  try {
    records = parse(csv, {
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      trim: true,
      bom: true,
    });
  } catch (error) {
    throw new Error(`the transcript is not a CSV file: ${(error as Error).message}`);
  }
  if (!records.length) throw new Error("the transcript holds no course (a header row, then a course a row)");
  const problems: string[] = [];
  const courses = records.map((record, index) => {
    const row = index + 1;
    const cell = (name: string) => record[name] ?? "";
    const course: Record<string, string> = {};
    if (cell("course_id")) course.courseId = cell("course_id");
    else if (cell("institution") && cell("code")) {
      course.institutionId = institutionIdOf(cell("institution"));
      course.code = cell("code");
    } else problems.push(`row ${row}: give institution and code, or course_id`);
    const grade = cell("grade");
    if (grade && !COURSE_GRADES.includes(grade))
      problems.push(`row ${row}, grade: "${grade}" is not a grade, written in capitals (${COURSE_GRADES.join(", ")})`);
    else if (grade) course.grade = grade;
    const date = cell("completed_on");
    if (date) {
      try {
        course.completedOn = calendarDate(date);
      } catch {
        problems.push(`row ${row}, completed_on: must be a date YYYY-MM-DD, e.g. 2024-08-15, not "${date}"`);
      }
    }
    return course as TranscriptCourse;
  });
  if (problems.length) throw new Error(`the transcript has problems:\n  ${problems.join("\n  ")}`);
  return courses;
}

interface EvaluatedCourse {
  code: string;
  grade: string | null;
  outcome: string;
  targets: { code: string | null }[];
  awardedCredits: number | null;
  awardedCreditUnit: string | null;
  reasons: string[];
}

export function addEvaluationCommands(
  program: Command,
  output: Output,
  withServices: WithServices,
  input: ImportInput,
): void {
  program
    .command("evaluate")
    .description("Will these courses transfer? Evaluate a transcript CSV against a receiving institution's rules")
    .addOption(envOption())
    .requiredOption("--to <institution>", "the receiving institution (inst_110635 or 110635)")
    .requiredOption(
      "--file <path.csv>",
      "the transcript: institution,code,grade,completed_on (or course_id), or - for standard input",
    )
    .option("--as-of <date>", "the date of courses without completed_on (default today)", calendarDate)
    .addOption(orgOption("act as this organization (evaluating needs none)"))
    .action((opts: { env: Environment; to: string; file: string; asOf?: string; org?: string }) =>
      withServices(async (services) => {
        const { forwarded, readStdin, readablePath } = input;
        const csv: string =
          forwarded ??
          (opts.file === "-" ? await readStdin() : await fs.promises.readFile(readablePath(opts.file), "utf8"));
        const courses = readTranscript(csv);
        const caller = await actingAs(services, opts.env, opts.org);
        const evaluation = await services.transferEvaluations.createTransferEvaluation(caller, {
          targetInstitutionId: institutionIdOf(opts.to),
          courses,
          ...(opts.asOf ? { asOf: opts.asOf } : {}),
        });
        if (output.json) return output.result(evaluation, "");
        const results = evaluation.results as EvaluatedCourse[];
        output.table(
          results.map((result) => ({
            course: result.code,
            grade: result.grade,
            outcome: result.outcome,
            "counts as": result.targets.map((target) => target.code).join(" + ") || null,
            credits: result.awardedCredits,
            why: result.reasons.join(" "),
          })),
          ["course", "grade", "outcome", "counts as", "credits", "why"],
        );
        const { totals } = evaluation;
        output.result(
          null,
          `${totals.matchedCourses} of ${totals.courses} course(s) count: ${totals.awardedCredits} ${totals.creditUnit} unit(s) awarded.`,
        );
      }),
    );

  program
    .command("requests")
    .description("The rules students asked for: courses evaluated without a rule")
    .command("list")
    .description(
      "List the requested rules of a receiving institution, most requested first (GET /equivalency-requests)",
    )
    .addOption(envOption())
    .requiredOption("--to <institution>", "the receiving institution (inst_110635 or 110635)")
    .option("--limit <n>", "at most this many (1-100)", wholeNumber(1, 100), 25)
    .option("--offset <n>", "skip this many", wholeNumber(0, Number.MAX_SAFE_INTEGER), 0)
    .addOption(orgOption("act as this organization (reading needs none)"))
    .action((opts: { env: Environment; to: string; limit: number; offset: number; org?: string }) =>
      withServices(async (services) => {
        const caller = await actingAs(services, opts.env, opts.org);
        const page = await services.transferEvaluations.listEquivalencyRequests(
          caller,
          institutionIdOf(opts.to),
          undefined,
          {
            limit: opts.limit,
            offset: opts.offset,
          },
        );
        if (output.json) return output.result({ data: page.items, total: page.total }, "");
        output.table(
          page.items.map((item) => ({
            requests: item.requests,
            course: item.sourceCourse?.code ?? item.sourceCourseId,
            title: item.sourceCourse?.title,
            institution: item.sourceCourse?.institutionId,
            "last requested": item.lastRequestedAt,
          })),
          ["requests", "course", "title", "institution", "last requested"],
        );
      }),
    );
}
