-- Revocations reach every API process at once: when an API key or an OAuth client is revoked
-- (by the API, the CLI or by hand), the database sends NOTIFY "svc_credential_revoked" with
-- '<kind>:<record id>' when the transaction commits; every server process LISTENs and drops the
-- credential from its cache (src/auth/revocations.ts). The embedded database has one process and
-- no listener, where the notice costs nothing.
CREATE FUNCTION "svc_notify_credential_revoked"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_credential_revoked', TG_ARGV[0] || ':' || NEW."id");
  RETURN NEW;
END;
$$;

CREATE TRIGGER "api_keys_revoked_notify"
  AFTER UPDATE OF "revoked_at" ON "api_keys"
  FOR EACH ROW WHEN (NEW."revoked_at" IS NOT NULL AND OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at")
  EXECUTE FUNCTION "svc_notify_credential_revoked"('api_key');

CREATE TRIGGER "oauth_clients_revoked_notify"
  AFTER UPDATE OF "revoked_at" ON "oauth_clients"
  FOR EACH ROW WHEN (NEW."revoked_at" IS NOT NULL AND OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at")
  EXECUTE FUNCTION "svc_notify_credential_revoked"('oauth_client');
