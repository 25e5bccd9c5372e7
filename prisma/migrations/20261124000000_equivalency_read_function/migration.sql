-- One equivalency with every record GET /equivalencies/{id} embeds, as one JSON
-- array text: [equivalency, source course, its institution, target institution,
-- target course]; NULL when there is no such equivalency in the environment.
-- A PL/pgSQL function because its statement's plan is kept for the session:
-- planning the five lookups on every read cost as much as running them (half
-- of each read's database time on the embedded database).
CREATE FUNCTION "equivalency_expanded_json"(equivalency_id text, in_environment "Environment") RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
    expanded text;
BEGIN
    SELECT json_build_array(
        row_to_json(e),
        (SELECT row_to_json(sc) FROM "courses" AS sc WHERE sc.id = e.source_course_id),
        (SELECT row_to_json(si) FROM "courses" AS sc
            JOIN "institutions" AS si ON si.environment = sc.environment AND si.id = sc.institution_id
            WHERE sc.id = e.source_course_id),
        (SELECT row_to_json(ti) FROM "institutions" AS ti WHERE ti.environment = e.environment AND ti.id = e.target_institution_id),
        (SELECT row_to_json(tc) FROM "courses" AS tc WHERE tc.id = e.target_course_id)
    )::text
    INTO expanded
    FROM "equivalencies" AS e
    WHERE e.id = equivalency_id AND e.environment = in_environment;
    RETURN expanded;
END;
$$;
