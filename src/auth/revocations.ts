// Revocations reach every API process at once. The database announces each
// revoked API key and OAuth client (a trigger sends NOTIFY on the channel below
// when the revoking transaction commits: migration 20261127000000), and every
// server process LISTENs on a connection of its own and drops that credential
// from its authenticator's cache. When the listening connection was lost (a
// database restart), notices may have been missed, so the whole cache goes.
import type { Database } from "../db/database.ts";
import type { Logger } from "../kernel/logger.ts";

export const REVOCATION_CHANNEL = "svc_credential_revoked";

export interface Forgetting {
  forget(credentialId: string): void;
  forgetAll(): void;
}

/** Parses '<kind>:<record id>'; answers the id, or null for anything else. */
export function revokedCredentialId(payload: string): string | null {
  const match = /^(api_key|oauth_client):(\S+)$/.exec(payload);
  return match ? match[2] : null;
}

/** Starts listening; answers the function that stops. */
export function listenForRevocations(
  database: Pick<Database, "listen">,
  authenticator: Forgetting,
  log: Logger,
): () => Promise<void> {
  return database.listen(
    REVOCATION_CHANNEL,
    (payload) => {
      const id = revokedCredentialId(payload);
      if (id) authenticator.forget(id);
      else log.warn({ payload }, "ignored a malformed revocation notice");
    },
    () => {
      authenticator.forgetAll();
      log.info("revocation notices resumed after a lost connection; every cached credential was dropped");
    },
  );
}
