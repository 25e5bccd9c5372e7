-- The API's representation of institutions, courses and equivalencies (src/views/catalog.ts:
-- institutionView, courseView, equivalencyView, and the service's expandedView), rendered by
-- the database, so that the hottest reads pass one text through to the response instead of
-- parsing rows into objects and serialising them again (docs/benchmarks.md).
-- test/unit/api-json.test.ts compares each rendering with the JavaScript view on both databases.
--
-- The row functions are single expressions with no FROM, so PostgreSQL inlines them into the
-- query that calls them. Timestamps are written as Date.prototype.toISOString writes them
-- (iso_timestamp), date columns as calendar dates `YYYY-MM-DD`, targets as stored.
CREATE FUNCTION "institution_api_json"(i "institutions") RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('id', i.id, 'ipedsId', i.ipeds_id, 'name', i.name, 'city', i.city,
    'state', i.state, 'type', i.type, 'system', i.system, 'source', i.source)
$$;

CREATE FUNCTION "course_api_json"(c "courses") RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('id', c.id, 'institutionId', c.institution_id, 'code', c.code,
    'title', c.title, 'credits', c.credits, 'creditUnit', c.credit_unit, 'level', c.level,
    'description', c.description, 'cipCode', c.cip_code, 'version', c.version,
    'updatedAt', "iso_timestamp"(c.updated_at))
$$;

-- The equivalency is written piece by piece rather than by json_build_object, which ran at half
-- the speed on the JSON export (its 24 values each converted through the json machinery): ids and
-- enum values (generated, `[a-z0-9_]`) need no escaping, numbers and timestamps are written as
-- text, and the free texts go through to_json. concat skips NULL arguments, so every nullable
-- value is coalesced to null.
CREATE FUNCTION "equivalency_api_json"(e "equivalencies") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT concat(
    '{"id":"', e.id,
    '","sourceCourseId":"', e.source_course_id,
    '","targetInstitutionId":"', e.target_institution_id,
    '","targetCourseId":', coalesce('"' || e.target_course_id || '"', 'null'),
    ',"targetCode":', coalesce(to_json(e.target_code)::text, 'null'),
    ',"status":"', e.status,
    '","decidedBy":', coalesce(to_json(e.decided_by)::text, 'null'),
    ',"decidedAt":', coalesce('"' || "iso_timestamp"(e.decided_at) || '"', 'null'),
    ',"policyBasis":', coalesce(to_json(e.policy_basis)::text, 'null'),
    ',"version":', e.version,
    ',"provenance":', coalesce('"' || e.provenance || '"', 'null'),
    ',"datasetVersionId":', coalesce('"' || e.dataset_version_id || '"', 'null'),
    ',"createdAt":"', "iso_timestamp"(e.created_at),
    '","updatedAt":"', "iso_timestamp"(e.updated_at),
    '","sourceCourseIds":', array_to_json(e.source_course_ids),
    ',"targets":', e.targets,
    ',"kind":"', e.kind,
    '","generalEducationArea":', coalesce(to_json(e.general_education_area)::text, 'null'),
    ',"minimumGrade":', coalesce(to_json(e.minimum_grade)::text, 'null'),
    ',"effectiveFrom":', coalesce('"' || to_char(e.effective_from, 'YYYY-MM-DD') || '"', 'null'),
    ',"effectiveUntil":', coalesce('"' || to_char(e.effective_until, 'YYYY-MM-DD') || '"', 'null'),
    ',"priority":', e.priority,
    ',"awardedCredits":', coalesce(e.awarded_credits::text, 'null'),
    ',"awardedCreditUnit":', coalesce('"' || e.awarded_credit_unit || '"', 'null'),
    '}')
$$;

-- A course with its institution: the course's object with one member more. json_build_object
-- always ends its text with the closing brace, which the member is written before.
CREATE FUNCTION "course_with_institution_api_json"(c "courses", i "institutions") RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT left("course_api_json"(c)::text, -1) || ', "institution" : ' || "institution_api_json"(i)::text || '}'
$$;

-- GET /equivalencies/{id}: the equivalency with its source course, every source course in
-- order, its target institution and target course (expandedView), and its version for the ETag.
-- A PL/pgSQL function, as "equivalency_expanded_json" is, so its plan is kept per session.
CREATE FUNCTION "equivalency_expanded_api_json"(equivalency_id text, in_environment "Environment")
RETURNS TABLE (version integer, representation text)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT e.version,
        left("equivalency_api_json"(e)::text, -1)
        || ', "sourceCourse" : ' || coalesce((SELECT "course_with_institution_api_json"(sc, si)
            FROM "courses" AS sc
            JOIN "institutions" AS si ON si.environment = sc.environment AND si.id = sc.institution_id
            WHERE sc.id = e.source_course_id), 'null')
        || ', "sourceCourses" : [' || coalesce((SELECT string_agg("course_with_institution_api_json"(c, i), ', ' ORDER BY s.position)
            FROM unnest(e.source_course_ids) WITH ORDINALITY AS s(course_id, position)
            JOIN "courses" AS c ON c.id = s.course_id
            JOIN "institutions" AS i ON i.environment = c.environment AND i.id = c.institution_id), '')
        || '], "targetInstitution" : ' || coalesce((SELECT "institution_api_json"(ti)::text FROM "institutions" AS ti
            WHERE ti.environment = e.environment AND ti.id = e.target_institution_id), 'null')
        || ', "targetCourse" : ' || coalesce((SELECT "course_api_json"(tc)::text FROM "courses" AS tc
            WHERE tc.id = e.target_course_id), 'null')
        || '}'
    FROM "equivalencies" AS e
    WHERE e.id = equivalency_id AND e.environment = in_environment;
END;
$$;
