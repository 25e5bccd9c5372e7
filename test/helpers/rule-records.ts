// Courses and rules of every shape written straight into the database (no API, no checks), for the
// tests that hold a database rendering to a JavaScript one (test/unit/api-json.test.ts,
// test/unit/ctdl-json.test.ts).
import type { Course, Equivalency, Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../../src/db/database.ts";

/** Distinct instants with milliseconds, two rules sharing each second. */
export const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, Math.floor(i / 2), (i * 37) % 1000));

/** A live course of `institutionId`, its code the id upper-cased unless `fields` say otherwise. */
export function course(id: string, institutionId: string, fields: Partial<Course> = {}) {
  return {
    id,
    environment: "live" as const,
    institutionId,
    code: id.toUpperCase(),
    codeKey: id.toUpperCase(),
    title: `Course ${id}`,
    credits: 3,
    level: "lower" as const,
    updatedAt: at(1),
    ...fields,
  };
}

export type Rule = Partial<Equivalency> & Pick<Equivalency, "id" | "sourceCourseIds">;

/** Rules of every shape the contract allows; the 1.0 columns mirror the first source and target. */
export const RULES: Rule[] = [
  {
    id: "eq_one_to_one",
    sourceCourseIds: ["crs_a"],
    targetCourseId: "crs_t1",
    targets: [{ courseId: "crs_t1", code: null, credits: 3 }],
    status: "accepted",
    decidedBy: "registrar@berkeley.edu",
    decidedAt: at(3),
    provenance: "direct",
  },
  {
    id: "eq_many",
    sourceCourseIds: ["crs_b", "crs_a", "crs_c"],
    targetCourseId: "crs_t1",
    targets: [
      { courseId: "crs_t1", code: null, credits: 2.5 },
      { courseId: null, code: "MATH 1X", credits: null },
      { courseId: "crs_t2", code: null, credits: 3.33 },
    ],
    kind: "equivalent",
    minimumGrade: "C",
    effectiveFrom: new Date("2024-08-15T00:00:00Z"),
    effectiveUntil: new Date("2027-05-31T00:00:00Z"),
    priority: 2,
    awardedCredits: 3.33,
    awardedCreditUnit: "semester",
  },
  {
    id: "eq_elective",
    sourceCourseIds: ["crs_c"],
    targetCode: "ELEC 1XX",
    targets: [{ courseId: null, code: "ELEC 1XX", credits: 4 }],
    kind: "elective",
    minimumGrade: "P",
    effectiveFrom: new Date("2020-01-01T00:00:00Z"),
    priority: -1,
    awardedCredits: 4,
    awardedCreditUnit: "quarter",
  },
  {
    id: "eq_general_education",
    sourceCourseIds: ["crs_b"],
    targets: [],
    kind: "general_education",
    generalEducationArea: 'Area 4: "Social" Sciences, ünïcode',
    effectiveUntil: new Date("2030-12-31T00:00:00Z"),
    status: "conflict",
    policyBasis: 'Articulation "agreement"\nline two, \\ backslash',
  },
  {
    id: "eq_no_credit",
    sourceCourseIds: ["crs_a", "crs_c"],
    targets: [],
    kind: "no_credit",
    status: "pending",
    provenance: null,
    datasetVersionId: null,
    inLatestDataset: false,
  },
];

/** The rules as live equivalencies toward inst_110635, created in order; the 1.0 columns mirror the first source. */
export async function insertRules(prisma: Db, rules: Rule[]): Promise<void> {
  await prisma.equivalency.createMany({
    data: rules.map((rule, i) => ({
      environment: "live" as const,
      sourceCourseId: rule.sourceCourseIds[0],
      targetInstitutionId: "inst_110635",
      targetKey: rule.id,
      status: "accepted" as const,
      provenance: "channel_a" as const,
      createdAt: at(i),
      updatedAt: at(i + 7),
      ...rule,
      sourceSetKey: [...rule.sourceCourseIds].sort().join(" "),
      targets: rule.targets ?? [],
      sourceCourseSets: (rule.sourceCourseSets ?? []) as Prisma.InputJsonValue,
    })),
  });
}
