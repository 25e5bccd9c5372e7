// Equivalencies as Credential Transparency Description Language (CTDL) aligned
// JSON-LD: one ceterms:TransferValueProfile per equivalency in `@graph`.
//
// Mapping (equivalency field -> term):
//   id                       -> "@id" urn:course-equivalency:<id>, and ceterms:identifier
//   source courses           -> ceterms:transferValueFrom [ceterms:Course, one per source course,
//                               all of them required] (a CTDL subclass of
//                               learning opportunity) with ceterms:codedNotation (code),
//                               ceterms:name (title), ceterms:description, ceterms:creditValue
//                               [ceterms:ValueProfile schema:value = credits], ceterms:ownedBy
//                               [ceterms:CredentialOrganization with ceterms:name and
//                               ceterms:ipedsID] and, with a CIP code, ceterms:instructionalProgramType
//   targets                  -> ceterms:transferValueFor [ceterms:Course, one per target], same
//                               shape; a code without a course record gives a course with only
//                               codedNotation and ownedBy
//   awardedCredits (unit)    -> ceterms:transferValue [ceterms:ValueProfile schema:value, and
//                               ceterms:creditUnitType ce:<unit>] (credit awarded)
//   target institution       -> ceterms:ownedBy of the profile (the receiving institution owns
//                               the transfer decision)
//   "<source> to <target>"   -> ceterms:name
//   policyBasis              -> ceterms:description
//   effectiveFrom            -> ceterms:startDate (else decidedAt's date, as in 1.0)
//   effectiveUntil           -> ceterms:endDate
//   kind, minimumGrade,      -> ce:kind, ce:minimumGrade, ce:generalEducationArea, ce:priority
//   generalEducationArea, priority
//   status, decidedBy,       -> ce:status, ce:decidedBy, ce:version, ce:provenance,
//   version, provenance,        ce:datasetVersionId, ce:updatedAt: terms CTDL has no
//   datasetVersionId,           equivalent for; `ce:` is this service's namespace
//   updatedAt
//   (every node)             -> dcterms:license, CC BY 4.0
import type { Course, Institution } from "../../../generated/prisma/client.ts";
import type { EquivalencyWithCourses } from "./batches.ts";
import type { RuleTarget } from "../rules.ts";

export const LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/";

export const CTDL_CONTEXT = [
  "https://credreg.net/ctdl/schema/context/json",
  {
    ce: "https://course-equivalency.org/ns/",
    dcterms: "http://purl.org/dc/terms/",
    schema: "https://schema.org/",
  },
];

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

/** `{"@context": …, "@graph": [` … `]}` around the nodes. */
export const CTDL_OPEN = `{"@context":${JSON.stringify(CTDL_CONTEXT)},"@graph":[`;
export const CTDL_CLOSE = "]}\n";
