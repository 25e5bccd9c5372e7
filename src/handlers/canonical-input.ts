// What the contract accepts in more than one spelling, in the one the services take: institutions
// by id or by bare IPEDS unit id (`110635` is `inst_110635`), as the CSV import reads them. Grades
// have one spelling, in capitals, so generated clients name each grade once.
import { institutionIdOf } from "../kernel/ids.ts";

/** An optional institution id (a query filter) as `inst_…`. */
export function institutionFilter(value: string | undefined): string | undefined {
  return value === undefined ? undefined : institutionIdOf(value);
}

/** A rule's body (POST or PATCH) with its target institution by id; absent members stay absent. */
export function canonicalRule<T extends { targetInstitutionId?: string }>(body: T): T {
  return typeof body.targetInstitutionId === "string"
    ? { ...body, targetInstitutionId: institutionIdOf(body.targetInstitutionId) }
    : body;
}

/** An evaluation's body with its institutions by id. */
export function canonicalEvaluation<T extends { targetInstitutionId: string; courses: { institutionId?: string }[] }>(
  body: T,
): T {
  return {
    ...body,
    targetInstitutionId: institutionIdOf(body.targetInstitutionId),
    courses: body.courses.map((course) =>
      course.institutionId === undefined ? course : { ...course, institutionId: institutionIdOf(course.institutionId) },
    ),
  };
}

/** A course of an upsert with its institution by id. */
export function canonicalCourse<T extends { institutionId: string }>(course: T): T {
  return { ...course, institutionId: institutionIdOf(course.institutionId) };
}
