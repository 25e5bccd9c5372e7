-- Single sign-on: each organization's connections to its identity providers (OIDC or SAML 2.0), chosen
-- by the email domain of the person signing in; the sign-ins under way (state, PKCE verifier, nonce,
-- SAML request id); and the SAML assertion ids already accepted, kept until they expire (replay).
-- The OIDC client secret is stored sealed by the service (src/auth/secret-box.ts).

-- CreateEnum
CREATE TYPE "SsoProtocol" AS ENUM ('oidc', 'saml');

-- CreateTable
CREATE TABLE "sso_connections" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "protocol" "SsoProtocol" NOT NULL,
    "domain" TEXT NOT NULL,
    "oidc_issuer" TEXT,
    "oidc_client_id" TEXT,
    "oidc_client_secret" TEXT,
    "saml_entity_id" TEXT,
    "saml_sso_url" TEXT,
    "saml_certificates" TEXT[],
    "role_claim" TEXT,
    "role_map" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sso_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sso_sign_in_states" (
    "state" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "code_verifier" TEXT,
    "nonce" TEXT,
    "saml_request_id" TEXT,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sso_sign_in_states_pkey" PRIMARY KEY ("state")
);

-- CreateTable
CREATE TABLE "saml_assertions_seen" (
    "connection_id" TEXT NOT NULL,
    "assertion_id" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "saml_assertions_seen_pkey" PRIMARY KEY ("connection_id","assertion_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sso_connections_domain_key" ON "sso_connections"("domain");

-- CreateIndex
CREATE INDEX "sso_connections_organization_id_created_at_id_idx" ON "sso_connections"("organization_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "sso_sign_in_states_saml_request_id_key" ON "sso_sign_in_states"("saml_request_id");

-- CreateIndex
CREATE INDEX "sso_sign_in_states_expires_at_idx" ON "sso_sign_in_states"("expires_at");

-- CreateIndex
CREATE INDEX "saml_assertions_seen_expires_at_idx" ON "saml_assertions_seen"("expires_at");

-- AddForeignKey
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sso_sign_in_states" ADD CONSTRAINT "sso_sign_in_states_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "sso_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "saml_assertions_seen" ADD CONSTRAINT "saml_assertions_seen_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "sso_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;


