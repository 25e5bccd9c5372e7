-- Stewardship: an organization may write an institution's records (its courses, and the
-- equivalencies it is the target of) only when it stewards that institution in that environment.

-- CreateTable
CREATE TABLE "stewardships" (
    "organization_id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "institution_id" TEXT NOT NULL,
    "granted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stewardships_pkey" PRIMARY KEY ("organization_id","environment","institution_id")
);

-- CreateTable
CREATE TABLE "stewardships_all" (
    "organization_id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "granted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stewardships_all_pkey" PRIMARY KEY ("organization_id","environment")
);

-- CreateIndex
CREATE INDEX "stewardships_environment_institution_id_idx" ON "stewardships"("environment", "institution_id");

-- AddForeignKey
ALTER TABLE "stewardships" ADD CONSTRAINT "stewardships_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stewardships" ADD CONSTRAINT "stewardships_environment_institution_id_fkey" FOREIGN KEY ("environment", "institution_id") REFERENCES "institutions"("environment", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stewardships_all" ADD CONSTRAINT "stewardships_all_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Upgrade: no contributor loses access. Every organization is granted the institutions it has
-- demonstrably written to before stewardship existed:
--   * the target institution of every equivalency it created (equivalencies.organization_id);
--   * the target institution of every equivalency a credential of it changed
--     (equivalency_versions.actor_organization_id);
--   * the institution of every course in a course upsert it made with an Idempotency-Key that is
--     still remembered (idempotency_records, kept 24 hours). Courses recorded no writer before
--     this migration, so course writes without such a record leave no evidence: an
--     administrator grants those with `orgs grant`.
INSERT INTO "stewardships" ("organization_id", "environment", "institution_id")
SELECT DISTINCT evidence.organization_id, evidence.environment, evidence.institution_id
FROM (
    SELECT e."organization_id", e."environment", e."target_institution_id" AS institution_id
    FROM "equivalencies" e
    WHERE e."organization_id" IS NOT NULL
  UNION
    SELECT v."actor_organization_id", e."environment", e."target_institution_id"
    FROM "equivalency_versions" v
    JOIN "equivalencies" e ON e."id" = v."equivalency_id"
    WHERE v."actor_organization_id" IS NOT NULL
  UNION
    SELECT coalesce(k."organization_id", c."organization_id"), coalesce(k."environment", c."environment"), item ->> 'institutionId'
    FROM "idempotency_records" r
    LEFT JOIN "api_keys" k ON k."id" = r."credential_id"
    LEFT JOIN "oauth_clients" c ON c."id" = r."credential_id"
    CROSS JOIN LATERAL jsonb_array_elements(
      CASE WHEN jsonb_typeof(r."response_body" -> 'data') = 'array' THEN r."response_body" -> 'data' ELSE '[]'::jsonb END
    ) AS item
    WHERE r."operation_id" = 'upsertCourses' AND r."response_status" = 201
) AS evidence
JOIN "organizations" o ON o."id" = evidence.organization_id
JOIN "institutions" i ON i."environment" = evidence.environment AND i."id" = evidence.institution_id
ON CONFLICT DO NOTHING;
