// The API's representation of stored records (what the contract's schemas say).
import type { Course, Equivalency, Institution } from "../../generated/prisma/client.ts";

export function institutionView(record: Institution) {
  return {
    id: record.id,
    ipedsId: record.ipedsId,
    name: record.name,
    city: record.city,
    state: record.state,
    type: record.type,
    system: record.system,
    source: record.source,
  };
}

export function courseView(record: Course) {
  return {
    id: record.id,
    institutionId: record.institutionId,
    code: record.code,
    title: record.title,
    credits: record.credits,
    creditUnit: record.creditUnit,
    level: record.level,
    description: record.description,
    cipCode: record.cipCode,
    version: record.version,
    updatedAt: record.updatedAt.toISOString(),
    crossListedCodes: record.crossListedCodes,
  };
}

export type EquivalencyView = ReturnType<typeof equivalencyView>;

export function equivalencyView(record: Equivalency) {
  return {
    id: record.id,
    sourceCourseId: record.sourceCourseId,
    targetInstitutionId: record.targetInstitutionId,
    targetCourseId: record.targetCourseId,
    targetCode: record.targetCode,
    status: record.status,
    decidedBy: record.decidedBy,
    decidedAt: record.decidedAt?.toISOString() ?? null,
    policyBasis: record.policyBasis,
    version: record.version,
    provenance: record.provenance,
    datasetVersionId: record.datasetVersionId,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    sourceCourseIds: record.sourceCourseIds,
    targets: record.targets as { courseId: string | null; code: string | null; credits: number | null }[],
    kind: record.kind,
    generalEducationArea: record.generalEducationArea,
    minimumGrade: record.minimumGrade as LetterGrade | null,
    effectiveFrom: calendarDate(record.effectiveFrom),
    effectiveUntil: calendarDate(record.effectiveUntil),
    priority: record.priority,
    awardedCredits: record.awardedCredits,
    awardedCreditUnit: record.awardedCreditUnit,
    sourceCourseSets: record.sourceCourseSets as string[][],
    targetChoice: record.targetChoice,
  };
}

/** A date column (midnight UTC) as the calendar date `YYYY-MM-DD`. */
export function calendarDate(value: Date | null): string | null {
  return value ? value.toISOString().slice(0, 10) : null;
}

/** The contract's minimum grades, highest first, then P (pass). */
export type LetterGrade = "A+" | "A" | "A-" | "B+" | "B" | "B-" | "C+" | "C" | "C-" | "D+" | "D" | "D-" | "P";

/** Upsert identity of a course code: case-insensitive, white space collapsed. */
export function courseCodeKey(code: string): string {
  return code.trim().replace(/\s+/g, " ").toUpperCase();
}

/** A code of white space alone would be stored as an empty one; the schema's minLength cannot tell. */
export function isBlankCode(code: string): boolean {
  return courseCodeKey(code) === "";
}

export const BLANK_CODE = "must contain a character other than white space";

/** Uniqueness key of an equivalency's target within (source course, target institution). */
export function equivalencyTargetKey(targetCourseId: string | null, targetCode: string | null): string {
  if (targetCourseId) return `course:${targetCourseId}`;
  if (targetCode) return `code:${courseCodeKey(targetCode)}`;
  return "none";
}
