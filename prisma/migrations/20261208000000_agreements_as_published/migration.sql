-- Agreements as colleges publish them (docs/api-guide.md#agreements-as-published): a rule's
-- alternatives (source course sets, any one of which satisfies it), a choice of targets
-- (target_choice), a course's cross-listed codes, and demand for courses the catalog lacks.
-- Everything here is accepted by PostgreSQL 15 and by the embedded database alike.

CREATE TYPE "TargetChoice" AS ENUM ('all', 'one_of');

-- ---------------------------------------------------------------------------------------------
-- Cross-listed codes. A course keeps them, in the order given, in courses.cross_listed_codes;
-- course_codes holds every code of every course (its own and its cross-listed ones), one row a
-- code, so that a code belongs to at most one course of an institution (its primary key) and a
-- lookup by code, whichever it is, is one index probe.
ALTER TABLE "courses" ADD COLUMN "cross_listed_codes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

CREATE TABLE "course_codes" (
    "environment" "Environment" NOT NULL,
    "institution_id" TEXT NOT NULL,
    -- The code upper-cased with white space collapsed, as courses.code_key.
    "code_key" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    -- The code as spelled (the course's code, or the cross-listed code as given).
    "code" TEXT NOT NULL,
    -- false for the course's own code, true for a cross-listed one.
    "cross_listed" BOOLEAN NOT NULL,

    CONSTRAINT "course_codes_pkey" PRIMARY KEY ("environment", "institution_id", "code_key"),
    CONSTRAINT "course_codes_course_id_fkey" FOREIGN KEY ("course_id") REFERENCES "courses" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "course_codes_course_id_idx" ON "course_codes" ("course_id");

INSERT INTO "course_codes" ("environment", "institution_id", "code_key", "course_id", "code", "cross_listed")
    SELECT "environment", "institution_id", "code_key", "id", "code", false FROM "courses";

-- A course's own code is kept in course_codes by the database, whoever writes the course (the
-- API, the sandbox seed, the command-line imports): a new course's code that is already another
-- course's cross-listed code fails on the primary key. Cross-listed rows are written by the
-- course service, which checks them first and answers course-code-taken.
CREATE FUNCTION "course_own_code"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF OLD.code_key = NEW.code_key AND OLD.environment = NEW.environment AND OLD.institution_id = NEW.institution_id THEN
            IF OLD.code IS DISTINCT FROM NEW.code THEN
                UPDATE "course_codes" SET "code" = NEW.code
                WHERE "environment" = NEW.environment AND "institution_id" = NEW.institution_id
                  AND "code_key" = NEW.code_key AND "course_id" = NEW.id;
            END IF;
            RETURN NEW;
        END IF;
        DELETE FROM "course_codes"
        WHERE "environment" = OLD.environment AND "institution_id" = OLD.institution_id
          AND "code_key" = OLD.code_key AND "course_id" = OLD.id;
    END IF;
    INSERT INTO "course_codes" ("environment", "institution_id", "code_key", "course_id", "code", "cross_listed")
        VALUES (NEW.environment, NEW.institution_id, NEW.code_key, NEW.id, NEW.code, false);
    RETURN NEW;
END;
$$;
CREATE TRIGGER "courses_own_code" AFTER INSERT OR UPDATE OF "code", "code_key", "environment", "institution_id" ON "courses"
    FOR EACH ROW EXECUTE FUNCTION "course_own_code"();

-- ---------------------------------------------------------------------------------------------
-- Alternatives and choices. source_course_sets is the rule's sets, in order (a JSON array of
-- arrays of course ids; the first set is source_course_ids). Derived from it by the database on
-- every write, so they cannot disagree with it:
--   source_set_keys     each set's key (its ids sorted, each once, joined by a space: the key
--                       source_set_key holds for the first set), in the sets' order;
--   any_set_course_ids  every course of any set, each once, in order of first appearance.
ALTER TABLE "equivalencies"
    ADD COLUMN "source_course_sets" JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN "source_set_keys" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    ADD COLUMN "any_set_course_ids" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
    ADD COLUMN "target_choice" "TargetChoice" NOT NULL DEFAULT 'all';

-- Sorted by the "C" collation (byte order), which is JavaScript's order for the ASCII ids, so the
-- keys are those src/services/rules/rules.ts computes (sourceSetKey).
CREATE FUNCTION "source_set_keys"(sets jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(
        (SELECT string_agg(DISTINCT id COLLATE "C", ' ' ORDER BY id COLLATE "C") FROM jsonb_array_elements_text(s.value) AS id)
        ORDER BY s.position), ARRAY[]::text[])
    FROM jsonb_array_elements(sets) WITH ORDINALITY AS s(value, position)
$$;

CREATE FUNCTION "source_set_course_ids"(sets jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(u.id ORDER BY u.first), ARRAY[]::text[])
    FROM (
        SELECT c.id, min(s.position * 100 + c.position) AS first
        FROM jsonb_array_elements(sets) WITH ORDINALITY AS s(value, position),
             jsonb_array_elements_text(s.value) WITH ORDINALITY AS c(id, position)
        GROUP BY c.id
    ) AS u
$$;

UPDATE "equivalencies" SET "source_course_sets" = jsonb_build_array(to_jsonb("source_course_ids"));
UPDATE "equivalencies" SET
    "source_set_keys" = "source_set_keys"("source_course_sets"),
    "any_set_course_ids" = "source_set_course_ids"("source_course_sets");

-- An insert that names no sets (1.0 and 1.1 writers) gets one, its source_course_ids; an update
-- of source_course_ids alone moves the first set with it. Fires after equivalencies_rule_defaults
-- (triggers of one event fire in name order), which fills source_course_ids for 1.0 inserts.
CREATE FUNCTION "equivalency_source_sets"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.source_course_sets = '[]'::jsonb THEN
        NEW.source_course_sets := jsonb_build_array(to_jsonb(NEW.source_course_ids));
    ELSIF TG_OP = 'UPDATE' AND NEW.source_course_sets = OLD.source_course_sets
        AND NEW.source_course_ids IS DISTINCT FROM OLD.source_course_ids THEN
        NEW.source_course_sets := jsonb_set(NEW.source_course_sets, '{0}', to_jsonb(NEW.source_course_ids));
    END IF;
    NEW.source_set_keys := "source_set_keys"(NEW.source_course_sets);
    NEW.any_set_course_ids := "source_set_course_ids"(NEW.source_course_sets);
    RETURN NEW;
END;
$$;
CREATE TRIGGER "equivalencies_source_sets" BEFORE INSERT OR UPDATE OF "source_course_sets", "source_course_ids" ON "equivalencies"
    FOR EACH ROW EXECUTE FUNCTION "equivalency_source_sets"();

-- The ambiguity check and the overlap report: the accepted (and conflict) rules of one target
-- institution sharing any set key with a rule. "<target institution id> <set key>" per set, by
-- the function migration evaluation_candidate_indexes defined for source courses. Without
-- fastupdate, as the evaluation index (see there).
CREATE INDEX "equivalencies_decided_set_keys_idx" ON "equivalencies"
    USING GIN ("equivalency_source_keys"("target_institution_id", "source_set_keys"))
    WITH (fastupdate = off)
    WHERE "status" IN ('accepted', 'conflict');

-- Evaluation candidates: the rules of one target institution naming a course in any set. It
-- replaces the index of the first set's courses; conflict rules are in it too, so that an
-- evaluation can say a rival rule waits in conflict (status = 'accepted' implies the predicate).
DROP STATISTICS "equivalencies_source_keys_stats";
DROP INDEX "equivalencies_accepted_source_keys_idx";
CREATE INDEX "equivalencies_decided_any_set_keys_idx" ON "equivalencies"
    USING GIN ("equivalency_source_keys"("target_institution_id", "any_set_course_ids"))
    WITH (fastupdate = off)
    WHERE "status" IN ('accepted', 'conflict');
CREATE STATISTICS "equivalencies_any_set_keys_stats"
    ON ("equivalency_source_keys"("target_institution_id", "any_set_course_ids")) FROM "equivalencies";

-- GET /equivalencies?sourceCourse=: a course in any set (replaces the index of the first set's).
DROP INDEX "equivalencies_source_course_ids_idx";
CREATE INDEX "equivalencies_any_set_course_ids_idx" ON "equivalencies" USING GIN ("any_set_course_ids");

-- ---------------------------------------------------------------------------------------------
-- The API's representations (migration api_json; test/unit/api-json.test.ts holds them to the
-- views): a course gains crossListedCodes, an equivalency sourceCourseSets and targetChoice
-- (after awardedCreditUnit), its expansion sourceCourseSetCourses (after sourceCourses).
CREATE OR REPLACE FUNCTION "course_api_json"(c "courses") RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('id', c.id, 'institutionId', c.institution_id, 'code', c.code,
    'title', c.title, 'credits', c.credits, 'creditUnit', c.credit_unit, 'level', c.level,
    'description', c.description, 'cipCode', c.cip_code, 'version', c.version,
    'updatedAt', "iso_timestamp"(c.updated_at), 'crossListedCodes', c.cross_listed_codes)
$$;

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
    || ',"sourceCourseSets":' || e.source_course_sets::text
    || ',"targetChoice":"' || e.target_choice::text
    || '"}'
$$;

CREATE OR REPLACE FUNCTION "equivalency_expanded_api_json"(equivalency_id text, in_environment "Environment")
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
        || '], "sourceCourseSetCourses" : [' || coalesce((SELECT string_agg('[' || coalesce((
                SELECT string_agg("course_with_institution_api_json"(c, i), ', ' ORDER BY s.position)
                FROM jsonb_array_elements_text(sets.value) WITH ORDINALITY AS s(course_id, position)
                JOIN "courses" AS c ON c.id = s.course_id
                JOIN "institutions" AS i ON i.environment = c.environment AND i.id = c.institution_id), '') || ']',
            ', ' ORDER BY sets.position)
            FROM jsonb_array_elements(e.source_course_sets) WITH ORDINALITY AS sets(value, position)), '')
        || '], "targetInstitution" : ' || coalesce((SELECT "institution_api_json"(ti)::text FROM "institutions" AS ti
            WHERE ti.environment = e.environment AND ti.id = e.target_institution_id), 'null')
        || ', "targetCourse" : ' || coalesce((SELECT "course_api_json"(tc)::text FROM "courses" AS tc
            WHERE tc.id = e.target_course_id), 'null')
        || '}'
    FROM "equivalencies" AS e
    WHERE e.id = equivalency_id AND e.environment = in_environment;
END;
$$;

-- ---------------------------------------------------------------------------------------------
-- Demand. A requested course is a catalog course (course_key = its id) or, from 1.2.0, a course
-- the catalog lacks, given by institution, code and title (course_key = "<institution id>
-- <code key>", source_course_id empty, the institution, code and latest title kept beside). The
-- key orders the list's ties: catalog courses (crs_…) by id, then the others by institution and
-- code. distinct_requesters counts the keyed hashes of equivalency_request_requesters.
ALTER TABLE "equivalency_requests"
    ADD COLUMN "course_key" TEXT,
    ADD COLUMN "source_institution_id" TEXT,
    ADD COLUMN "source_code" TEXT,
    ADD COLUMN "source_title" TEXT,
    ADD COLUMN "distinct_requesters" INTEGER NOT NULL DEFAULT 1;
UPDATE "equivalency_requests" SET "course_key" = "source_course_id";
ALTER TABLE "equivalency_requests" ALTER COLUMN "course_key" SET NOT NULL;
ALTER TABLE "equivalency_requests" DROP CONSTRAINT "equivalency_requests_pkey";
ALTER TABLE "equivalency_requests"
    ADD CONSTRAINT "equivalency_requests_pkey" PRIMARY KEY ("environment", "target_institution_id", "course_key");
DROP INDEX "equivalency_requests_environment_target_institution_id_requ_idx";
CREATE INDEX "equivalency_requests_environment_target_institution_id_requ_idx"
    ON "equivalency_requests" ("environment", "target_institution_id", "requests" DESC, "course_key");

-- Who asked, as keyed hashes (HMAC of the requester under a key derived from the secrets key;
-- never the credential or the address), one row per requester of a requested course: the count
-- of distinct requesters. Deleted with the requests they counted.
CREATE TABLE "equivalency_request_requesters" (
    "environment" "Environment" NOT NULL,
    "target_institution_id" TEXT NOT NULL,
    "course_key" TEXT NOT NULL,
    "requester" TEXT NOT NULL,

    CONSTRAINT "equivalency_request_requesters_pkey" PRIMARY KEY ("environment", "target_institution_id", "course_key", "requester")
);
