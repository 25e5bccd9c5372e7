-- Articulation rules (issue 23): several source courses (AND) and targets, an outcome kind,
-- a minimum grade, effective dates, a priority, awarded credits and the courses' credit unit.
-- The 1.0 columns stay and mirror the first source course and the first target.
CREATE TYPE "CreditUnit" AS ENUM ('semester', 'quarter', 'clock_hour', 'ceu');
CREATE TYPE "RuleKind" AS ENUM ('equivalent', 'elective', 'general_education', 'no_credit');

ALTER TABLE "courses" ADD COLUMN "credit_unit" "CreditUnit" NOT NULL DEFAULT 'semester';

ALTER TABLE "equivalencies"
    ADD COLUMN "source_course_ids" TEXT[],
    ADD COLUMN "source_set_key" TEXT,
    ADD COLUMN "targets" JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN "kind" "RuleKind" NOT NULL DEFAULT 'equivalent',
    ADD COLUMN "general_education_area" TEXT,
    ADD COLUMN "minimum_grade" TEXT,
    ADD COLUMN "effective_from" DATE,
    ADD COLUMN "effective_until" DATE,
    ADD COLUMN "priority" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "awarded_credits" DOUBLE PRECISION,
    ADD COLUMN "awarded_credit_unit" "CreditUnit";

UPDATE "equivalencies" SET
    "source_course_ids" = ARRAY["source_course_id"],
    "source_set_key" = "source_course_id",
    "targets" = CASE
        WHEN "target_course_id" IS NULL AND "target_code" IS NULL THEN '[]'::jsonb
        ELSE jsonb_build_array(jsonb_build_object('courseId', "target_course_id", 'code', "target_code", 'credits', NULL))
    END;

ALTER TABLE "equivalencies"
    ALTER COLUMN "source_course_ids" SET NOT NULL,
    ALTER COLUMN "source_course_ids" SET DEFAULT ARRAY[]::TEXT[],
    ALTER COLUMN "source_set_key" SET NOT NULL,
    ALTER COLUMN "source_set_key" SET DEFAULT '';

-- An insert that names only the 1.0 columns (the sandbox seed, tools written for 1.0) gets
-- the rule columns from them: one source course, and the target as the one target.
CREATE FUNCTION "equivalency_rule_defaults"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(NEW.source_course_ids) = 0 THEN
        NEW.source_course_ids := ARRAY[NEW.source_course_id];
    END IF;
    IF NEW.source_set_key = '' THEN
        NEW.source_set_key := (SELECT string_agg(DISTINCT id, ' ' ORDER BY id) FROM unnest(NEW.source_course_ids) AS id);
    END IF;
    IF NEW.targets = '[]'::jsonb AND (NEW.target_course_id IS NOT NULL OR NEW.target_code IS NOT NULL) THEN
        NEW.targets := jsonb_build_array(jsonb_build_object('courseId', NEW.target_course_id, 'code', NEW.target_code, 'credits', NULL));
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER "equivalencies_rule_defaults" BEFORE INSERT ON "equivalencies"
    FOR EACH ROW EXECUTE FUNCTION "equivalency_rule_defaults"();

CREATE INDEX "equivalencies_environment_target_institution_id_source_set__idx"
    ON "equivalencies" ("environment", "target_institution_id", "source_set_key");
CREATE INDEX "equivalencies_source_course_ids_idx" ON "equivalencies" USING GIN ("source_course_ids");

-- GET /equivalencies/{id}: a sixth element, every source course with its institution, in order.
CREATE OR REPLACE FUNCTION "equivalency_expanded_json"(equivalency_id text, in_environment "Environment") RETURNS text
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
        (SELECT row_to_json(tc) FROM "courses" AS tc WHERE tc.id = e.target_course_id),
        (SELECT coalesce(json_agg(json_build_array(row_to_json(c), row_to_json(i)) ORDER BY s.position), '[]')
            FROM unnest(e.source_course_ids) WITH ORDINALITY AS s(course_id, position)
            JOIN "courses" AS c ON c.id = s.course_id
            JOIN "institutions" AS i ON i.environment = c.environment AND i.id = c.institution_id)
    )::text
    INTO expanded
    FROM "equivalencies" AS e
    WHERE e.id = equivalency_id AND e.environment = in_environment;
    RETURN expanded;
END;
$$;
