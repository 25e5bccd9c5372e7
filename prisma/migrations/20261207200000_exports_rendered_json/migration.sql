-- The JSON export renders faster, and the CTDL JSON-LD export is rendered by the database as the
-- CSV and JSON exports are (docs/exports.md, docs/benchmarks.md).
--
-- "json_timestamp" writes a timestamp(3) column (UTC) as the quoted JSON string of
-- Date.prototype.toISOString, with one output call: json's timestamp output is ISO 8601 whatever
-- the session's DateStyle, but drops trailing zeros of the fraction; a microsecond added first
-- makes it always write six digits (a timestamp(3) has none below the millisecond), of which the
-- first three are kept. A date column is written by to_json alone ("YYYY-MM-DD").
CREATE FUNCTION "json_timestamp"(value timestamp(3)) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT left(to_json(value + interval '1 microsecond')::text, 24) || 'Z"'
$$;

-- The API's representation of an equivalency, as the migration "api_json" wrote it, character for
-- character (test/unit/api-json.test.ts), with `||` instead of concat: concat looks up the output
-- function of each of its 49 arguments on every call. Every nullable value is coalesced, since
-- `||` with a NULL is NULL.
CREATE OR REPLACE FUNCTION "equivalency_api_json"(e "equivalencies") RETURNS text
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
    || ',"datasetVersionId":' || coalesce('"' || e.dataset_version_id || '"', 'null')
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
    || '}'
$$;

-- CTDL JSON-LD, as src/services/exports/ctdl.ts wrote it in JavaScript (test/unit/ctdl-json.test.ts
-- holds each node to that rendering, on both databases). Free texts and ids go through to_json;
-- a float8's text is the shortest that reads back the same value, as JavaScript's, and `+ 0`
-- turns a stored -0 into the 0 JSON.stringify writes.
CREATE FUNCTION "ctdl_organization_json"(i "institutions") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{"@type":"ceterms:CredentialOrganization","ceterms:name":{"en-US":' || to_json(i.name)::text
    || '},"ceterms:ipedsID":' || to_json(i.ipeds_id)::text || '}'
$$;

CREATE FUNCTION "ctdl_value_profile_json"(credits double precision) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '[{"@type":"ceterms:ValueProfile","schema:value":' || (credits + 0)::text || '}]'
$$;

-- A course owned by `owner` (a target course is shown as owned by the rule's target institution).
-- A description or CIP code that is empty is left out, as JavaScript's truthiness left it out.
CREATE FUNCTION "ctdl_course_json"(c "courses", owner "institutions") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{"@type":"ceterms:Course","@id":' || to_json('urn:course-equivalency:' || c.id)::text
    || ',"ceterms:codedNotation":' || to_json(c.code)::text
    || ',"ceterms:name":{"en-US":' || to_json(c.title)::text || '}'
    || CASE WHEN c.description <> '' THEN ',"ceterms:description":{"en-US":' || to_json(c.description)::text || '}' ELSE '' END
    || ',"ceterms:creditValue":' || "ctdl_value_profile_json"(c.credits)
    || CASE WHEN c.cip_code <> ''
         THEN ',"ceterms:instructionalProgramType":[{"@type":"ceterms:CredentialAlignmentObject","ceterms:codedNotation":'
           || to_json(c.cip_code)::text || ',"ceterms:frameworkName":{"en-US":"CIP 2020"}}]'
         ELSE '' END
    || ',"ceterms:ownedBy":[' || "ctdl_organization_json"(owner) || ']}'
$$;

-- One ceterms:TransferValueProfile. Its source courses are the rule's known source courses in
-- order (else its first source course); its targets each a known course record, else a code (a
-- target with neither is left out); its name "<codes joined by ' + '> (<first source's
-- institution>) to <target code> (<target institution>)"; its start date effectiveFrom, else the
-- decision's date.
CREATE FUNCTION "equivalency_ctdl_json"(e "equivalencies") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{"@id":' || to_json('urn:course-equivalency:' || e.id)::text
    || ',"@type":"ceterms:TransferValueProfile","ceterms:identifier":[{"@type":"ceterms:IdentifierValue",'
    || '"ceterms:identifierTypeName":"course-equivalency id","ceterms:identifierValueCode":' || to_json(e.id)::text || '}]'
    || ',"ceterms:name":{"en-US":' || to_json(
         coalesce(src.codes, sc.code) || ' (' || si.name || ') to '
         || CASE WHEN coalesce(tc.code, e.target_code) <> '' THEN coalesce(tc.code, e.target_code) || ' (' || ti.name || ')'
            ELSE ti.name END)::text || '}'
    || CASE WHEN e.policy_basis <> '' THEN ',"ceterms:description":{"en-US":' || to_json(e.policy_basis)::text || '}' ELSE '' END
    || ',"ceterms:ownedBy":[' || "ctdl_organization_json"(ti) || ']'
    || ',"ceterms:transferValueFrom":[' || coalesce(src.nodes, "ctdl_course_json"(sc, si)) || ']'
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
  FROM "courses" AS sc
  JOIN "institutions" AS si ON si.environment = sc.environment AND si.id = sc.institution_id
  JOIN "institutions" AS ti ON ti.environment = e.environment AND ti.id = e.target_institution_id
  LEFT JOIN "courses" AS tc ON tc.id = e.target_course_id
  LEFT JOIN LATERAL (
    SELECT string_agg("ctdl_course_json"(c, i), ',' ORDER BY s.position) AS nodes,
           string_agg(c.code, ' + ' ORDER BY s.position) AS codes
    FROM unnest(e.source_course_ids) WITH ORDINALITY AS s(id, position)
    JOIN "courses" AS c ON c.id = s.id
    JOIN "institutions" AS i ON i.environment = c.environment AND i.id = c.institution_id
  ) AS src ON true
  LEFT JOIN LATERAL (
    SELECT string_agg(CASE
        WHEN t_course.id IS NOT NULL THEN "ctdl_course_json"(t_course, ti)
        WHEN t.value->>'code' <> '' THEN '{"@type":"ceterms:Course","ceterms:codedNotation":' || to_json(t.value->>'code')::text
          || ',"ceterms:ownedBy":[' || "ctdl_organization_json"(ti) || ']}'
      END, ',' ORDER BY t.position) AS nodes
    FROM jsonb_array_elements(e.targets) WITH ORDINALITY AS t(value, position)
    LEFT JOIN "courses" AS t_course ON t_course.id = t.value->>'courseId'
  ) AS tgt ON true
  WHERE sc.id = e.source_course_id
$$;
