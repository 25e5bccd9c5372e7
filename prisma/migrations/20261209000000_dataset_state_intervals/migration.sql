-- A publication is decided from versions: each state of an equivalency (with its source and target
-- courses) is stored once, with the range of its organization's publications that include it
-- (first_sequence inclusive, until_sequence exclusive; open while it is in the latest). A
-- publication stores a state only for an equivalency whose version, or whose courses' versions,
-- differ from its open state's, and closes the states of the changed and the removed ones: an
-- unchanged equivalency costs no row. A version's records are the states whose range holds its
-- sequence, numbered in (created_at, equivalency_id) order. The issue facts that do not depend on
-- the publication's clock are kept beside each state, so a publication finds its issues in SQL.
CREATE TABLE "dataset_states" (
    "id" BIGSERIAL NOT NULL,
    "organization_id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "equivalency_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "equivalency_version" INTEGER NOT NULL,
    "source_course_id" TEXT NOT NULL,
    "source_course_version" INTEGER NOT NULL,
    "target_course_id" TEXT,
    "target_course_version" INTEGER,
    "first_sequence" INTEGER NOT NULL,
    "until_sequence" INTEGER,
    "content" JSONB NOT NULL,
    "missing_target" BOOLEAN NOT NULL,
    "source_code_without_cip" TEXT,
    "pending" BOOLEAN NOT NULL,

    CONSTRAINT "dataset_states_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "dataset_states_range" CHECK ("until_sequence" IS NULL OR "until_sequence" > "first_sequence")
);

-- The content (about a kilobyte) is kept out of line, so the scans that decide a publication and
-- number its rows read narrow rows.
ALTER TABLE "dataset_states" SET (toast_tuple_target = 128);
ALTER TABLE "dataset_states" ALTER COLUMN "content" SET STORAGE EXTERNAL;

CREATE INDEX "dataset_states_organization_id_environment_created_at_equivalency_id_idx"
    ON "dataset_states"("organization_id", "environment", "created_at", "equivalency_id");
-- At most one open state per equivalency and owner.
CREATE UNIQUE INDEX "dataset_states_open_key"
    ON "dataset_states"("organization_id", "environment", "equivalency_id") WHERE "until_sequence" IS NULL;

-- The published states of every earlier version, one row per run of versions holding the same state.
INSERT INTO "dataset_states" ("organization_id", "environment", "equivalency_id", "created_at",
    "equivalency_version", "source_course_id", "source_course_version", "target_course_id",
    "target_course_version", "first_sequence", "until_sequence", "content", "missing_target",
    "source_code_without_cip", "pending")
SELECT runs.organization_id, runs.environment, runs.equivalency_id,
    (c.content ->> 'createdAt')::timestamptz AT TIME ZONE 'UTC',
    (c.content ->> 'version')::int,
    c.content -> 'sourceCourse' ->> 'id', (c.content -> 'sourceCourse' ->> 'version')::int,
    c.content -> 'targetCourse' ->> 'id', (c.content -> 'targetCourse' ->> 'version')::int,
    runs.first_sequence,
    CASE WHEN runs.last_sequence < runs.latest THEN runs.last_sequence + 1 END,
    c.content,
    c.content ->> 'targetCourseId' IS NULL AND c.content ->> 'targetCode' IS NULL,
    CASE WHEN coalesce(c.content -> 'sourceCourse' ->> 'cipCode', '') = '' THEN c.content -> 'sourceCourse' ->> 'code' END,
    c.content ->> 'status' = 'pending'
FROM (
    SELECT organization_id, environment, equivalency_id, holder, latest,
        min(sequence) AS first_sequence, max(sequence) AS last_sequence
    FROM (
        SELECT v.organization_id, v.environment, v.sequence, r.equivalency_id,
            coalesce(r.state_dataset_version_id, r.dataset_version_id) AS holder,
            max(v.sequence) OVER (PARTITION BY v.organization_id, v.environment) AS latest,
            v.sequence - row_number() OVER (
                PARTITION BY v.organization_id, v.environment, r.equivalency_id,
                    coalesce(r.state_dataset_version_id, r.dataset_version_id)
                ORDER BY v.sequence) AS run
        FROM "dataset_records" AS r
        JOIN "dataset_versions" AS v ON v.id = r.dataset_version_id
    ) AS held
    GROUP BY organization_id, environment, equivalency_id, holder, latest, run
) AS runs
CROSS JOIN LATERAL (
    SELECT h.state - 'datasetVersionId' AS content FROM "dataset_records" AS h
    WHERE h.dataset_version_id = runs.holder AND h.equivalency_id = runs.equivalency_id
) AS c;

DROP TABLE "dataset_records";

-- A state never changes, but for its range being closed once, by the publication that no longer
-- includes it; nothing is deleted.
CREATE FUNCTION "dataset_states_close_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.until_sequence IS NULL AND NEW.until_sequence IS NOT NULL
        AND (to_jsonb(NEW) - 'until_sequence') = (to_jsonb(OLD) - 'until_sequence') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING HINT = 'Publish a new dataset version instead.';
END;
$$;

CREATE TRIGGER "dataset_states_immutable"
    BEFORE UPDATE OR DELETE ON "dataset_states"
    FOR EACH ROW EXECUTE FUNCTION "dataset_states_close_only"();

-- A publication sets datasetVersionId on every equivalency it includes, in one UPDATE. With full
-- pages each new row version went to another page and into all nine indexes of equivalencies (two
-- of them GIN): 210 µs a row, most of a republication. Half-full pages keep every new version on
-- its page (a heap-only update, no index touched; the old versions are pruned when the page is
-- next read): 35 µs a row. An organization that publishes leaves the table this size anyway, its
-- old versions' space free after a publication.
ALTER TABLE "equivalencies" SET (fillfactor = 50);
