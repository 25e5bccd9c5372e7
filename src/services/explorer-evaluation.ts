// An evaluation as the explorer answers it: each course named (the catalog's, or as the student
// typed it when the catalog lacks it), what it counts for, and the evaluation's reasons with the
// rules named by their courses instead of by id. A course the catalog lacks is `unknown_course`.
import { ValidationError } from "../kernel/errors.ts";
import type { CreditUnit, Grade } from "./rules/evaluation-engine.ts";
import type { EvaluationRequestCourse, TransferEvaluationsService } from "./rules/evaluation-service.ts";

export interface ExplorerCourseInput {
  courseId?: string;
  code?: string;
  title?: string;
  grade?: Grade;
  completedOn?: string;
}

export interface GivenCourse {
  input: ExplorerCourseInput;
  /** The catalog's course, or null when the catalog lacks it. */
  record: { id: string; code: string; title: string; credits: number; creditUnit: CreditUnit } | null;
}

type Evaluation = Awaited<ReturnType<TransferEvaluationsService["createTransferEvaluation"]>>;
type EvaluationResult = Evaluation["results"][number];

const RULE_BY_ID = /\bRule eq_[0-9A-Za-z]+ \(version \d+\)/g;
const PRIORITY = /\(priority -?\d+, /g;

/** The evaluation's reason without ids: "Rule eq_… (version 2) applies" reads "The rule applies". */
export function reasonInWords(reason: string, targetName: string): string {
  const text = reason
    .replace(RULE_BY_ID, "the rule")
    .replace(PRIORITY, "(")
    .replaceAll("the target institution", targetName);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The course as the evaluation takes it: by id when the catalog's own code found it, else by
 * institution and code with the title the student gave (a model that resolves cross-listed codes
 * and answers unknown ones takes it; `title` is passed through as given).
 */
export function evaluationCourse(institutionId: string, given: GivenCourse): EvaluationRequestCourse {
  const { input, record } = given;
  const title = !record && input.title ? { title: input.title } : {};
  return {
    ...(record ? { courseId: record.id } : { institutionId, code: input.code as string, ...title }),
    ...(input.grade ? { grade: input.grade } : {}),
    ...(input.completedOn ? { completedOn: input.completedOn } : {}),
  };
}

/** The indexes of the typed courses an evaluation refused as unknown codes; null for any other error. */
export function refusedUnknownCodes(error: unknown, given: GivenCourse[]): Set<number> | null {
  if (!(error instanceof ValidationError)) return null;
  const indexes = new Set<number>();
  for (const { pointer } of error.errors) {
    const match = /^\/courses\/(\d+)\/code$/.exec(pointer);
    const index = match ? Number(match[1]) : -1;
    if (!given[index] || given[index].record) return null;
    indexes.add(index);
  }
  return indexes.size > 0 ? indexes : null;
}

/**
 * One result per course given: `evaluated` are the indexes of the courses the evaluation was given,
 * in its order; the others, and those it answered `unknown_course`, are named here.
 */
export function namedResults(
  given: GivenCourse[],
  evaluated: number[],
  evaluation: Evaluation | null,
  context: { from: { name: string }; to: { name: string }; creditUnit: CreditUnit },
) {
  const resultOf = new Map(evaluated.map((index, position) => [index, evaluation?.results[position]]));
  const codeOf = new Map(evaluation?.results.map((result) => [result.courseId, result.code]) ?? []);
  const results = given.map((course, index) => {
    const result = resultOf.get(index);
    if (!result || (result.outcome as string) === "unknown_course")
      return unknownCourse(course.input, context.from.name);
    return {
      course: course.record ?? {
        id: result.courseId,
        code: result.code,
        title: result.title,
        credits: null,
        creditUnit: null,
      },
      grade: result.grade,
      evaluatedOn: result.evaluatedOn as string | null,
      outcome: result.outcome as EvaluationResult["outcome"] | "unknown_course",
      combinedWith: result.combinedWith.filter((id) => id !== result.courseId).map((id) => codeOf.get(id) ?? id),
      targets: result.targets,
      generalEducationArea: result.generalEducationArea,
      awardedCredits: result.awardedCredits,
      awardedCreditUnit: result.awardedCreditUnit,
      reasons: result.reasons.map((reason) => reasonInWords(reason, context.to.name)),
    };
  });
  // Courses answered here without the evaluation count as unmatched beside its totals.
  const answeredHere = given.length - evaluated.length;
  const totals = evaluation
    ? {
        ...evaluation.totals,
        courses: evaluation.totals.courses + answeredHere,
        unmatchedCourses: evaluation.totals.unmatchedCourses + answeredHere,
      }
    : {
        courses: answeredHere,
        matchedCourses: 0,
        unmatchedCourses: answeredHere,
        awardedCredits: 0,
        creditUnit: context.creditUnit,
        unconvertedCredits: [],
      };
  return { results, totals };
}

function unknownCourse(input: ExplorerCourseInput, fromName: string) {
  const code = input.code as string;
  const named = input.title ? `${code} (${input.title})` : code;
  return {
    course: { id: null, code, title: input.title ?? null, credits: null, creditUnit: null },
    grade: input.grade ?? null,
    evaluatedOn: null,
    outcome: "unknown_course" as const,
    combinedWith: [],
    targets: [],
    generalEducationArea: null,
    awardedCredits: null,
    awardedCreditUnit: null,
    reasons: [
      `${fromName}'s catalog here does not list ${named}, so no rule can be looked up for it. ` +
        "Check the code on your transcript, or ask the receiving institution's transfer office.",
    ],
  };
}
