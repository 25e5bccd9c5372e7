-- Idempotency keys are scoped by organization, environment and credential: a user's token (and an
-- external issuer's subject) has the same credential id in live and sandbox, so a key used in the
-- sandbox must not answer the same key in live. Records written before this migration are given
-- their API key's or OAuth client's organization and environment; the others (user and external
-- tokens, whose environment was not recorded) keep an empty scope that no request matches, and are
-- swept with the rest after 25 hours.
ALTER TABLE "idempotency_records" ADD COLUMN "organization_id" TEXT NOT NULL DEFAULT '';
ALTER TABLE "idempotency_records" ADD COLUMN "environment" TEXT NOT NULL DEFAULT '';

UPDATE "idempotency_records" r
   SET "organization_id" = k."organization_id", "environment" = k."environment"::text
  FROM "api_keys" k
 WHERE k."id" = r."credential_id";

UPDATE "idempotency_records" r
   SET "organization_id" = c."organization_id", "environment" = c."environment"::text
  FROM "oauth_clients" c
 WHERE c."id" = r."credential_id";

ALTER TABLE "idempotency_records" ALTER COLUMN "organization_id" DROP DEFAULT;
ALTER TABLE "idempotency_records" ALTER COLUMN "environment" DROP DEFAULT;

ALTER TABLE "idempotency_records" DROP CONSTRAINT "idempotency_records_pkey";
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("organization_id", "environment", "credential_id", "key");
