// Articulation rules as registrars write them (docs/api-guide.md#articulation-rules): the
// pieces of a rule that need no database: its identity key, its source set, whether two rules
// overlap in time and say the same thing, and credit unit conversion.
// The definitions are ../shared decisions "Articulation rules and evaluation".
import type { CreditUnit, RuleKind, TargetChoice } from "../../../generated/prisma/client.ts";
import { courseCodeKey, equivalencyTargetKey } from "../../views/catalog.ts";

/** A type, not an interface: it is stored as JSON (Prisma's JsonValue needs the implicit index signature). */
export type RuleTarget = {
  courseId: string | null;
  code: string | null;
  credits: number | null;
};

/** What a rule gives: two overlapping accepted rules are duplicates when these are equal, else ambiguous. */
export interface RuleOutcome {
  kind: RuleKind;
  generalEducationArea: string | null;
  targets: RuleTarget[];
  minimumGrade: string | null;
  awardedCredits: number | null;
  /** Absent (rules from before 1.2.0 in memory) is `all`. */
  targetChoice?: TargetChoice;
}

/** The rule's fields of one value each, after its sources and targets (API, events, CSV columns). */
export const RULE_SCALAR_FIELDS = [
  "kind",
  "generalEducationArea",
  "minimumGrade",
  "effectiveFrom",
  "effectiveUntil",
  "priority",
  "awardedCredits",
  "awardedCreditUnit",
] as const;

/** Calendar dates as `YYYY-MM-DD`, inclusive; null is open on that side. */
export interface RuleDates {
  effectiveFrom: string | null;
  effectiveUntil: string | null;
}

/** The source set: sorted ids, each once, joined by a space (equal for the same courses in any order). */
export function sourceSetKey(sourceCourseIds: readonly string[]): string {
  return [...new Set(sourceCourseIds)].sort().join(" ");
}

/** Whether two date ranges share at least one day. */
export function datesOverlap(a: RuleDates, b: RuleDates): boolean {
  const startsBeforeOtherEnds = (x: RuleDates, y: RuleDates) =>
    x.effectiveFrom === null || y.effectiveUntil === null || x.effectiveFrom <= y.effectiveUntil;
  return startsBeforeOtherEnds(a, b) && startsBeforeOtherEnds(b, a);
}

function targetIdentity(target: RuleTarget): string {
  return `${equivalencyTargetKey(target.courseId, target.code)}=${target.credits ?? ""}`;
}

/** Same kind, target choice, area, minimum grade, awarded credits and targets (as a set, each with its credits). */
export function sameOutcome(a: RuleOutcome, b: RuleOutcome): boolean {
  const targets = (rule: RuleOutcome) => rule.targets.map(targetIdentity).sort().join("\n");
  const area = (rule: RuleOutcome) => (rule.generalEducationArea ? courseCodeKey(rule.generalEducationArea) : null);
  return (
    a.kind === b.kind &&
    (a.targetChoice ?? "all") === (b.targetChoice ?? "all") &&
    area(a) === area(b) &&
    a.minimumGrade === b.minimumGrade &&
    a.awardedCredits === b.awardedCredits &&
    targets(a) === targets(b)
  );
}

/**
 * The identity of a rule within (environment, first source course, target institution), stored
 * as `target_key`: a 1.0 equivalency (one source, at most one target, `equivalent`, no start
 * date) keeps its 1.0 key, so a repeated 1.0 request is still the 409 `conflict` it was. The
 * alternative source sets and a `one_of` choice are part of it: "MATH 7 or MATH 7H → MATH 1A" is
 * another rule than "MATH 7 → MATH 1A" (the ambiguity check then says whether the two agree), and
 * "MATH 1A or MATH 16A" another than "MATH 1A + MATH 16A", so a file holding both is told, not
 * merged into one rule.
 */
export function ruleKey(rule: {
  sourceCourseIds: readonly string[];
  sourceCourseSets?: readonly (readonly string[])[];
  targetChoice?: TargetChoice;
  targets: readonly RuleTarget[];
  kind: RuleKind;
  generalEducationArea: string | null;
  effectiveFrom: string | null;
}): string {
  const [first, ...others] = rule.targets;
  const parts = [equivalencyTargetKey(first?.courseId ?? null, first?.code ?? null)];
  if (rule.sourceCourseIds.length > 1) parts.push(`src:${sourceSetKey(rule.sourceCourseIds).replace(/ /g, ",")}`);
  const firstSet = sourceSetKey(rule.sourceCourseIds);
  const alternatives = [...new Set((rule.sourceCourseSets ?? []).map(sourceSetKey))]
    .filter((key) => key !== firstSet)
    .sort();
  if (alternatives.length) parts.push(`alt:${alternatives.map((key) => key.replace(/ /g, ",")).join(";")}`);
  if (others.length) parts.push(`tgt:${others.map((t) => equivalencyTargetKey(t.courseId, t.code)).join(",")}`);
  if (rule.targetChoice === "one_of") parts.push("choice:one_of");
  if (rule.kind !== "equivalent")
    parts.push(`kind:${rule.kind}${rule.generalEducationArea ? `:${courseCodeKey(rule.generalEducationArea)}` : ""}`);
  if (rule.effectiveFrom) parts.push(`from:${rule.effectiveFrom}`);
  return parts.join("|");
}

/** Rounded to two decimals, as every converted credit value is. */
export function roundCredits(value: number): number {
  return Math.round((value + Number.EPSILON) * 100) / 100;
}

const PER_SEMESTER_UNIT: Partial<Record<CreditUnit, number>> = { semester: 1, quarter: 1.5 };

/**
 * Credits in another unit: quarter × 2/3 = semester, semester × 1.5 = quarter, rounded to two
 * decimals. Clock hours and CEUs are not converted: the value keeps its unit (and says so).
 */
export function convertCredits(
  credits: number,
  from: CreditUnit,
  to: CreditUnit,
): { credits: number; unit: CreditUnit } {
  const fromFactor = PER_SEMESTER_UNIT[from];
  const toFactor = PER_SEMESTER_UNIT[to];
  if (from === to || fromFactor === undefined || toFactor === undefined)
    return { credits: roundCredits(credits), unit: from };
  return { credits: roundCredits((credits / fromFactor) * toFactor), unit: to };
}

/** A target course's own credits, in its own unit. */
export interface CourseCredits {
  credits: number;
  creditUnit: CreditUnit;
}

/**
 * The credits a rule awards when it does not say: each target's `credits` when given, else its
 * course's own credits converted to the target unit; their sum when any target has some (a
 * `one_of` rule awards the least option instead, when every option has credits). Else (codes
 * only) the source courses' credits summed per unit and converted to the target unit (null when
 * units that cannot be converted differ). `no_credit` awards nothing (null).
 */
export function defaultAwardedCredits(
  kind: RuleKind,
  sources: readonly CourseCredits[],
  targets: readonly RuleTarget[],
  targetUnit: CreditUnit,
  targetCourses: ReadonlyMap<string, CourseCredits> = new Map(),
  targetChoice: TargetChoice = "all",
): { awardedCredits: number | null; awardedCreditUnit: CreditUnit | null } {
  if (kind === "no_credit") return { awardedCredits: null, awardedCreditUnit: null };
  const given = targets.flatMap((target) => {
    if (target.credits !== null) return [target.credits];
    const course = target.courseId === null ? undefined : targetCourses.get(target.courseId);
    const converted = course && convertCredits(course.credits, course.creditUnit, targetUnit);
    return converted && converted.unit === targetUnit ? [converted.credits] : [];
  });
  if (targetChoice === "one_of") {
    if (given.length && given.length === targets.length)
      return { awardedCredits: roundCredits(Math.min(...given)), awardedCreditUnit: targetUnit };
  } else if (given.length)
    return {
      awardedCredits: roundCredits(given.reduce((sum, credits) => sum + credits, 0)),
      awardedCreditUnit: targetUnit,
    };
  const perUnit = new Map<CreditUnit, number>();
  for (const source of sources) perUnit.set(source.creditUnit, (perUnit.get(source.creditUnit) ?? 0) + source.credits);
  const converted = [...perUnit].map(([unit, credits]) => convertCredits(credits, unit, targetUnit));
  const units = new Set(converted.map((c) => c.unit));
  if (units.size !== 1) return { awardedCredits: null, awardedCreditUnit: null };
  return {
    awardedCredits: roundCredits(converted.reduce((sum, c) => sum + c.credits, 0)),
    awardedCreditUnit: converted[0].unit,
  };
}
