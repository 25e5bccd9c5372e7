// An evaluation as the explorer answers it: each course named (the catalog's, or as the student
// typed it when the catalog lacks it), what it counts for, and the evaluation's reasons with the
// rules named by their courses instead of by id. A course the catalog lacks is `unknown_course`.
import type { CreditUnit, Grade } from "./transfer-evaluation.ts";
import type { TransferEvaluationsService } from "./transfer-evaluations.ts";

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

export function namedResults(
  given: GivenCourse[],
  evaluation: Evaluation | null,
  context: { from: { name: string }; to: { name: string }; creditUnit: CreditUnit },
) {
  const evaluated = [...(evaluation?.results ?? [])];
  const codeOf = new Map(given.flatMap((course) => (course.record ? [[course.record.id, course.record.code]] : [])));
  const results = given.map((course) => {
    if (!course.record) return unknownCourse(course.input, context.from.name);
    const result = evaluated.shift() as EvaluationResult;
    return {
      course: course.record,
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
  const unknown = results.filter((result) => result.outcome === "unknown_course").length;
  const totals = evaluation
    ? {
        ...evaluation.totals,
        courses: evaluation.totals.courses + unknown,
        unmatchedCourses: evaluation.totals.unmatchedCourses + unknown,
      }
    : {
        courses: unknown,
        matchedCourses: 0,
        unmatchedCourses: unknown,
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
