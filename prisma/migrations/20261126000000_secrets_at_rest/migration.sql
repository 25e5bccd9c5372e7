-- Secrets at rest: webhook secrets and the token-signing private key are stored sealed
-- (AES-256-GCM, "v1:<key id>:<iv>:<tag>:<ciphertext>"). SQL has no key, so this migration only
-- makes room: the service seals every value still in the clear when it starts
-- (src/services/stored-secrets.ts), which is idempotent.

-- What listings show of a webhook secret, kept beside it so a listing needs no decryption.
ALTER TABLE "webhook_endpoints" ADD COLUMN "secret_prefix" TEXT;
UPDATE "webhook_endpoints" SET "secret_prefix" = left("secret", 10);
ALTER TABLE "webhook_endpoints" ALTER COLUMN "secret_prefix" SET NOT NULL;

-- A sealed value is text; the JWKs stored until now become their JSON text and are sealed at start.
ALTER TABLE "signing_keys" ALTER COLUMN "private_jwk" TYPE TEXT USING "private_jwk"::text;

-- Access tokens of a configured external issuer are a credential kind of their own.
ALTER TYPE "CredentialKind" ADD VALUE IF NOT EXISTS 'external_token';
