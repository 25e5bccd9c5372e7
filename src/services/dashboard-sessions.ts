// Dashboard sessions: server-side records found by the SHA-256 of the cookie's random value,
// each with a CSRF token, ending after an idle time or an absolute time (src/config.ts), on
// sign-out, or when the user is disabled.
import crypto from "node:crypto";
import type { Repositories } from "../repositories/index.ts";
import type { SessionWithUser } from "../repositories/sessions.ts";
import { hashApiKey } from "../auth/api-keys.ts";
import { newId } from "../kernel/ids.ts";

export interface SessionSettings {
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
}

/** A live session, its user and their organization. */
export type LiveSession = SessionWithUser;

export function createDashboardSessionsService({
  sessions,
  users,
  settings,
  now = () => new Date(),
}: Pick<Repositories, "sessions" | "users"> & { settings: SessionSettings; now?: () => Date }) {
  function isLive(session: SessionWithUser, at: Date): boolean {
    return (
      session.absoluteExpiresAt > at &&
      at.getTime() - session.lastSeenAt.getTime() < settings.sessionIdleMs &&
      session.user.disabledAt === null
    );
  }

  return {
    settings,

    /** Creates a session for a user; the returned token goes into the cookie and is never stored. */
    async startSession(userId: string): Promise<{ token: string; sessionId: string; absoluteExpiresAt: Date }> {
      const at = now();
      const token = crypto.randomBytes(32).toString("base64url");
      const session = await sessions.create({
        id: newId("ses"),
        tokenHash: hashApiKey(token),
        userId,
        csrfToken: crypto.randomBytes(32).toString("base64url"),
        createdAt: at,
        lastSeenAt: at,
        absoluteExpiresAt: new Date(at.getTime() + settings.sessionAbsoluteMs),
      });
      await users.markSignedIn(userId, at);
      return { token, sessionId: session.id, absoluteExpiresAt: session.absoluteExpiresAt };
    },

    /** The live session of a cookie value, its idle clock restarted; null (and the record removed) otherwise. */
    async resumeSession(token: string | undefined): Promise<LiveSession | null> {
      if (!token || token.length > 200) return null;
      const session = await sessions.findByTokenHash(hashApiKey(token));
      if (!session) return null;
      const at = now();
      if (!isLive(session, at)) {
        await sessions.delete(session.id);
        return null;
      }
      await sessions.touch(session.id, at);
      return { ...session, lastSeenAt: at };
    },

    /**
     * The session an access token names, for the token's verification: it must still exist, be
     * within its absolute time and belong to an enabled user. Its idle clock is not restarted.
     */
    async sessionForToken(sessionId: string): Promise<LiveSession | null> {
      const session = await sessions.findById(sessionId);
      if (!session || session.absoluteExpiresAt <= now() || session.user.disabledAt) return null;
      return session;
    },

    async endSession(sessionId: string): Promise<void> {
      await sessions.delete(sessionId);
    },
  };
}

/** Constant-time comparison of the CSRF token a request sent with the session's. */
export function csrfTokenMatches(expected: string, sent: string | undefined): boolean {
  if (!sent) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(sent);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export type DashboardSessionsService = ReturnType<typeof createDashboardSessionsService>;
