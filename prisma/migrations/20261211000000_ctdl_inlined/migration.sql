-- The CTDL export and the sets' codes, inlined into the statement that exports them.
--
-- A scalar SQL function whose body is a query (joins, lateral lookups) is never inlined:
-- PostgreSQL runs its plan once per call, about 110 µs per rule for "equivalency_ctdl_json" on
-- PostgreSQL (2.2 s for 20,000 rules of a real catalog's shape, against 64 ms for the API's JSON).
-- A set-returning SQL function of one SELECT is inlined where it is called in FROM, so the export
-- joins "equivalency_ctdl_of"(e, source course, its institution, target institution) and the
-- planner plans its lookups with the export's own (src/repositories/exports.ts): the
-- institutions, a hundred rows that the planner scanned whole inside the function for each rule
-- (half the rendering's time), are hashed once per export. The bodies are those of migration "ctdl_alternatives", the
-- sets' codes read through "source_set_codes_of" as well; the scalar functions stay, each
-- reading its set-returning twin, so that there is one definition of each rendering.
CREATE FUNCTION "source_set_codes_of"(sets jsonb) RETURNS TABLE (codes text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT string_agg(CASE WHEN jsonb_array_length(sets) > 1 AND one.known > 1
             THEN '(' || one.codes || ')' ELSE one.codes END, ' or ' ORDER BY s.position)
  FROM jsonb_array_elements(sets) WITH ORDINALITY AS s(value, position)
  CROSS JOIN LATERAL (
    SELECT string_agg(c.code, ' + ' ORDER BY m.position) AS codes, count(c.code) AS known
    FROM jsonb_array_elements_text(s.value) WITH ORDINALITY AS m(id, position)
    LEFT JOIN LATERAL (SELECT code FROM "courses" WHERE id = m.id LIMIT 1) AS c ON true
  ) AS one
$$;

CREATE OR REPLACE FUNCTION "source_set_codes"(sets jsonb) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT codes FROM "source_set_codes_of"(sets)
$$;

CREATE FUNCTION "equivalency_ctdl_of"(e "equivalencies", sc "courses", si "institutions", ti "institutions")
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
    || ',"ce:datasetVersionId":' || coalesce(to_json(e.dataset_version_id)::text, 'null')
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

-- One rule's node: its source course and the two institutions looked up, as the export joins them.
CREATE OR REPLACE FUNCTION "equivalency_ctdl_json"(e "equivalencies") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT ctdl.node
  FROM "courses" AS sc
  JOIN "institutions" AS si ON si.environment = sc.environment AND si.id = sc.institution_id
  JOIN "institutions" AS ti ON ti.environment = e.environment AND ti.id = e.target_institution_id
  CROSS JOIN LATERAL "equivalency_ctdl_of"(e, sc, si, ti) AS ctdl
  WHERE sc.id = e.source_course_id
$$;
