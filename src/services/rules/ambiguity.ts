// The ambiguity check (../shared decisions, "Agreements as published"): two accepted rules of one
// target institution, with overlapping dates and the same priority, that share a source course set
// contradict when their outcomes differ and are duplicates when they are the same. The outcome is
// the kind, the targets as a set of courses (a course named by any of its codes is one course) or
// codes, the target choice (a one_of rule is one outcome), the awarded credits, the minimum grade
// and the general education area. Finding the rules that share a set is the lookups' part
// (RuleLookups.acceptedOverlapping); comparing them is this file's.
import type { Course } from "../../../generated/prisma/client.ts";
import type { OverlappingRule } from "../../repositories/equivalencies.ts";
import { RuleOverlapError } from "../../kernel/errors.ts";
import { courseCodeKey } from "../../views/catalog.ts";
import { sameOutcome, type RuleOutcome, type RuleTarget } from "./model.ts";

/** The courses of an institution that these code keys name (own or cross-listed codes), by code key. */
export type CodeResolver = (
  institutionId: string,
  codeKeys: string[],
) => Promise<Map<string, Pick<Course, "id" | "code" | "creditUnit">>>;

type Compared = Omit<RuleOutcome, "targets"> & { targets: unknown; targetInstitutionId?: string };

/**
 * The targets with each code that names a course of the target institution (a rule stored before
 * its code was linked, or before the course listed it) turned into that course, so that `DATA C8`
 * and `COMPSCI C8` compare as one course.
 */
async function withCoursesResolved(
  rules: Compared[],
  targetInstitutionId: string,
  resolve: CodeResolver | undefined,
): Promise<RuleOutcome[]> {
  const targetsOf = (rule: Compared) => rule.targets as RuleTarget[];
  const codes = rules.flatMap((rule) =>
    targetsOf(rule).flatMap((t) => (t.courseId === null && t.code !== null ? [courseCodeKey(t.code)] : [])),
  );
  const byCode = codes.length && resolve ? await resolve(targetInstitutionId, codes) : new Map();
  return rules.map((rule) => ({
    ...rule,
    targets: targetsOf(rule).map((t) => {
      const course = t.courseId === null && t.code !== null ? byCode.get(courseCodeKey(t.code)) : undefined;
      return course ? { ...t, courseId: course.id } : t;
    }),
  }));
}

/**
 * Refuses `rule` being accepted beside `others` (the accepted rules that share a set with it, its
 * priority and some of its days): ambiguous-rule when an outcome differs, else duplicate-rule.
 */
export async function assertUnambiguous(
  rule: Compared & { targetInstitutionId: string; priority: number },
  others: OverlappingRule[],
  resolve?: CodeResolver,
): Promise<void> {
  if (!others.length) return;
  const [mine, ...theirs] = await withCoursesResolved([rule, ...others], rule.targetInstitutionId, resolve);
  const differing = others.filter((_, i) => !sameOutcome(theirs[i], mine));
  const named = differing.length ? differing : others;
  throw new RuleOverlapError(
    differing.length > 0,
    named.map((other) => other.id),
    rule,
  );
}
