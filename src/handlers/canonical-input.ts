// What the contract accepts in more than one spelling, in the one the services take: grades in
// either case (`b` is `B`), institutions by id or by bare IPEDS unit id (`110635` is `inst_110635`),
// as the CSV import reads them.
import { institutionIdOf } from "../kernel/ids.ts";

type Capital<T> = T extends string ? Uppercase<T> : T;

/** A grade in capitals; null and undefined as they are. */
export function capitalGrade<T extends string | null | undefined>(grade: T): Capital<T> {
  return (typeof grade === "string" ? grade.toUpperCase() : grade) as Capital<T>;
}

/** An optional institution id (a query filter) as `inst_…`. */
export function institutionFilter(value: string | undefined): string | undefined {
  return value === undefined ? undefined : institutionIdOf(value);
}

/** A rule's body (POST or PATCH): its minimum grade in capitals, its target institution by id; absent members stay absent. */
export function canonicalRule<T extends { minimumGrade?: string | null; targetInstitutionId?: string }>(
  body: T,
): Omit<T, "minimumGrade"> & { minimumGrade?: Capital<T["minimumGrade"]> } {
  const canonical: Record<string, unknown> = { ...body };
  if ("minimumGrade" in body) canonical.minimumGrade = capitalGrade(body.minimumGrade);
  if (typeof body.targetInstitutionId === "string")
    canonical.targetInstitutionId = institutionIdOf(body.targetInstitutionId);
  return canonical as Omit<T, "minimumGrade"> & { minimumGrade?: Capital<T["minimumGrade"]> };
}

type EvaluationCourse = { institutionId?: string; grade?: string };
type CapitalCourse<C extends EvaluationCourse> = Omit<C, "grade"> & { grade?: Capital<NonNullable<C["grade"]>> };

/** An evaluation's body: institutions by id, grades in capitals. */
export function canonicalEvaluation<T extends { targetInstitutionId: string; courses: EvaluationCourse[] }>(
  body: T,
): Omit<T, "courses"> & { courses: CapitalCourse<T["courses"][number]>[] } {
  return {
    ...body,
    targetInstitutionId: institutionIdOf(body.targetInstitutionId),
    courses: body.courses.map((course) => {
      const canonical: Record<string, unknown> = { ...course };
      if (course.institutionId !== undefined) canonical.institutionId = institutionIdOf(course.institutionId);
      if (course.grade !== undefined) canonical.grade = capitalGrade(course.grade);
      return canonical as CapitalCourse<T["courses"][number]>;
    }),
  };
}

/** A course of an upsert with its institution by id. */
export function canonicalCourse<T extends { institutionId: string }>(course: T): T {
  return { ...course, institutionId: institutionIdOf(course.institutionId) };
}
