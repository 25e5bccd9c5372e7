// Whether a credential that was accepted when a request began is still accepted: what an event
// stream asks again while it stays open (revocation notices end streams at once; this catches what
// no notice announces, such as a dashboard session that ended, and what a lost notice missed).
import type { Repositories } from "../repositories/index.ts";
import type { StreamCaller } from "./event-stream.ts";

type Sessions = { sessionForToken(sessionId: string): Promise<unknown | null> };

/** Answers why the credential is refused now, or null while it is accepted. */
export function credentialRefusal(credentials: Repositories["credentials"], sessions: Sessions) {
  return async (caller: StreamCaller): Promise<string | null> => {
    switch (caller.kind) {
      case "api_key": {
        const key = await credentials.findApiKeyById(caller.id);
        return !key || key.revokedAt ? "The API key has been revoked." : null;
      }
      case "oauth_client": {
        const client = await credentials.findOAuthClientById(caller.id);
        return !client || client.revokedAt ? "The OAuth client has been revoked." : null;
      }
      case "user": {
        const session = caller.user ? await sessions.sessionForToken(caller.user.sessionId) : null;
        return session ? null : "The dashboard session has ended, or the user was disabled.";
      }
      default:
        // An external issuer's token is held to its `exp` only: this service cannot revoke it.
        return null;
    }
  };
}
