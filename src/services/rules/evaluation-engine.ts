// "Will my courses transfer?": the pure evaluation of a list of completed courses against the
// accepted articulation rules of one target institution. No I/O and no clock: the caller passes
// the rules, the resolved courses and today's date, and gets one result per course with the rule
// applied, the credits awarded in the target institution's unit and the reasons, in words.
// The semantics are those of the shared decisions "Articulation rules and evaluation" and
// "Agreements as published":
//  - a rule applies through one of its source course sets (alternatives), each set all-required;
//    a rule is applied at most once per evaluation: the first set in the rule's order whose
//    courses are all given, free and meet its conditions is applied; the courses of its other
//    complete sets are reported `equivalent` with 0 credits ("credit given through the applied
//    set") and no other rule may count them;
//  - each input course is counted by at most one rule;
//  - candidates are tried by priority (highest first), then by more courses in the set applied,
//    then by id and version, so that the answer never depends on the order of the rules given;
//  - a rule whose grade or date condition fails lets the next candidate apply ("C or better →
//    CHEM 4A" beside "elective otherwise"); a course that no candidate could count is
//    `condition_not_met` when a rule matched it but its condition failed, else `no_rule`;
//  - a `one_of` rule names every target; it awards the least option and says so;
//  - a course the catalog lacks (given by institution, code and title) is `unknown_course`;
//  - a course named by a rule waiting in `conflict`, in force on its date, says so;
//  - a course is matched against the rules in force on its completedOn, else asOf, else today;
//    a combination uses the latest of its courses' dates (the day it was complete);
//  - a course without a grade is evaluated as if every grade condition were met, and each such
//    condition is named in its reasons.
// Reasons name rules by their courses ("CHEM 1A + CHEM 1AL → CHEM 4A") and institutions by name.

import { convertCredits as convertWithUnit, roundCredits } from "./model.ts";

export type CreditUnit = "semester" | "quarter" | "clock_hour" | "ceu";
export type RuleKind = "equivalent" | "elective" | "general_education" | "no_credit";
export type TargetChoice = "all" | "one_of";

/** Credits in the target's unit, or null when they do not convert (the rules' conversion). */
export function convertCredits(credits: number, from: CreditUnit, to: CreditUnit): number | null {
  const converted = convertWithUnit(credits, from, to);
  return converted.unit === to ? converted.credits : null;
}
export type EvaluationOutcome = RuleKind | "condition_not_met" | "no_rule" | "unknown_course";

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
  /** `accepted` rules are applied; `conflict` rules are named beside the courses they mention; any other is ignored. */
  status: string;
  /** The first source course set (all of them, AND), in the rule's order. */
  sourceCourseIds: string[];
  /** Every set, in the rule's order (any one complete set satisfies the rule); absent: [sourceCourseIds]. */
  sourceCourseSets?: readonly (readonly string[])[];
  /** The codes of the source courses by id, to name the rule and a missing course of a set. */
  sourceCourseCodes?: Readonly<Record<string, string>>;
  kind: RuleKind;
  /** `one_of`: the student receives one of the targets; absent: `all`. */
  targetChoice?: TargetChoice;
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
  /** The course's id; for a course the catalog lacks, any key unique in the input (the result says ""). */
  id: string;
  code: string;
  title: string;
  institutionId: string;
  credits: number;
  creditUnit: CreditUnit;
  grade?: Grade | null;
  /** YYYY-MM-DD. */
  completedOn?: string | null;
  /** A course the catalog lacks, given by institution, code and title: no rule can name it. */
  unknown?: boolean;
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
  /** Institution names by id, for the reasons (an id stands for itself when absent). */
  institutionNames?: Readonly<Record<string, string>>;
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
  /** The applied rule's target choice; null when no rule applied. */
  targetChoice: TargetChoice | null;
  /** Which of the applied rule's sets was applied (0-based); null when no rule applied. */
  sourceSetIndex: number | null;
  /** Rules in `conflict` in force on evaluatedOn that name this course. */
  conflictingEquivalencyIds: string[];
  reasons: string[];
}

export interface EvaluationTotals {
  courses: number;
  /** Courses counted by a rule (no_credit included). */
  matchedCourses: number;
  /** Courses with condition_not_met, no_rule or unknown_course. */
  unmatchedCourses: number;
  /** Courses with unknown_course. */
  unknownCourses: number;
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

/** A rule with the sets of its courses given, in the rule's order, and its name in words. */
interface Candidate {
  rule: EvaluationRule;
  /** Every set of the rule, deduplicated, with its index. */
  sets: { index: number; ids: string[] }[];
  /** The sets whose courses are all given, in the rule's order. */
  complete: { index: number; courses: EvaluationCourse[]; date: string }[];
  name: string;
}

interface Applied {
  rule: EvaluationRule;
  name: string;
  setIndex: number;
  courses: EvaluationCourse[];
  date: string;
  gradeNotes: Map<string, string>;
  /** Courses of another complete set of the rule, credited through the applied set. */
  through: Set<string>;
}

/** The sets of a rule, each deduplicated, in the rule's order. */
export function ruleSets(rule: {
  sourceCourseIds: readonly string[];
  sourceCourseSets?: readonly (readonly string[])[];
}): string[][] {
  const sets =
    rule.sourceCourseSets && rule.sourceCourseSets.length > 0 ? rule.sourceCourseSets : [rule.sourceCourseIds];
  return sets.map((set) => [...new Set(set)]);
}

/** A rule named by its courses: "CHEM 1A + CHEM 1AL → CHEM 4A", "MATH 7 or MATH 7H → MATH 1A or MATH 16A". */
export function ruleName(rule: EvaluationRule): string {
  const sets = ruleSets(rule);
  const code = (id: string) => rule.sourceCourseCodes?.[id] ?? id;
  const sources = sets
    .map((set) => {
      const text = set.map(code).join(" + ");
      return sets.length > 1 && set.length > 1 ? `(${text})` : text;
    })
    .join(" or ");
  const names = rule.targets.map((target) => target.code ?? target.title ?? target.courseId).filter(Boolean);
  const area = rule.generalEducationArea ? `general education area ${rule.generalEducationArea}` : null;
  let outcome: string;
  if (names.length > 0) outcome = names.join(rule.targetChoice === "one_of" ? " or " : " + ");
  else if (rule.kind === "general_education") outcome = area ?? "general education";
  else outcome = rule.kind.replace("_", " ");
  return `"${sources} → ${outcome}"`;
}

/** Evaluates the courses against the rules: one result per course, in the input's order, and the totals. */
export function evaluateTransfer(input: EvaluationInput): Evaluation {
  const byId = new Map<string, EvaluationCourse>();
  for (const course of input.courses) {
    if (byId.has(course.id)) throw new Error(`course ${course.id} is given twice`);
    if (!course.unknown) byId.set(course.id, course);
  }
  const dateOf = (course: EvaluationCourse) => course.completedOn ?? input.asOf ?? input.today;
  const notes = new Map<string, string[]>(input.courses.map((course) => [course.id, []]));
  const failed = new Set<string>();
  const applied = new Map<string, Applied>();
  const mine = input.rules.filter((rule) => rule.targetInstitutionId === input.targetInstitutionId);

  for (const candidate of candidates(mine, byId, notes, dateOf)) {
    const { rule, name, complete } = candidate;
    let chosen: Applied | null = null;
    const failures: { courses: EvaluationCourse[]; messages: string[] }[] = [];
    const blocked: { courses: EvaluationCourse[]; message: string }[] = [];
    for (const set of complete) {
      const taken = set.courses.find((course) => applied.has(course.id));
      if (taken) {
        const other = applied.get(taken.id) as Applied;
        blocked.push({
          courses: set.courses,
          message: `Rule ${name} was not applied: ${taken.code} is already counted by rule ${other.name}.`,
        });
        continue;
      }
      const messages = conditionFailures(rule, name, set.courses, set.date);
      if (messages.length > 0) {
        failures.push({ courses: set.courses, messages });
        continue;
      }
      chosen = {
        rule,
        name,
        setIndex: set.index,
        courses: set.courses,
        date: set.date,
        gradeNotes: gradeNotes(rule, name, set.courses),
        through: new Set(),
      };
      break;
    }
    if (!chosen) {
      for (const { courses, message } of blocked) for (const course of courses) notes.get(course.id)?.push(message);
      for (const { courses, messages } of failures) {
        for (const course of courses) {
          failed.add(course.id);
          notes.get(course.id)?.push(...messages);
        }
      }
      continue;
    }
    for (const course of chosen.courses) applied.set(course.id, chosen);
    // The rule is applied once: the courses of its other complete sets are credited through this one.
    for (const set of complete) {
      if (set.index === chosen.setIndex) continue;
      for (const course of set.courses) {
        if (applied.has(course.id)) continue;
        chosen.through.add(course.id);
        applied.set(course.id, chosen);
      }
    }
  }

  const names = input.institutionNames ?? {};
  const results = input.courses.map((course) => {
    if (course.unknown) return unknownResult(course, dateOf(course), names);
    const record = applied.get(course.id);
    if (record) return appliedResult(course, record, input, notes.get(course.id) ?? []);
    const outcome = failed.has(course.id) ? "condition_not_met" : "no_rule";
    return unappliedResult(course, outcome, dateOf(course), notes.get(course.id) ?? [], input);
  });
  noteConflicts(results, mine);
  return { results, totals: totals(results, input.targetUnit) };
}

/**
 * The accepted rules of the target institution with a complete set among the input, in the order
 * they are tried. The courses of a rule that has no complete set are told which course is missing.
 */
function candidates(
  rules: readonly EvaluationRule[],
  byId: ReadonlyMap<string, EvaluationCourse>,
  notes: Map<string, string[]>,
  dateOf: (course: EvaluationCourse) => string,
): Candidate[] {
  const found: Candidate[] = [];
  // In a fixed order (priority, id, version), so that the notes never depend on the rules' order.
  const ordered = [...rules].sort(
    (a, b) => b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) || a.version - b.version,
  );
  for (const rule of ordered) {
    if (rule.status !== "accepted") continue;
    const sets = ruleSets(rule).map((ids, index) => ({ index, ids }));
    if (!sets.some((set) => set.ids.some((id) => byId.has(id)))) continue;
    const name = ruleName(rule);
    const complete = sets
      .filter((set) => set.ids.every((id) => byId.has(id)))
      .map((set) => {
        const courses = set.ids.map((id) => byId.get(id) as EvaluationCourse);
        return { index: set.index, courses, date: courses.map(dateOf).sort().at(-1) as string };
      });
    if (complete.length === 0) {
      noteMissing(rule, name, sets, byId, notes);
      continue;
    }
    found.push({ rule, sets, complete, name });
  }
  return found.sort(byPrecedence);
}

/** Each given course of a rule without a complete set hears what its nearest set lacks. */
function noteMissing(
  rule: EvaluationRule,
  name: string,
  sets: readonly { ids: string[] }[],
  byId: ReadonlyMap<string, EvaluationCourse>,
  notes: Map<string, string[]>,
) {
  const given = new Set(sets.flatMap((set) => set.ids.filter((id) => byId.has(id))));
  for (const id of given) {
    const nearest = sets
      .filter((set) => set.ids.includes(id))
      .map((set) => set.ids.filter((other) => !byId.has(other)))
      .sort((a, b) => a.length - b.length)[0];
    const missing = nearest.map((other) => rule.sourceCourseCodes?.[other] ?? other).join(", ");
    notes.get(id)?.push(`Rule ${name} needs ${missing} too, which the list does not include.`);
  }
}

/** Highest priority first, then more courses in the first complete set, then id and version: a total order. */
function byPrecedence(a: Candidate, b: Candidate): number {
  return (
    b.rule.priority - a.rule.priority ||
    b.complete[0].courses.length - a.complete[0].courses.length ||
    (a.rule.id < b.rule.id ? -1 : a.rule.id > b.rule.id ? 1 : 0) ||
    a.rule.version - b.rule.version
  );
}

function courseList(courses: readonly EvaluationCourse[]): string {
  return courses.map((course) => course.code).join(" + ");
}

function inForce(rule: EvaluationRule, date: string): boolean {
  return !(
    (rule.effectiveFrom !== null && date < rule.effectiveFrom) ||
    (rule.effectiveUntil !== null && date > rule.effectiveUntil)
  );
}

/** Why a set of a rule does not apply: its date range, then each course's grade. Empty when it applies. */
function conditionFailures(
  rule: EvaluationRule,
  name: string,
  courses: readonly EvaluationCourse[],
  date: string,
): string[] {
  const failures: string[] = [];
  if (!inForce(rule, date)) {
    const from = rule.effectiveFrom;
    const until = rule.effectiveUntil;
    const subject = courses.length > 1 ? `the combination ${courseList(courses)} (its latest date)` : courses[0].code;
    failures.push(
      `Rule ${name} is in force ${from ? `from ${from}` : "since always"} ${until ? `until ${until}` : "with no end"}; ` +
        `${subject} is evaluated on ${date}, outside it.`,
    );
  }
  for (const course of courses) {
    const grade = course.grade ?? null;
    if (grade === null || gradeMeets(grade, rule.minimumGrade)) continue;
    failures.push(
      rule.minimumGrade === null
        ? `Rule ${name} needs a passing grade; ${course.code} has ${grade}, which is not passing.`
        : `Rule ${name} needs ${rule.minimumGrade} or better; ${course.code} has ${grade}.`,
    );
  }
  return failures;
}

/** What each course of an applied rule says about its grade condition (met, or assumed met without a grade). */
function gradeNotes(rule: EvaluationRule, name: string, courses: readonly EvaluationCourse[]): Map<string, string> {
  const needed = rule.minimumGrade === null ? "a passing grade" : `${rule.minimumGrade} or better`;
  return new Map(
    courses.map((course) => [
      course.id,
      course.grade
        ? `Grade ${course.grade} of ${course.code} meets the condition of rule ${name}: ${needed}.`
        : `No grade given for ${course.code}: the condition of rule ${name}, ${needed}, is assumed met.`,
    ]),
  );
}

function appliedResult(
  course: EvaluationCourse,
  record: Applied,
  input: EvaluationInput,
  notes: readonly string[],
): EvaluationResult {
  const { rule, name, courses, date } = record;
  const reasons = [...notes];
  const sources = courseList(courses);
  const through = record.through.has(course.id);
  const alternatives = ruleSets(rule).length > 1;
  reasons.push(
    `Rule ${name} applies${alternatives ? ` through ${sources}` : ""}: ${describeOutcome(rule)} ` +
      `(priority ${rule.priority}, in force on ${date}).`,
  );
  let awarded: { credits: number; unit: CreditUnit } = { credits: 0, unit: input.targetUnit };
  if (through) {
    reasons.push(
      `${course.code} is in another set of rule ${name}: the rule's credit was given through the applied set, ${sources}, once.`,
    );
  } else {
    reasons.push(record.gradeNotes.get(course.id) as string);
    if (rule.kind === "no_credit") {
      reasons.push(`Rule ${name} awards no credit.`);
    } else if (courses[0].id !== course.id) {
      reasons.push(`The credits of rule ${name} are counted once, with ${courses[0].code}.`);
    } else {
      awarded = awardedCredits(rule, courses, input.targetUnit, reasons);
    }
  }
  return {
    ...identity(course, date),
    outcome: rule.kind,
    equivalencyId: rule.id,
    equivalencyVersion: rule.version,
    combinedWith: through ? [...courses.map((other) => other.id), course.id] : courses.map((other) => other.id),
    targets: rule.targets.map((target) => ({ ...target })),
    generalEducationArea: rule.generalEducationArea,
    awardedCredits: awarded.credits,
    awardedCreditUnit: awarded.unit,
    targetChoice: rule.targetChoice ?? "all",
    sourceSetIndex: record.setIndex,
    conflictingEquivalencyIds: [],
    reasons,
  };
}

/** The outcome in words, beside the rule's name (which names its targets). */
function describeOutcome(rule: EvaluationRule): string {
  const area = rule.generalEducationArea && rule.targets.length > 0 ? `, area ${rule.generalEducationArea}` : "";
  const choice = rule.targetChoice === "one_of" ? ", one of its targets" : "";
  return `${rule.kind.replace("_", " ")}${area}${choice}`;
}

type Part = { credits: number; unit: CreditUnit; what: string };

/**
 * The credits a rule awards, in the target unit when they convert: the rule's own awardedCredits,
 * else its targets' credits (all: their sum; one_of: the least option, when every option has
 * credits), else (an elective or general-education rule without targets) the source courses'
 * credits. Units that do not convert (clock hours, CEUs) keep their unit, and the reasons say so.
 */
function awardedCredits(
  rule: EvaluationRule,
  courses: readonly EvaluationCourse[],
  targetUnit: CreditUnit,
  reasons: string[],
): { credits: number; unit: CreditUnit } {
  const oneOf = rule.targetChoice === "one_of";
  let parts: Part[];
  const targetParts = rule.targets
    .filter((target) => target.credits !== null)
    .map((target) => ({
      credits: target.credits as number,
      unit: target.creditUnit ?? targetUnit,
      what: `the credits of ${target.code ?? target.title ?? target.courseId}`,
    }));
  if (rule.awardedCredits !== null) {
    parts = [{ credits: rule.awardedCredits, unit: rule.awardedCreditUnit ?? targetUnit, what: "the rule's credits" }];
  } else if (oneOf && targetParts.length === rule.targets.length && targetParts.length > 0) {
    parts = [leastOption(targetParts, targetUnit)];
  } else if (!oneOf && targetParts.length > 0) {
    parts = targetParts;
  } else {
    parts = courses.map((course) => ({ credits: course.credits, unit: course.creditUnit, what: course.code }));
  }
  const result = sumParts(parts, targetUnit, reasons);
  if (oneOf) {
    const options = rule.targets.map((target) => target.code ?? target.title ?? target.courseId).join(" or ");
    reasons.push(
      `The student receives one of ${options}, chosen by their program; the least option is counted: ` +
        `${result.credits} ${UNIT_NAMES[result.unit]}.`,
    );
  }
  return result;
}

/** The option worth the least in the target unit (options that do not convert count after those that do). */
function leastOption(parts: readonly Part[], targetUnit: CreditUnit): Part {
  const worth = (part: Part) => convertCredits(part.credits, part.unit, targetUnit) ?? Number.POSITIVE_INFINITY;
  return [...parts].sort((a, b) => worth(a) - worth(b) || a.credits - b.credits)[0];
}

function sumParts(
  parts: readonly Part[],
  targetUnit: CreditUnit,
  reasons: string[],
): { credits: number; unit: CreditUnit } {
  let total = 0;
  const unconverted: Part[] = [];
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
    courseId: course.unknown ? "" : course.id,
    code: course.code,
    title: course.title,
    institutionId: course.institutionId,
    grade: course.grade ?? null,
    evaluatedOn: date,
  };
}

const NOTHING_APPLIED = {
  equivalencyId: null,
  equivalencyVersion: null,
  combinedWith: [],
  targets: [],
  generalEducationArea: null,
  awardedCredits: null,
  awardedCreditUnit: null,
  targetChoice: null,
  sourceSetIndex: null,
} as const;

function nameOf(names: Readonly<Record<string, string>>, institutionId: string): string {
  return names[institutionId] ?? institutionId;
}

function unappliedResult(
  course: EvaluationCourse,
  outcome: "condition_not_met" | "no_rule",
  date: string,
  notes: readonly string[],
  input: EvaluationInput,
): EvaluationResult {
  const target = nameOf(input.institutionNames ?? {}, input.targetInstitutionId);
  const reasons =
    notes.length > 0 ? [...notes] : [`No accepted rule of ${target} has ${course.code} among its source courses.`];
  return {
    ...identity(course, date),
    outcome,
    ...NOTHING_APPLIED,
    combinedWith: [],
    targets: [],
    conflictingEquivalencyIds: [],
    reasons,
  };
}

function unknownResult(
  course: EvaluationCourse,
  date: string,
  names: Readonly<Record<string, string>>,
): EvaluationResult {
  return {
    ...identity(course, date),
    outcome: "unknown_course",
    ...NOTHING_APPLIED,
    combinedWith: [],
    targets: [],
    conflictingEquivalencyIds: [],
    reasons: [
      `${course.code} is not in the catalog of ${nameOf(names, course.institutionId)}, so no rule can name it; ` +
        "the request for a rule is counted.",
    ],
  };
}

/** Each course named by a rule waiting in `conflict`, in force on the course's date, hears of it. */
function noteConflicts(results: EvaluationResult[], rules: readonly EvaluationRule[]) {
  const waiting = rules.filter((rule) => rule.status === "conflict");
  if (waiting.length === 0) return;
  const sorted = [...waiting].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.version - b.version));
  for (const result of results) {
    if (result.outcome === "unknown_course") continue;
    const rivals = sorted.filter(
      (rule) => ruleSets(rule).some((set) => set.includes(result.courseId)) && inForce(rule, result.evaluatedOn),
    );
    if (rivals.length === 0) continue;
    result.conflictingEquivalencyIds = [...new Set(rivals.map((rule) => rule.id))];
    for (const rule of rivals) {
      result.reasons.push(
        `Rule ${ruleName(rule)}, which names ${result.code}, is waiting in conflict with another rule: ` +
          "the answer may change when the stewards decide.",
      );
    }
  }
}

function totals(results: readonly EvaluationResult[], targetUnit: CreditUnit): EvaluationTotals {
  let awarded = 0;
  const unconverted = new Map<CreditUnit, number>();
  let matched = 0;
  let unknown = 0;
  for (const result of results) {
    if (result.equivalencyId !== null) matched += 1;
    if (result.outcome === "unknown_course") unknown += 1;
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
    unknownCourses: unknown,
    awardedCredits: roundCredits(awarded),
    creditUnit: targetUnit,
    unconvertedCredits: [...unconverted].map(([creditUnit, credits]) => ({
      credits: roundCredits(credits),
      creditUnit,
    })),
  };
}
