-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Environment" AS ENUM ('live', 'sandbox');

-- CreateEnum
CREATE TYPE "Channel" AS ENUM ('channel_a', 'channel_b', 'direct');

-- CreateEnum
CREATE TYPE "InstitutionType" AS ENUM ('community_college', 'four_year_public', 'four_year_private');

-- CreateEnum
CREATE TYPE "CourseLevel" AS ENUM ('lower', 'upper');

-- CreateEnum
CREATE TYPE "EquivalencyStatus" AS ENUM ('accepted', 'pending', 'conflict');

-- CreateEnum
CREATE TYPE "CredentialKind" AS ENUM ('api_key', 'oauth_client');

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "source" "Channel" NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "name" TEXT,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_clients" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "name" TEXT,
    "client_id" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "private_jwk" JSONB NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "cip_codes" (
    "code" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "digits" INTEGER NOT NULL,

    CONSTRAINT "cip_codes_pkey" PRIMARY KEY ("code")
);

-- CreateTable
CREATE TABLE "institutions" (
    "environment" "Environment" NOT NULL,
    "id" TEXT NOT NULL,
    "ipeds_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "city" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "type" "InstitutionType" NOT NULL,
    "system" TEXT,
    "source" "Channel" NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "institutions_pkey" PRIMARY KEY ("environment","id")
);

-- CreateTable
CREATE TABLE "courses" (
    "id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "institution_id" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "code_key" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "credits" DOUBLE PRECISION NOT NULL,
    "level" "CourseLevel" NOT NULL,
    "description" TEXT,
    "cip_code" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "courses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "equivalencies" (
    "id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "source_course_id" TEXT NOT NULL,
    "target_institution_id" TEXT NOT NULL,
    "target_course_id" TEXT,
    "target_code" TEXT,
    "target_key" TEXT NOT NULL,
    "status" "EquivalencyStatus" NOT NULL,
    "decided_by" TEXT,
    "decided_at" TIMESTAMP(3),
    "policy_basis" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "provenance" "Channel",
    "dataset_version_id" TEXT,
    "organization_id" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "equivalencies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "equivalency_versions" (
    "id" TEXT NOT NULL,
    "equivalency_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "state" JSONB NOT NULL,
    "change_note" TEXT,
    "changed_fields" TEXT[],
    "actor_credential_id" TEXT,
    "actor_organization_id" TEXT,
    "actor_kind" "CredentialKind",
    "recorded_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "equivalency_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "sequence" BIGSERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "environment" "Environment" NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMP(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("sequence")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "credential_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "operation_id" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response_status" INTEGER NOT NULL,
    "response_body" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("credential_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_organization_id_environment_idx" ON "api_keys"("organization_id", "environment");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_clients_client_id_key" ON "oauth_clients"("client_id");

-- CreateIndex
CREATE INDEX "institutions_environment_state_idx" ON "institutions"("environment", "state");

-- CreateIndex
CREATE INDEX "institutions_environment_name_idx" ON "institutions"("environment", "name");

-- CreateIndex
CREATE INDEX "courses_environment_cip_code_idx" ON "courses"("environment", "cip_code");

-- CreateIndex
CREATE UNIQUE INDEX "courses_environment_institution_id_code_key_key" ON "courses"("environment", "institution_id", "code_key");

-- CreateIndex
CREATE INDEX "equivalencies_environment_created_at_id_idx" ON "equivalencies"("environment", "created_at", "id");

-- CreateIndex
CREATE INDEX "equivalencies_environment_status_created_at_id_idx" ON "equivalencies"("environment", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "equivalencies_environment_target_institution_id_idx" ON "equivalencies"("environment", "target_institution_id");

-- CreateIndex
CREATE INDEX "equivalencies_organization_id_idx" ON "equivalencies"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "equivalencies_environment_source_course_id_target_instituti_key" ON "equivalencies"("environment", "source_course_id", "target_institution_id", "target_key");

-- CreateIndex
CREATE UNIQUE INDEX "equivalency_versions_equivalency_id_version_key" ON "equivalency_versions"("equivalency_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_id_key" ON "outbox_events"("id");

-- CreateIndex
CREATE INDEX "outbox_events_dispatched_at_sequence_idx" ON "outbox_events"("dispatched_at", "sequence");

-- CreateIndex
CREATE INDEX "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "courses" ADD CONSTRAINT "courses_environment_institution_id_fkey" FOREIGN KEY ("environment", "institution_id") REFERENCES "institutions"("environment", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "equivalencies" ADD CONSTRAINT "equivalencies_source_course_id_fkey" FOREIGN KEY ("source_course_id") REFERENCES "courses"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "equivalencies" ADD CONSTRAINT "equivalencies_environment_target_institution_id_fkey" FOREIGN KEY ("environment", "target_institution_id") REFERENCES "institutions"("environment", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "equivalencies" ADD CONSTRAINT "equivalencies_target_course_id_fkey" FOREIGN KEY ("target_course_id") REFERENCES "courses"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "equivalency_versions" ADD CONSTRAINT "equivalency_versions_equivalency_id_fkey" FOREIGN KEY ("equivalency_id") REFERENCES "equivalencies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;



-- Immutable history (written by hand, not generated by Prisma): a row of
-- equivalency_versions is a snapshot of one version of an equivalency, so the
-- database itself refuses to change or remove it, whatever client connects.
-- Works on PostgreSQL 15 and PGlite (PostgreSQL 17).
CREATE FUNCTION "equivalency_versions_reject_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'equivalency_versions is append-only: % is not allowed', TG_OP
        USING HINT = 'Record a new version instead of changing or deleting an old one.';
END;
$$;

CREATE TRIGGER "equivalency_versions_immutable"
    BEFORE UPDATE OR DELETE ON "equivalency_versions"
    FOR EACH ROW EXECUTE FUNCTION "equivalency_versions_reject_change"();
