-- A publication no longer writes every equivalency it includes (republishing an unchanged dataset
-- cost a row write per rule). Every publication includes every equivalency its organization has in
-- its environment at the time (dataset_states), so one that a publication included stays in each
-- later one until it is removed or leaves the organization: `in_latest_dataset` says so, and its
-- `datasetVersionId` is then its organization's latest publication, read at render time.
-- A publication sets the flag (and dataset_version_id, the first publication that included it)
-- only for the equivalencies it includes for the first time, and clears it (dataset_version_id then
-- the last publication that included it) for those that left the organization (markPublished).
-- The renderings: "dataset_version_of"; the exports and the list compute the same in their own
-- statements (src/repositories/dataset-heads.ts) and pass it to the two-argument forms below, which
-- the planner inlines. The one-argument forms keep their names and results for every other caller.

ALTER TABLE "equivalencies" ADD COLUMN "in_latest_dataset" BOOLEAN NOT NULL DEFAULT false;

-- Until now each publication wrote its id into every equivalency it included: those holding their
-- organization's latest publication are in it.
UPDATE "equivalencies" AS e SET in_latest_dataset = true
FROM (SELECT DISTINCT ON (environment, organization_id) environment, organization_id, id
      FROM "dataset_versions" ORDER BY environment, organization_id, sequence DESC) AS head
WHERE e.dataset_version_id = head.id AND e.organization_id = head.organization_id
  AND e.environment = head.environment;

CREATE FUNCTION "dataset_version_of"(e "equivalencies") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN e.in_latest_dataset THEN coalesce((
    SELECT v.id FROM "dataset_versions" AS v
    WHERE v.organization_id = e.organization_id AND v.environment = e.environment
    ORDER BY v.sequence DESC LIMIT 1), e.dataset_version_id) ELSE e.dataset_version_id END
$$;

-- The equivalency as the API shows it, with this datasetVersionId.
CREATE FUNCTION "equivalency_api_json"(e "equivalencies", latest_dataset_version_id text) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{"id":"' || e.id
    || '","sourceCourseId":"' || e.source_course_id
    || '","targetInstitutionId":"' || e.target_institution_id
    || '","targetCourseId":' || coalesce('"' || e.target_course_id || '"', 'null')
    || ',"targetCode":' || coalesce(to_json(e.target_code)::text, 'null')
    || ',"status":"' || e.status::text
    || '","decidedBy":' || coalesce(to_json(e.decided_by)::text, 'null')
    || ',"decidedAt":' || coalesce("json_timestamp"(e.decided_at), 'null')
    || ',"policyBasis":' || coalesce(to_json(e.policy_basis)::text, 'null')
    || ',"version":' || e.version::text
    || ',"provenance":' || coalesce('"' || e.provenance::text || '"', 'null')
    || ',"datasetVersionId":' || coalesce('"' || latest_dataset_version_id || '"', 'null')
    || ',"createdAt":' || "json_timestamp"(e.created_at)
    || ',"updatedAt":' || "json_timestamp"(e.updated_at)
    || ',"sourceCourseIds":' || array_to_json(e.source_course_ids)::text
    || ',"targets":' || e.targets::text
    || ',"kind":"' || e.kind::text
    || '","generalEducationArea":' || coalesce(to_json(e.general_education_area)::text, 'null')
    || ',"minimumGrade":' || coalesce(to_json(e.minimum_grade)::text, 'null')
    || ',"effectiveFrom":' || coalesce(to_json(e.effective_from)::text, 'null')
    || ',"effectiveUntil":' || coalesce(to_json(e.effective_until)::text, 'null')
    || ',"priority":' || e.priority::text
    || ',"awardedCredits":' || coalesce(e.awarded_credits::text, 'null')
    || ',"awardedCreditUnit":' || coalesce('"' || e.awarded_credit_unit::text || '"', 'null')
    || ',"sourceCourseSets":' || e.source_course_sets::text
    || ',"targetChoice":"' || e.target_choice::text
    || '"}'
$$;

CREATE OR REPLACE FUNCTION "equivalency_api_json"(e "equivalencies") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT "equivalency_api_json"(e, "dataset_version_of"(e))
$$;

-- One rule's CTDL node (see the migration "ctdl_alternatives"), with this ce:datasetVersionId.
CREATE FUNCTION "equivalency_ctdl_of"(e "equivalencies", sc "courses", si "institutions", ti "institutions",
    latest_dataset_version_id text)
RETURNS TABLE (node text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{"@id":' || to_json('urn:course-equivalency:' || e.id)::text
    || ',"@type":"ceterms:TransferValueProfile","ceterms:identifier":[{"@type":"ceterms:IdentifierValue",'
    || '"ceterms:identifierTypeName":"course-equivalency id","ceterms:identifierValueCode":' || to_json(e.id)::text || '}]'
    || ',"ceterms:name":{"en-US":' || to_json(
         coalesce((SELECT codes FROM "source_set_codes_of"(e.source_course_sets)), sc.code) || ' (' || si.name || ') to '
         || CASE WHEN tgt.codes IS NOT NULL THEN tgt.codes || ' (' || ti.name || ')' ELSE ti.name END)::text || '}'
    || CASE WHEN e.policy_basis <> '' THEN ',"ceterms:description":{"en-US":' || to_json(e.policy_basis)::text || '}' ELSE '' END
    || ',"ceterms:ownedBy":[' || "ctdl_organization_json"(ti) || ']'
    || ',"ceterms:transferValueFrom":[' || coalesce(src.nodes, "ctdl_course_json"(sc, si)) || ']'
    || ',"ce:sourceCourseSets":[' || coalesce(sets.nodes, '') || ']'
    || coalesce(',"ceterms:transferValueFor":[' || tgt.nodes || ']', '')
    || CASE
         WHEN e.awarded_credits IS NOT NULL THEN ',"ceterms:transferValue":[{"@type":"ceterms:ValueProfile","schema:value":'
           || (e.awarded_credits + 0)::text
           || coalesce(',"ceterms:creditUnitType":"ce:' || e.awarded_credit_unit::text || '"', '') || '}]'
         WHEN tc.id IS NOT NULL THEN ',"ceterms:transferValue":' || "ctdl_value_profile_json"(tc.credits)
         ELSE '' END
    || coalesce(',"ceterms:startDate":' || to_json(coalesce(e.effective_from, e.decided_at::date))::text, '')
    || coalesce(',"ceterms:endDate":' || to_json(e.effective_until)::text, '')
    || ',"ce:kind":"' || e.kind::text
    || '","ce:targetChoice":"' || e.target_choice::text
    || '","ce:minimumGrade":' || coalesce(to_json(e.minimum_grade)::text, 'null')
    || ',"ce:generalEducationArea":' || coalesce(to_json(e.general_education_area)::text, 'null')
    || ',"ce:priority":' || e.priority::text
    || ',"ce:status":"' || e.status::text
    || '","ce:decidedBy":' || coalesce(to_json(e.decided_by)::text, 'null')
    || ',"ce:version":' || e.version::text
    || ',"ce:provenance":' || coalesce('"' || e.provenance::text || '"', 'null')
    || ',"ce:datasetVersionId":' || coalesce(to_json(latest_dataset_version_id)::text, 'null')
    || ',"ce:updatedAt":' || "json_timestamp"(e.updated_at)
    || ',"dcterms:license":{"@id":"https://creativecommons.org/licenses/by/4.0/"}}'
  FROM (SELECT 1) AS one
  LEFT JOIN LATERAL (SELECT c.id, c.credits FROM "courses" AS c WHERE c.id = e.target_course_id LIMIT 1) AS tc ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(c.node, ',' ORDER BY s.position) AS nodes
    FROM unnest(e.any_set_course_ids) WITH ORDINALITY AS s(id, position)
    CROSS JOIN LATERAL (
      -- A source course of the source institution (nearly all) is named with it, any other with its own.
      SELECT CASE WHEN c.environment = si.environment AND c.institution_id = si.id THEN "ctdl_course_json"(c, si)
          ELSE (SELECT "ctdl_course_json"(c, i) FROM "institutions" AS i
                WHERE i.environment = c.environment AND i.id = c.institution_id) END AS node
      FROM "courses" AS c
      WHERE c.id = s.id LIMIT 1
    ) AS c
  ) AS src ON true
  LEFT JOIN LATERAL (
    SELECT string_agg('{"@type":"ce:SourceCourseSet","ce:course":[' || one.refs || ']}', ',' ORDER BY s.position) AS nodes
    FROM jsonb_array_elements(e.source_course_sets) WITH ORDINALITY AS s(value, position)
    CROSS JOIN LATERAL (
      SELECT string_agg('{"@id":' || to_json('urn:course-equivalency:' || m.id)::text || '}', ',' ORDER BY m.position) AS refs
      FROM jsonb_array_elements_text(s.value) WITH ORDINALITY AS m(id, position)
    ) AS one
  ) AS sets ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(CASE
        WHEN (known.course).id IS NOT NULL THEN "ctdl_course_json"(known.course, ti)
        WHEN t.value->>'code' <> '' THEN '{"@type":"ceterms:Course","ceterms:codedNotation":' || to_json(t.value->>'code')::text
          || ',"ceterms:ownedBy":[' || "ctdl_organization_json"(ti) || ']}'
      END, ',' ORDER BY t.position) AS nodes,
      string_agg(coalesce((known.course).code, nullif(t.value->>'code', '')),
        CASE WHEN e.target_choice = 'one_of' THEN ' or ' ELSE ' + ' END ORDER BY t.position) AS codes
    FROM jsonb_array_elements(e.targets) WITH ORDINALITY AS t(value, position)
    LEFT JOIN LATERAL (SELECT c AS course FROM "courses" AS c WHERE c.id = t.value->>'courseId' LIMIT 1) AS known ON true
  ) AS tgt ON true
  WHERE sc.id = e.source_course_id AND si.id IS NOT NULL AND ti.id = e.target_institution_id
$$;

CREATE OR REPLACE FUNCTION "equivalency_ctdl_of"(e "equivalencies", sc "courses", si "institutions", ti "institutions")
RETURNS TABLE (node text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT node FROM "equivalency_ctdl_of"(e, sc, si, ti, "dataset_version_of"(e))
$$;
