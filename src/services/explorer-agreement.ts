// The explorer's agreement: accepted rules as a student reads them, each with its source courses
// (every set of alternatives), its targets with their titles and credits, its conditions and who
// decided it. Rules of the model without alternatives, choices or cross-listed codes read as one
// set, `all` targets and no further codes.
import type { CreditUnit } from "./rules/evaluation-engine.ts";

/** What the explorer needs of a course record. */
export interface CourseRecord {
  id: string;
  code: string;
  title: string;
  credits: number;
  creditUnit: string;
  crossListedCodes?: string[] | null;
}

/** An expanded equivalency (listExpandedEquivalencies), with the fields later models add, when present. */
export interface RuleRecord {
  id: string;
  version: number;
  kind: string;
  sourceCourseIds: string[];
  sourceCourses: CourseRecord[];
  sourceCourseSets?: string[][] | null;
  targets: { courseId: string | null; code: string | null; credits: number | null }[];
  targetChoice?: string | null;
  generalEducationArea: string | null;
  minimumGrade: string | null;
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  awardedCredits: number | null;
  awardedCreditUnit: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  policyBasis: string | null;
}

export function explorerCourse(course: CourseRecord) {
  return {
    id: course.id,
    code: course.code,
    title: course.title,
    credits: Number(course.credits),
    creditUnit: course.creditUnit as CreditUnit,
    crossListedCodes: course.crossListedCodes ?? [],
  };
}

export type ExplorerCourse = ReturnType<typeof explorerCourse>;

function setsOf(rule: RuleRecord): string[][] {
  return rule.sourceCourseSets && rule.sourceCourseSets.length > 0 ? rule.sourceCourseSets : [rule.sourceCourseIds];
}

/** The rules in the agreement's order, with every course they name. */
export async function agreementRules(records: RuleRecord[], findCourses: (ids: string[]) => Promise<CourseRecord[]>) {
  const known = new Map<string, CourseRecord>();
  for (const record of records) for (const course of record.sourceCourses) known.set(course.id, course);
  const missing = new Set<string>();
  for (const record of records) {
    for (const id of setsOf(record).flat()) if (!known.has(id)) missing.add(id);
    for (const target of record.targets)
      if (target.courseId && !known.has(target.courseId)) missing.add(target.courseId);
  }
  for (const course of await findCourses([...missing])) known.set(course.id, course);
  return records.map((record) => agreementRule(record, known)).sort(byTargetThenSources);
}

function agreementRule(record: RuleRecord, known: ReadonlyMap<string, CourseRecord>) {
  const named = (ids: string[]) => ids.flatMap((id) => (known.has(id) ? [explorerCourse(known.get(id)!)] : []));
  const sourceCourseSets = setsOf(record).map(named);
  return {
    id: record.id,
    version: record.version,
    kind: record.kind as "equivalent" | "elective" | "general_education" | "no_credit",
    sourceCourses: sourceCourseSets[0],
    sourceCourseSets,
    targets: record.targets.map((target) => {
      const course = target.courseId ? known.get(target.courseId) : undefined;
      return {
        courseId: target.courseId ?? null,
        code: target.code ?? course?.code ?? null,
        title: course?.title ?? null,
        credits: target.credits ?? (course ? Number(course.credits) : null),
        creditUnit: course ? (course.creditUnit as CreditUnit) : null,
      };
    }),
    targetChoice: record.targetChoice === "one_of" ? ("one_of" as const) : ("all" as const),
    generalEducationArea: record.generalEducationArea,
    minimumGrade: record.minimumGrade,
    effectiveFrom: record.effectiveFrom,
    effectiveUntil: record.effectiveUntil,
    awardedCredits: record.awardedCredits,
    awardedCreditUnit: record.awardedCreditUnit as CreditUnit | null,
    decidedBy: record.decidedBy,
    decidedAt: record.decidedAt,
    policyBasis: record.policyBasis,
  };
}

type AgreementRule = ReturnType<typeof agreementRule>;

function byTargetThenSources(a: AgreementRule, b: AgreementRule): number {
  const targetOf = (rule: AgreementRule) => rule.targets[0]?.code ?? null;
  const [ta, tb] = [targetOf(a), targetOf(b)];
  if (ta !== tb) {
    if (ta === null) return 1;
    if (tb === null) return -1;
    return ta.localeCompare(tb, "en", { numeric: true });
  }
  const sourcesOf = (rule: AgreementRule) => rule.sourceCourses.map((course) => course.code).join(" + ");
  return sourcesOf(a).localeCompare(sourcesOf(b), "en", { numeric: true }) || a.id.localeCompare(b.id);
}
