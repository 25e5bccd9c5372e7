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
  sourceCourses: CourseWithInstitution[];
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
  const ids = [...new Set(rows.flatMap((row) => [...row.sourceCourseIds, ...targetIds(row)]))];
  const courses = new Map(
    (await db.course.findMany({ where: { id: { in: ids } }, include: { institution: true } })).map((course) => [
      course.id,
      course,
    ]),
  );
  const known = (id: string) => (courses.has(id) ? [courses.get(id)!] : []);
  return rows.map((row) => ({
    ...row,
    sourceCourses: row.sourceCourseIds.flatMap(known),
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

function title(record: EquivalencyWithCourses): string {
  const sources = record.sourceCourses.length ? record.sourceCourses : [record.sourceCourse];
  const source = `${sources.map((c) => c.code).join(" + ")} (${record.sourceCourse.institution.name})`;
  const targetCode = record.targetCourse?.code ?? record.targetCode;
  const destination = targetCode ? `${targetCode} (${record.targetInstitution.name})` : record.targetInstitution.name;
  return `${source} to ${destination}`;
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
    ...(receiving.length ? { "ceterms:transferValueFor": receiving } : {}),
    ...transferValue(record),
    ...(startDate ? { "ceterms:startDate": startDate.toISOString().slice(0, 10) } : {}),
    ...(record.effectiveUntil ? { "ceterms:endDate": record.effectiveUntil.toISOString().slice(0, 10) } : {}),
    "ce:kind": record.kind,
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
