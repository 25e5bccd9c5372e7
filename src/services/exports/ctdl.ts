// Equivalencies as Credential Transparency Description Language (CTDL) aligned
// JSON-LD: one ceterms:TransferValueProfile per equivalency in `@graph`.
//
// Mapping (equivalency field -> term):
//   id                       -> "@id" urn:course-equivalency:<id>, and ceterms:identifier
//   source course            -> ceterms:transferValueFrom [ceterms:Course] (a CTDL subclass of
//                               learning opportunity) with ceterms:codedNotation (code),
//                               ceterms:name (title), ceterms:description, ceterms:creditValue
//                               [ceterms:ValueProfile schema:value = credits], ceterms:ownedBy
//                               [ceterms:CredentialOrganization with ceterms:name and
//                               ceterms:ipedsID] and, with a CIP code, ceterms:instructionalProgramType
//   target course / code     -> ceterms:transferValueFor [ceterms:Course], same shape; a bare
//                               targetCode gives a course with only codedNotation and ownedBy
//   target course credits    -> ceterms:transferValue [ceterms:ValueProfile] (credit awarded)
//   target institution       -> ceterms:ownedBy of the profile (the receiving institution owns
//                               the transfer decision)
//   "<source> to <target>"   -> ceterms:name
//   policyBasis              -> ceterms:description
//   decidedAt                -> ceterms:startDate (the date the decision took effect)
//   status, decidedBy,       -> ce:status, ce:decidedBy, ce:version, ce:provenance,
//   version, provenance,        ce:datasetVersionId, ce:updatedAt: terms CTDL has no
//   datasetVersionId,           equivalent for; `ce:` is this service's namespace
//   updatedAt
//   (every node)             -> dcterms:license, CC BY 4.0
import type { Course, Institution } from "../../../generated/prisma/client.ts";
import type { EquivalencyWithCourses } from "./batches.ts";

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

function target(record: EquivalencyWithCourses) {
  if (record.targetCourse) return course(record.targetCourse, record.targetInstitution);
  if (!record.targetCode) return null;
  return {
    "@type": "ceterms:Course",
    "ceterms:codedNotation": record.targetCode,
    "ceterms:ownedBy": [organization(record.targetInstitution)],
  };
}

function title(record: EquivalencyWithCourses): string {
  const source = `${record.sourceCourse.code} (${record.sourceCourse.institution.name})`;
  const targetCode = record.targetCourse?.code ?? record.targetCode;
  const destination = targetCode ? `${targetCode} (${record.targetInstitution.name})` : record.targetInstitution.name;
  return `${source} to ${destination}`;
}

/** The JSON-LD node of one equivalency. */
export function transferValueProfile(record: EquivalencyWithCourses) {
  const receiving = target(record);
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
    "ceterms:transferValueFrom": [course(record.sourceCourse, record.sourceCourse.institution)],
    ...(receiving ? { "ceterms:transferValueFor": [receiving] } : {}),
    ...(record.targetCourse ? { "ceterms:transferValue": creditValue(record.targetCourse.credits) } : {}),
    ...(record.decidedAt ? { "ceterms:startDate": record.decidedAt.toISOString().slice(0, 10) } : {}),
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
