// The dashboard's session cookie and the helpers every dashboard route (sign-in by link, OIDC,
// SAML; session, token, sign-out) shares. The cookie carries a random value whose SHA-256 finds
// the server-side session; it is HttpOnly, SameSite=Lax and Path=/, and behind https also Secure
// with the __Host- prefix (so no subdomain or plain-http page can set or read it).
import type Koa from "koa";
import type { Context } from "koa";
import { parseCookie, stringifySetCookie } from "cookie";
import type { AccessTokens } from "../../auth/oauth.ts";
import type { Config } from "../../kernel/config.ts";
import type { Services } from "../../services/index.ts";
import { ForbiddenError, ProblemError } from "../../kernel/errors.ts";
import { csrfTokenMatches, type LiveSession } from "../../services/dashboard-sessions.ts";

/** Where a browser lands after signing in. */
export const DASHBOARD_HOME = "/dashboard/";
export const CSRF_HEADER = "X-CSRF-Token";

/** What the dashboard's server side uses of the application (the app's context has all of it). */
export interface DashboardDependencies {
  config: Pick<Config, "publicOrigin" | "bodyLimitBytes">;
  services: Services;
  accessTokens: AccessTokens;
}

/** What the dashboard's routes need from the application, reachable from any Koa context. */
export interface DashboardContext {
  app: DashboardDependencies;
  /** The cookie's name: `__Host-svc_session` behind https, `svc_session` otherwise. */
  cookieName: string;
  secureCookie: boolean;
}

declare module "koa" {
  interface DefaultContext {
    dashboard?: DashboardContext;
  }
}

/** Makes the application context reachable from every request's ctx (call once, when building the app). */
export function installDashboardContext(koa: Koa, app: DashboardDependencies): void {
  const secureCookie = new URL(app.config.publicOrigin).protocol === "https:";
  koa.context.dashboard = { app, cookieName: secureCookie ? "__Host-svc_session" : "svc_session", secureCookie };
}

export function dashboardContext(ctx: Context): DashboardContext {
  if (!ctx.dashboard) throw new Error("installDashboardContext was not called for this app");
  return ctx.dashboard;
}

function setSessionCookie(ctx: Context, value: string, maxAgeSeconds: number): void {
  const { cookieName, secureCookie } = dashboardContext(ctx);
  ctx.append(
    "Set-Cookie",
    stringifySetCookie(cookieName, value, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: secureCookie,
      maxAge: maxAgeSeconds,
    }),
  );
}

function clearSessionCookie(ctx: Context): void {
  setSessionCookie(ctx, "", 0);
}

/**
 * Signs `user` in: creates the server-side session, sets the cookie and redirects (303) to the
 * dashboard. Call it only once the identity has been fully verified.
 */
export async function startDashboardSession(ctx: Context, user: { id: string }): Promise<void> {
  const { app } = dashboardContext(ctx);
  const session = await app.services.dashboardSessions.startSession(user.id);
  const maxAge = Math.max(1, Math.floor((session.absoluteExpiresAt.getTime() - Date.now()) / 1000));
  setSessionCookie(ctx, session.token, maxAge);
  ctx.set("Cache-Control", "no-store");
  ctx.status = 303;
  ctx.redirect(DASHBOARD_HOME);
}

/** The request's live session, or null (an ended or expired one also clears the cookie). */
export async function currentSession(ctx: Context): Promise<LiveSession | null> {
  const { app, cookieName } = dashboardContext(ctx);
  const header = ctx.get("cookie");
  const token = header ? parseCookie(header)[cookieName] : undefined;
  if (!token) return null;
  const session = await app.services.dashboardSessions.resumeSession(token);
  if (!session) clearSessionCookie(ctx);
  return session;
}

/** The live session, or a 401 problem. */
export async function requireSession(ctx: Context): Promise<LiveSession> {
  const session = await currentSession(ctx);
  if (!session) {
    throw new ProblemError("unauthenticated", "Not signed in to the dashboard, or the session has ended.");
  }
  return session;
}

/** Every state-changing dashboard request carries the session's CSRF token in X-CSRF-Token. */
export function requireCsrfToken(ctx: Context, session: LiveSession): void {
  if (!csrfTokenMatches(session.csrfToken, ctx.get(CSRF_HEADER) || undefined)) {
    throw new ForbiddenError(
      `This request needs the session's CSRF token in the ${CSRF_HEADER} header (from GET /dashboard/auth/session).`,
    );
  }
}

/** Ends the session and clears the cookie. */
export async function endDashboardSession(ctx: Context, session: LiveSession): Promise<void> {
  await dashboardContext(ctx).app.services.dashboardSessions.endSession(session.id);
  clearSessionCookie(ctx);
}
