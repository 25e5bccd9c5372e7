-- The CTDL export says what a rule of alternatives, a choice of targets and a cross-listed course
-- say (agreements as published, 1.2.0). CTDL has no term for "any one of these sets" or "one of
-- these targets", so, beside its own terms, the node carries the service's (`ce:`):
--   ceterms:transferValueFrom  every course of any set, each once, in order of first appearance
--                              (the rule's first set alone before);
--   ce:sourceCourseSets        the sets, in order, each a ce:SourceCourseSet whose ce:course
--                              references (by @id) the courses of transferValueFrom it requires,
--                              all of them; any one set completed satisfies the rule;
--   ce:targetChoice            `all` (every target of transferValueFor is awarded) or `one_of`
--                              (the student's program decides which one);
--   ce:crossListedCodes        on a course node, the other codes the same course is listed under;
--   ceterms:name               sets and targets as the import writes them: "MATH 7 or MATH 7H
--                              (Santa Monica College) to MATH 1A or MATH 16A (University of …)".
-- test/helpers/ctdl-oracle.ts renders the same bytes in JavaScript (test/unit/ctdl-json.test.ts).
--
-- Every course a rule names is read by its key, in a LATERAL subquery with LIMIT 1 the planner
-- cannot pull up into a join: joined plainly, it took the arrays' elements for a hundred rows and
-- hashed the whole course table for each rule, so the export grew with rules × courses
-- (test/unit/export-lookups.test.ts holds the work per rule constant as the catalog grows).
--
-- The renderings are set-returning SQL functions of one SELECT ("source_set_codes_of",
-- "equivalency_ctdl_of"), which PostgreSQL inlines where they are called in FROM: a scalar SQL
-- function whose body is a query is never inlined, and ran its plan once per rule (about 110 µs a
-- rule, 2.2 s for 20,000 rules of a real catalog's shape against 64 ms for the API's JSON). The
-- export joins "equivalency_ctdl_of"(e, source course, its institution, target institution), so
-- the institutions, which the planner scanned whole inside the function for each rule, are hashed
-- once per export (src/repositories/exports.ts). The scalar "source_set_codes" and
-- "equivalency_ctdl_json" read their set-returning forms: one definition of each rendering.

CREATE OR REPLACE FUNCTION "ctdl_course_json"(c "courses", owner "institutions") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{"@type":"ceterms:Course","@id":' || to_json('urn:course-equivalency:' || c.id)::text
    || ',"ceterms:codedNotation":' || to_json(c.code)::text
    || CASE WHEN cardinality(c.cross_listed_codes) > 0
         THEN ',"ce:crossListedCodes":' || array_to_json(c.cross_listed_codes)::text ELSE '' END
    || ',"ceterms:name":{"en-US":' || to_json(c.title)::text || '}'
    || CASE WHEN c.description <> '' THEN ',"ceterms:description":{"en-US":' || to_json(c.description)::text || '}' ELSE '' END
    || ',"ceterms:creditValue":' || "ctdl_value_profile_json"(c.credits)
    || CASE WHEN c.cip_code <> ''
         THEN ',"ceterms:instructionalProgramType":[{"@type":"ceterms:CredentialAlignmentObject","ceterms:codedNotation":'
           || to_json(c.cip_code)::text || ',"ceterms:frameworkName":{"en-US":"CIP 2020"}}]'
         ELSE '' END
    || ',"ceterms:ownedBy":[' || "ctdl_organization_json"(owner) || ']}'
$$;

-- A rule's source course sets by code, as the import writes them and the CSV export's
-- sourceCourseSetCodes and the CTDL name show them: a set's known courses joined by " + ", sets by
-- " or ", a set of several known courses in parentheses when the rule has several sets ("MATH 7 or
-- MATH 7H", "(BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415)"); null when no course is known.
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

CREATE FUNCTION "source_set_codes"(sets jsonb) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT codes FROM "source_set_codes_of"(sets)
$$;

-- One rule's node, given its source course, that course's institution and the target institution
-- (no row when one is missing). Targets' codes: each target's course code, else its code, joined
-- by " + " (all) or " or " (one_of); a target with neither is left out.
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
