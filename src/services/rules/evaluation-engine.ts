// "Will my courses transfer?": the pure evaluation of a list of completed courses against the
// accepted articulation rules of one target institution. No I/O and no clock: the caller passes
// the rules, the resolved courses and today's date, and gets one result per course with the rule
// applied, the credits awarded in the target institution's unit and the reasons, in words.
// The semantics are those of docs/shared decisions "Articulation rules and evaluation":
//  - a rule (all its source courses, AND) applies only when every source course is in the input;
//  - each input course is counted by at most one rule;
//  - candidates are tried by priority (highest first), then by more source courses, then by id and
//    version, so that the answer never depends on the order of the rules given;
//  - a rule whose grade or date condition fails lets the next candidate apply ("C or better →
//    CHEM 4A" beside "elective otherwise"); a course that no candidate could count is
//    `condition_not_met` when a rule matched it but its condition failed, else `no_rule`;
//  - a course is matched against the rules in force on its completedOn, else asOf, else today;
//    a combination uses the latest of its courses' dates (the day it was complete);
//  - a course without a grade is evaluated as if every grade condition were met, and each such
//    condition is named in its reasons.

import { convertCredits as convertWithUnit, roundCredits } from "./model.ts";

export type CreditUnit = "semester" | "quarter" | "clock_hour" | "ceu";
export type RuleKind = "equivalent" | "elective" | "general_education" | "no_credit";

/** Credits in the target's unit, or null when they do not convert (the rules' conversion). */
export function convertCredits(credits: number, from: CreditUnit, to: CreditUnit): number | null {
  const converted = convertWithUnit(credits, from, to);
  return converted.unit === to ? converted.credits : null;
}
export type EvaluationOutcome = RuleKind | "condition_not_met" | "no_rule";

/** The grades of the documented scale, highest first; A+ ranks with A. */
export const LETTER_GRADES = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-"] as const;
/** Every grade an evaluation accepts: the letter grades, F, and the marks P, NP, W and I. */
export const GRADES = [...LETTER_GRADES, "F", "P", "NP", "W", "I"] as const;
export type Grade = (typeof GRADES)[number];

export interface EvaluationTarget {
  courseId: string | null;
  code: string | null;
  title: string | null;
  credits: number | null;
  /** The unit of `credits`; the target institution's unit when absent. */
  creditUnit?: CreditUnit | null;
}

export interface EvaluationRule {
  id: string;
  version: number;
  targetInstitutionId: string;
  /** Only `accepted` rules are applied; any other is ignored as if absent. */
  status: string;
  /** All of them (AND), in the rule's order. */
  sourceCourseIds: string[];
  /** The codes of the source courses by id, to name a missing course of a combination. */
  sourceCourseCodes?: Readonly<Record<string, string>>;
  kind: RuleKind;
  targets: EvaluationTarget[];
  generalEducationArea: string | null;
  /** A letter grade (A+ … D-) or P; null: any passing grade. */
  minimumGrade: string | null;
  /** Calendar dates YYYY-MM-DD, inclusive; null is open on that side. */
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  priority: number;
  awardedCredits: number | null;
  /** The unit of awardedCredits; the target institution's unit when null. */
  awardedCreditUnit: CreditUnit | null;
}

export interface EvaluationCourse {
  id: string;
  code: string;
  title: string;
  institutionId: string;
  credits: number;
  creditUnit: CreditUnit;
  grade?: Grade | null;
  /** YYYY-MM-DD. */
  completedOn?: string | null;
}

export interface EvaluationInput {
  targetInstitutionId: string;
  targetUnit: CreditUnit;
  rules: readonly EvaluationRule[];
  /** Distinct courses (by id), in the order of the answer. */
  courses: readonly EvaluationCourse[];
  asOf?: string | null;
  /** Today's date (UTC), YYYY-MM-DD: the date of a course without completedOn when asOf is absent. */
  today: string;
}

export interface EvaluationResult {
  courseId: string;
  code: string;
  title: string;
  institutionId: string;
  grade: Grade | null;
  /** The date the rules were matched on, and where it came from. */
  evaluatedOn: string;
  outcome: EvaluationOutcome;
  equivalencyId: string | null;
  equivalencyVersion: number | null;
  /** The courses counted together by the rule applied (this one included), in the rule's order. */
  combinedWith: string[];
  targets: EvaluationTarget[];
  generalEducationArea: string | null;
  /** Null when no rule applied; 0 for no_credit and for the other courses of a combination. */
  awardedCredits: number | null;
  awardedCreditUnit: CreditUnit | null;
  reasons: string[];
}

export interface EvaluationTotals {
  courses: number;
  /** Courses counted by a rule (no_credit included). */
  matchedCourses: number;
  /** Courses with condition_not_met or no_rule. */
  unmatchedCourses: number;
  /** The sum of the awarded credits in the target institution's unit. */
  awardedCredits: number;
  creditUnit: CreditUnit;
  /** Credits that could not be converted (clock hours, CEUs), summed per unit. */
  unconvertedCredits: { credits: number; creditUnit: CreditUnit }[];
}

export interface Evaluation {
  results: EvaluationResult[];
  totals: EvaluationTotals;
}

const GRADE_RANK: Readonly<Record<string, number>> = Object.fromEntries(
  LETTER_GRADES.map((grade, index) => [grade, grade === "A+" ? 1 : index]),
);
/** P meets a minimum of C or lower. */
const PASS_RANK = GRADE_RANK.C;
const NOT_PASSING = new Set(["NP", "F", "W", "I"]);

/**
 * Whether a grade meets a rule's minimum (null: any passing grade), on the documented scale: P
 * ranks as C, so it meets a minimum of C or lower, and a minimum of P is met by P and by C or better.
 */
export function gradeMeets(grade: string, minimum: string | null): boolean {
  if (NOT_PASSING.has(grade)) return false;
  const rank = grade === "P" ? PASS_RANK : GRADE_RANK[grade];
  if (rank === undefined) return false;
  if (minimum === null) return true;
  const needed = minimum === "P" ? PASS_RANK : GRADE_RANK[minimum];
  return needed !== undefined && rank <= needed;
}

const UNIT_NAMES: Readonly<Record<CreditUnit, string>> = {
  semester: "semester units",
  quarter: "quarter units",
  clock_hour: "clock hours",
  ceu: "CEUs",
};

interface Candidate {
  rule: EvaluationRule;
  courses: EvaluationCourse[];
  date: string;
}

interface Applied {
  rule: EvaluationRule;
  courses: EvaluationCourse[];
  date: string;
  gradeNotes: Map<string, string>;
}

/** Evaluates the courses against the rules: one result per course, in the input's order, and the totals. */
export function evaluateTransfer(input: EvaluationInput): Evaluation {
  const byId = new Map<string, EvaluationCourse>();
  for (const course of input.courses) {
    if (byId.has(course.id)) throw new Error(`course ${course.id} is given twice`);
    byId.set(course.id, course);
  }
  const dateOf = (course: EvaluationCourse) => course.completedOn ?? input.asOf ?? input.today;
  const notes = new Map<string, string[]>(input.courses.map((course) => [course.id, []]));
  const failed = new Set<string>();
  const applied = new Map<string, Applied>();

  for (const candidate of candidates(input, byId, notes, dateOf)) {
    const { rule, courses, date } = candidate;
    const taken = courses.find((course) => applied.has(course.id));
    if (taken) {
      const other = applied.get(taken.id)?.rule.id;
      for (const course of courses) {
        notes.get(course.id)?.push(`${ruleName(rule)} was not applied: ${taken.code} is already counted by ${other}.`);
      }
      continue;
    }
    const failures = conditionFailures(candidate);
    if (failures.length > 0) {
      for (const course of courses) {
        failed.add(course.id);
        notes.get(course.id)?.push(...failures);
      }
      continue;
    }
    const record: Applied = { rule, courses, date, gradeNotes: gradeNotes(rule, courses) };
    for (const course of courses) applied.set(course.id, record);
  }

  const results = input.courses.map((course) => {
    const record = applied.get(course.id);
    if (record) return appliedResult(course, record, input, notes.get(course.id) ?? []);
    const outcome: EvaluationOutcome = failed.has(course.id) ? "condition_not_met" : "no_rule";
    return unappliedResult(course, outcome, dateOf(course), notes.get(course.id) ?? []);
  });
  return { results, totals: totals(results, input.targetUnit) };
}

/**
 * The accepted rules of the target institution that mention an input course, in the order they
 * are tried. A rule with a source course missing from the input is not a candidate; the courses
 * it mentions are told which course is missing.
 */
function candidates(
  input: EvaluationInput,
  byId: ReadonlyMap<string, EvaluationCourse>,
  notes: Map<string, string[]>,
  dateOf: (course: EvaluationCourse) => string,
): Candidate[] {
  const found: Candidate[] = [];
  for (const rule of [...input.rules].sort(byPrecedence)) {
    if (rule.status !== "accepted" || rule.targetInstitutionId !== input.targetInstitutionId) continue;
    const sources = [...new Set(rule.sourceCourseIds)];
    const present = sources.filter((id) => byId.has(id));
    if (present.length === 0) continue;
    const missing = sources.filter((id) => !byId.has(id));
    if (missing.length > 0) {
      const names = missing.map((id) => rule.sourceCourseCodes?.[id] ?? id).join(", ");
      for (const id of present) {
        notes.get(id)?.push(`${ruleName(rule)} needs ${names} too, which the list does not include.`);
      }
      continue;
    }
    const courses = sources.map((id) => byId.get(id) as EvaluationCourse);
    const date = courses.map(dateOf).sort().at(-1) as string;
    found.push({ rule, courses, date });
  }
  return found;
}

/** Highest priority first, then more source courses, then id and version: a total order. */
function byPrecedence(a: EvaluationRule, b: EvaluationRule): number {
  return (
    b.priority - a.priority ||
    new Set(b.sourceCourseIds).size - new Set(a.sourceCourseIds).size ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) ||
    a.version - b.version
  );
}

function ruleName(rule: EvaluationRule): string {
  return `Rule ${rule.id} (version ${rule.version})`;
}

function courseList(courses: readonly EvaluationCourse[]): string {
  return courses.map((course) => course.code).join(" + ");
}

/** Why a candidate does not apply: its date range, then each course's grade. Empty when it applies. */
function conditionFailures({ rule, courses, date }: Candidate): string[] {
  const failures: string[] = [];
  const from = rule.effectiveFrom;
  const until = rule.effectiveUntil;
  if ((from !== null && date < from) || (until !== null && date > until)) {
    const subject = courses.length > 1 ? `the combination ${courseList(courses)} (its latest date)` : courses[0].code;
    failures.push(
      `${ruleName(rule)} is in force ${from ? `from ${from}` : "since always"} ${until ? `until ${until}` : "with no end"}; ` +
        `${subject} is evaluated on ${date}, outside it.`,
    );
  }
  for (const course of courses) {
    const grade = course.grade ?? null;
    if (grade === null || gradeMeets(grade, rule.minimumGrade)) continue;
    failures.push(
      rule.minimumGrade === null
        ? `${ruleName(rule)} needs a passing grade; ${course.code} has ${grade}, which is not passing.`
        : `${ruleName(rule)} needs ${rule.minimumGrade} or better; ${course.code} has ${grade}.`,
    );
  }
  return failures;
}

/** What each course of an applied rule says about its grade condition (met, or assumed met without a grade). */
function gradeNotes(rule: EvaluationRule, courses: readonly EvaluationCourse[]): Map<string, string> {
  const needed = rule.minimumGrade === null ? "a passing grade" : `${rule.minimumGrade} or better`;
  return new Map(
    courses.map((course) => [
      course.id,
      course.grade
        ? `Grade ${course.grade} of ${course.code} meets the condition of ${ruleName(rule)}: ${needed}.`
        : `No grade given for ${course.code}: the condition of ${ruleName(rule)}, ${needed}, is assumed met.`,
    ]),
  );
}

function appliedResult(
  course: EvaluationCourse,
  { rule, courses, date, gradeNotes }: Applied,
  input: EvaluationInput,
  notes: readonly string[],
): EvaluationResult {
  const reasons = [...notes];
  const sources = courseList(courses);
  const outcomeText = describeOutcome(rule);
  reasons.push(
    `${ruleName(rule)} applies: ${sources} → ${outcomeText} (priority ${rule.priority}, in force on ${date}).`,
  );
  reasons.push(gradeNotes.get(course.id) as string);
  const first = courses[0].id === course.id;
  let awarded: { credits: number; unit: CreditUnit } = { credits: 0, unit: input.targetUnit };
  if (rule.kind === "no_credit") {
    reasons.push(`${ruleName(rule)} awards no credit.`);
  } else if (!first) {
    reasons.push(`The credits of ${ruleName(rule)} are counted once, with ${courses[0].code}.`);
  } else {
    awarded = awardedCredits(rule, courses, input.targetUnit, reasons);
  }
  return {
    ...identity(course, date),
    outcome: rule.kind,
    equivalencyId: rule.id,
    equivalencyVersion: rule.version,
    combinedWith: courses.map((other) => other.id),
    targets: rule.targets.map((target) => ({ ...target })),
    generalEducationArea: rule.generalEducationArea,
    awardedCredits: awarded.credits,
    awardedCreditUnit: awarded.unit,
    reasons,
  };
}

function describeOutcome(rule: EvaluationRule): string {
  const targets = rule.targets.map((target) => target.code ?? target.title ?? target.courseId).filter(Boolean);
  const listed = targets.length > 0 ? `${targets.join(" + ")}, ` : "";
  const area = rule.generalEducationArea ? `, area ${rule.generalEducationArea}` : "";
  return `${listed}${rule.kind.replace("_", " ")}${area}`;
}

/**
 * The credits a rule awards, in the target unit when they convert: the rule's own awardedCredits,
 * else the sum of its targets' credits, else (an elective or general-education rule without
 * targets) the source courses' credits. Units that do not convert (clock hours, CEUs) keep their
 * unit, and the reasons say so.
 */
function awardedCredits(
  rule: EvaluationRule,
  courses: readonly EvaluationCourse[],
  targetUnit: CreditUnit,
  reasons: string[],
): { credits: number; unit: CreditUnit } {
  let parts: { credits: number; unit: CreditUnit; what: string }[];
  if (rule.awardedCredits !== null) {
    parts = [{ credits: rule.awardedCredits, unit: rule.awardedCreditUnit ?? targetUnit, what: "the rule's credits" }];
  } else if (rule.targets.some((target) => target.credits !== null)) {
    parts = rule.targets
      .filter((target) => target.credits !== null)
      .map((target) => ({
        credits: target.credits as number,
        unit: target.creditUnit ?? targetUnit,
        what: `the credits of ${target.code ?? target.title ?? target.courseId}`,
      }));
  } else {
    parts = courses.map((course) => ({ credits: course.credits, unit: course.creditUnit, what: course.code }));
  }
  let total = 0;
  const unconverted: { credits: number; unit: CreditUnit }[] = [];
  for (const part of parts) {
    const converted = convertCredits(part.credits, part.unit, targetUnit);
    if (converted === null) {
      unconverted.push(part);
      reasons.push(
        `${part.credits} ${UNIT_NAMES[part.unit]} (${part.what}) are not converted to ${UNIT_NAMES[targetUnit]}: ` +
          `they are awarded in ${UNIT_NAMES[part.unit]}.`,
      );
    } else {
      if (part.unit !== targetUnit) {
        reasons.push(
          `${part.credits} ${UNIT_NAMES[part.unit]} (${part.what}) = ${converted} ${UNIT_NAMES[targetUnit]}.`,
        );
      }
      total += converted;
    }
  }
  if (unconverted.length > 0 && total === 0 && unconverted.every((part) => part.unit === unconverted[0].unit)) {
    return {
      credits: roundCredits(unconverted.reduce((sum, part) => sum + part.credits, 0)),
      unit: unconverted[0].unit,
    };
  }
  if (unconverted.length > 0) {
    reasons.push(`Only the credits that convert are awarded: ${roundCredits(total)} ${UNIT_NAMES[targetUnit]}.`);
  }
  return { credits: roundCredits(total), unit: targetUnit };
}

function identity(course: EvaluationCourse, date: string) {
  return {
    courseId: course.id,
    code: course.code,
    title: course.title,
    institutionId: course.institutionId,
    grade: course.grade ?? null,
    evaluatedOn: date,
  };
}

function unappliedResult(
  course: EvaluationCourse,
  outcome: "condition_not_met" | "no_rule",
  date: string,
  notes: readonly string[],
): EvaluationResult {
  const reasons =
    notes.length > 0
      ? [...notes]
      : [`No accepted rule of the target institution has ${course.code} among its source courses.`];
  return {
    ...identity(course, date),
    outcome,
    equivalencyId: null,
    equivalencyVersion: null,
    combinedWith: [],
    targets: [],
    generalEducationArea: null,
    awardedCredits: null,
    awardedCreditUnit: null,
    reasons,
  };
}

function totals(results: readonly EvaluationResult[], targetUnit: CreditUnit): EvaluationTotals {
  let awarded = 0;
  const unconverted = new Map<CreditUnit, number>();
  let matched = 0;
  for (const result of results) {
    if (result.equivalencyId !== null) matched += 1;
    if (result.awardedCredits === null || result.awardedCreditUnit === null) continue;
    if (result.awardedCreditUnit === targetUnit) awarded += result.awardedCredits;
    else
      unconverted.set(
        result.awardedCreditUnit,
        (unconverted.get(result.awardedCreditUnit) ?? 0) + result.awardedCredits,
      );
  }
  return {
    courses: results.length,
    matchedCourses: matched,
    unmatchedCourses: results.length - matched,
    awardedCredits: roundCredits(awarded),
    creditUnit: targetUnit,
    unconvertedCredits: [...unconverted].map(([creditUnit, credits]) => ({
      credits: roundCredits(credits),
      creditUnit,
    })),
  };
}
