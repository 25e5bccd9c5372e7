// The CTDL JSON-LD export as JavaScript rendered it before the database did (the service's
// src/services/exports/ctdl.ts until the migration "exports_rendered_json"): kept here only as the
// oracle test/unit/ctdl-json.test.ts holds the database's rendering to, node for node and byte for
// byte. Records are read as that export read them: every equivalency of an environment with its
// source course, target institution and target course, and every source and target course it
// names (with their institutions) looked up by id.
import type { Course, Equivalency, Institution } from "../../generated/prisma/client.ts";
import type { Db } from "../../src/db/database.ts";
import type { Environment } from "../../src/services/types.ts";
import type { RuleTarget } from "../../src/services/rules/model.ts";
import { LICENSE_URL } from "../../src/services/exports/ctdl.ts";

type CourseWithInstitution = Course & { institution: Institution };

export type EquivalencyWithCourses = Equivalency & {
  sourceCourse: CourseWithInstitution;
  targetInstitution: Institution;
  targetCourse: Course | null;
  /** Every course of any set, each once, in order of first appearance (those the catalog holds). */
  sourceCourses: CourseWithInstitution[];
  /** The sets, in order, each course by id with its record when the catalog holds it. */
  sourceSets: { id: string; course: CourseWithInstitution | null }[][];
  targetCourses: Map<string, CourseWithInstitution>;
};

/** Every equivalency of the environment in export order, with the courses its CTDL node names. */
export async function equivalenciesWithCourses(db: Db, environment: Environment): Promise<EquivalencyWithCourses[]> {
  const rows = await db.equivalency.findMany({
    where: { environment },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: { sourceCourse: { include: { institution: true } }, targetInstitution: true, targetCourse: true },
  });
  const targetIds = (row: Equivalency) =>
    (row.targets as { courseId: string | null }[]).flatMap((t) => (t.courseId ? [t.courseId] : []));
  const setsOf = (row: Equivalency) => row.sourceCourseSets as string[][];
  const ids = [...new Set(rows.flatMap((row) => [...setsOf(row).flat(), ...targetIds(row)]))];
  const courses = new Map(
    (await db.course.findMany({ where: { id: { in: ids } }, include: { institution: true } })).map((course) => [
      course.id,
      course,
    ]),
  );
  const known = (id: string) => (courses.has(id) ? [courses.get(id)!] : []);
  return rows.map((row) => ({
    ...row,
    sourceCourses: [...new Set(setsOf(row).flat())].flatMap(known),
    sourceSets: setsOf(row).map((set) => set.map((id) => ({ id, course: courses.get(id) ?? null }))),
    targetCourses: new Map(
      targetIds(row)
        .flatMap(known)
        .map((course) => [course.id, course]),
    ),
  }));
}

const LANGUAGE = "en-US";
const text = (value: string) => ({ [LANGUAGE]: value });

function organization(institution: Institution) {
  return {
    "@type": "ceterms:CredentialOrganization",
    "ceterms:name": text(institution.name),
    "ceterms:ipedsID": institution.ipedsId,
  };
}

function creditValue(credits: number) {
  return [{ "@type": "ceterms:ValueProfile", "schema:value": credits }];
}

function course(record: Course, institution: Institution) {
  return {
    "@type": "ceterms:Course",
    "@id": `urn:course-equivalency:${record.id}`,
    "ceterms:codedNotation": record.code,
    ...(record.crossListedCodes.length ? { "ce:crossListedCodes": record.crossListedCodes } : {}),
    "ceterms:name": text(record.title),
    ...(record.description ? { "ceterms:description": text(record.description) } : {}),
    "ceterms:creditValue": creditValue(record.credits),
    ...(record.cipCode
      ? {
          "ceterms:instructionalProgramType": [
            {
              "@type": "ceterms:CredentialAlignmentObject",
              "ceterms:codedNotation": record.cipCode,
              "ceterms:frameworkName": text("CIP 2020"),
            },
          ],
        }
      : {}),
    "ceterms:ownedBy": [organization(institution)],
  };
}

function targets(record: EquivalencyWithCourses) {
  return (record.targets as RuleTarget[]).flatMap((target) => {
    const known = target.courseId ? record.targetCourses.get(target.courseId) : undefined;
    if (known) return [course(known, record.targetInstitution)];
    if (!target.code) return [];
    return [
      {
        "@type": "ceterms:Course",
        "ceterms:codedNotation": target.code,
        "ceterms:ownedBy": [organization(record.targetInstitution)],
      },
    ];
  });
}

/** Sets and targets as the import writes them: "MATH 7 or MATH 7H (…) to MATH 1A or MATH 16A (…)". */
function title(record: EquivalencyWithCourses): string {
  const several = record.sourceSets.length > 1;
  const setCodes = record.sourceSets.flatMap((set) => {
    const codes = set.flatMap((member) => (member.course ? [member.course.code] : []));
    if (!codes.length) return [];
    return [several && codes.length > 1 ? `(${codes.join(" + ")})` : codes.join(" + ")];
  });
  const source = `${setCodes.length ? setCodes.join(" or ") : record.sourceCourse.code} (${record.sourceCourse.institution.name})`;
  const targetCodes = (record.targets as RuleTarget[]).flatMap((target) => {
    const code = (target.courseId && record.targetCourses.get(target.courseId)?.code) || target.code;
    return code ? [code] : [];
  });
  const joined = targetCodes.join(record.targetChoice === "one_of" ? " or " : " + ");
  const destination = targetCodes.length
    ? `${joined} (${record.targetInstitution.name})`
    : record.targetInstitution.name;
  return `${source} to ${destination}`;
}

/** Each set, all of its courses required, its courses by reference to the nodes of transferValueFrom. */
function sourceCourseSets(record: EquivalencyWithCourses) {
  return record.sourceSets.map((set) => ({
    "@type": "ce:SourceCourseSet",
    "ce:course": set.map((member) => ({ "@id": `urn:course-equivalency:${member.id}` })),
  }));
}

/** The credit awarded: the rule's awardedCredits in its unit, else (1.0 data) the target course's credits. */
function transferValue(record: EquivalencyWithCourses) {
  if (record.awardedCredits !== null)
    return {
      "ceterms:transferValue": [
        {
          "@type": "ceterms:ValueProfile",
          "schema:value": record.awardedCredits,
          ...(record.awardedCreditUnit ? { "ceterms:creditUnitType": `ce:${record.awardedCreditUnit}` } : {}),
        },
      ],
    };
  return record.targetCourse ? { "ceterms:transferValue": creditValue(record.targetCourse.credits) } : {};
}

/** The JSON-LD node of one equivalency. */
export function transferValueProfile(record: EquivalencyWithCourses) {
  const receiving = targets(record);
  const sources = record.sourceCourses.length ? record.sourceCourses : [record.sourceCourse];
  const startDate = record.effectiveFrom ?? record.decidedAt;
  return {
    "@id": `urn:course-equivalency:${record.id}`,
    "@type": "ceterms:TransferValueProfile",
    "ceterms:identifier": [
      {
        "@type": "ceterms:IdentifierValue",
        "ceterms:identifierTypeName": "course-equivalency id",
        "ceterms:identifierValueCode": record.id,
      },
    ],
    "ceterms:name": text(title(record)),
    ...(record.policyBasis ? { "ceterms:description": text(record.policyBasis) } : {}),
    "ceterms:ownedBy": [organization(record.targetInstitution)],
    "ceterms:transferValueFrom": sources.map((source) => course(source, source.institution)),
    "ce:sourceCourseSets": sourceCourseSets(record),
    ...(receiving.length ? { "ceterms:transferValueFor": receiving } : {}),
    ...transferValue(record),
    ...(startDate ? { "ceterms:startDate": startDate.toISOString().slice(0, 10) } : {}),
    ...(record.effectiveUntil ? { "ceterms:endDate": record.effectiveUntil.toISOString().slice(0, 10) } : {}),
    "ce:kind": record.kind,
    "ce:targetChoice": record.targetChoice,
    "ce:minimumGrade": record.minimumGrade,
    "ce:generalEducationArea": record.generalEducationArea,
    "ce:priority": record.priority,
    "ce:status": record.status,
    "ce:decidedBy": record.decidedBy,
    "ce:version": record.version,
    "ce:provenance": record.provenance,
    "ce:datasetVersionId": record.datasetVersionId,
    "ce:updatedAt": record.updatedAt.toISOString(),
    "dcterms:license": { "@id": LICENSE_URL },
  };
}
