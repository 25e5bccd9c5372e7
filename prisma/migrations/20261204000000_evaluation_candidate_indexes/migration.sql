-- POST /transfer-evaluations reads the accepted rules of one target institution that name any of
-- the input's courses. The GIN index on source_course_ids alone finds every rule of those courses
-- at every target institution, and the planner then intersected it with all of the target's rules
-- (10,000 at 1,000,000 rules over 100 targets): 18 ms a query. Keying each source course by its
-- target institution finds exactly the candidates.
--
-- The text "<target institution id> <source course id>" per source course; IMMUTABLE (it reads
-- nothing but its arguments) so that an index can be built on it. Not declarable in
-- schema.prisma, like the functions of earlier migrations.
CREATE FUNCTION "equivalency_source_keys"(target_institution_id text, source_course_ids text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ARRAY(SELECT target_institution_id || ' ' || course_id FROM unnest(source_course_ids) AS course_id)
$$;

--
-- Without fastupdate: a GIN index otherwise collects new entries in a pending list that every
-- search reads whole until a vacuum merges it (up to 4 MB; the embedded database never vacuums by
-- itself), and evaluations far outnumber rule writes.
CREATE INDEX "equivalencies_accepted_source_keys_idx" ON "equivalencies"
    USING GIN ("equivalency_source_keys"("target_institution_id", "source_course_ids"))
    WITH (fastupdate = off)
    WHERE "status" = 'accepted';

-- The target institution's credit unit (the unit most of its courses count in), counted from
-- this index alone instead of from every course row of the institution.
CREATE INDEX "courses_environment_institution_id_credit_unit_idx"
    ON "courses" ("environment", "institution_id", "credit_unit");

-- Without statistics of the keys the planner takes each for 0.5 % of the rules (the default for
-- an array overlap) and may prefer a sequential scan; these give it their real frequencies.
CREATE STATISTICS "equivalencies_source_keys_stats"
    ON ("equivalency_source_keys"("target_institution_id", "source_course_ids")) FROM "equivalencies";
