// Equivalencies as Credential Transparency Description Language (CTDL) aligned JSON-LD: one
// ceterms:TransferValueProfile per equivalency in `@graph`. The nodes are rendered by the database
// (the "equivalency_ctdl_of" function of the migration "ctdl_alternatives"); this module
// holds the document's frame. test/helpers/ctdl-oracle.ts is the JavaScript rendering the
// database's is held to (test/unit/ctdl-json.test.ts).
//
// Mapping (equivalency field -> term):
//   id                       -> "@id" urn:course-equivalency:<id>, and ceterms:identifier
//   source course sets       -> ceterms:transferValueFrom [ceterms:Course, one per course of any
//                               set, each once, in order of first appearance], and
//                               ce:sourceCourseSets [ce:SourceCourseSet, one per set, in order,
//                               ce:course referencing by @id the courses it requires, all of
//                               them; any one set satisfies the rule] (ceterms:Course is a CTDL subclass of
//                               learning opportunity) with ceterms:codedNotation (code),
//                               ceterms:name (title), ceterms:description, ceterms:creditValue
//                               [ceterms:ValueProfile schema:value = credits], ceterms:ownedBy
//                               [ceterms:CredentialOrganization with ceterms:name and
//                               ceterms:ipedsID] and, with a CIP code, ceterms:instructionalProgramType
//   crossListedCodes         -> ce:crossListedCodes of a course node, when it has some
//   targetChoice             -> ce:targetChoice (`all` or `one_of`)
//   targets                  -> ceterms:transferValueFor [ceterms:Course, one per target], same
//                               shape; a code without a course record gives a course with only
//                               codedNotation and ownedBy
//   awardedCredits (unit)    -> ceterms:transferValue [ceterms:ValueProfile schema:value, and
//                               ceterms:creditUnitType ce:<unit>] (credit awarded)
//   target institution       -> ceterms:ownedBy of the profile (the receiving institution owns
//                               the transfer decision)
//   "<sets> to <targets>"    -> ceterms:name, sets and targets as the import writes them
//                               ("MATH 7 or MATH 7H (…) to MATH 1A or MATH 16A (…)")
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

export const LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/";

export const CTDL_CONTEXT = [
  "https://credreg.net/ctdl/schema/context/json",
  {
    ce: "https://course-equivalency.org/ns/",
    dcterms: "http://purl.org/dc/terms/",
    schema: "https://schema.org/",
  },
];

/** `{"@context": …, "@graph": [` … `]}` around the nodes. */
export const CTDL_OPEN = `{"@context":${JSON.stringify(CTDL_CONTEXT)},"@graph":[`;
export const CTDL_CLOSE = "]}\n";
