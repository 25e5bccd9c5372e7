-- Demand for missing rules (POST /transfer-evaluations, GET /equivalency-requests): how many
-- evaluations asked about a source course that no accepted rule of the target institution
-- covers, and when the last one did. Nothing about the person: no grades, no dates, no caller.
CREATE TABLE "equivalency_requests" (
    "environment" "Environment" NOT NULL,
    "target_institution_id" TEXT NOT NULL,
    "source_course_id" TEXT NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "last_requested_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "equivalency_requests_pkey" PRIMARY KEY ("environment", "target_institution_id", "source_course_id")
);

-- The list: one target institution's requests by demand, then by source course id.
CREATE INDEX "equivalency_requests_environment_target_institution_id_requ_idx"
    ON "equivalency_requests" ("environment", "target_institution_id", "requests" DESC, "source_course_id");

-- Evaluations already counted today: an HMAC of (credential, UTC day, the canonical input), so a
-- repeated identical evaluation from one credential within a day counts once. The hash cannot
-- be reversed into the input; rows of earlier days are deleted as new ones arrive.
CREATE TABLE "evaluation_fingerprints" (
    "fingerprint" TEXT NOT NULL,
    "day" DATE NOT NULL,

    CONSTRAINT "evaluation_fingerprints_pkey" PRIMARY KEY ("fingerprint")
);

CREATE INDEX "evaluation_fingerprints_day_idx" ON "evaluation_fingerprints" ("day");
