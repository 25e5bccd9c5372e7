// The dashboard's sign-in routes owned here (outside openapi.yaml: pages and redirects, not API):
//   GET  /dashboard/auth/link?token=…   a one-time link → session cookie → 303 /dashboard/
//   GET  /dashboard/auth/session        the signed-in user, organization and CSRF token (401 without)
//   POST /dashboard/auth/token          X-CSRF-Token; {environment} → a short-lived API access token
//   POST /dashboard/auth/sign-out       X-CSRF-Token → 204, session deleted, cookie cleared
// Errors of the JSON routes are problem+json (the problem boundary); a failed link is an HTML page.
import type { Context } from "koa";
import type { Router } from "@koa/router";
import { SignInRefusedError, ValidationError } from "../../kernel/errors.ts";
import { readJsonBody } from "../../pipeline/body.ts";
import { renderAuthError } from "./error-page.ts";
import {
  dashboardContext,
  endDashboardSession,
  requireCsrfToken,
  requireSession,
  startDashboardSession,
} from "./sessions.ts";

const LINK_REFUSALS: Record<string, { title: string; message: string }> = {
  "link-invalid": {
    title: "This sign-in link is not valid",
    message: "The link is incomplete or was never issued. Ask an administrator of your organization for a new one.",
  },
  "link-used": {
    title: "This sign-in link has already been used",
    message: "Each sign-in link works once. Ask an administrator of your organization for a new one.",
  },
  "link-expired": {
    title: "This sign-in link has expired",
    message: "Sign-in links work for 15 minutes. Ask an administrator of your organization for a new one.",
  },
  "user-disabled": {
    title: "This account has been disabled",
    message: "An administrator of your organization has disabled this account. Ask them to enable it again.",
  },
};

async function signInWithLink(ctx: Context): Promise<void> {
  const token = typeof ctx.query.token === "string" ? ctx.query.token : undefined;
  let user: { id: string };
  try {
    user = await dashboardContext(ctx).app.services.users.consumeSignInLink(token);
  } catch (error) {
    if (!(error instanceof SignInRefusedError)) throw error;
    const page = LINK_REFUSALS[error.reason] ?? { title: "Sign-in failed", message: error.message };
    renderAuthError(ctx, { status: error.reason === "user-disabled" ? 403 : 400, reason: error.reason, ...page });
    return;
  }
  await startDashboardSession(ctx, user);
}

async function describeSession(ctx: Context): Promise<void> {
  const session = await requireSession(ctx);
  const { user } = session;
  ctx.set("Cache-Control", "no-store");
  ctx.body = {
    user: { id: user.id, email: user.email, name: user.name, role: user.role },
    organization: { id: user.organization.id, slug: user.organization.slug, name: user.organization.name },
    csrfToken: session.csrfToken,
  };
}

async function issueToken(ctx: Context): Promise<void> {
  const session = await requireSession(ctx);
  requireCsrfToken(ctx, session);
  const { app } = dashboardContext(ctx);
  const body = (await readJsonBody(ctx, app.config.bodyLimitBytes)) as { environment?: unknown } | undefined;
  const environment = body?.environment;
  if (environment !== "live" && environment !== "sandbox") {
    throw ValidationError.single("/environment", "must be live or sandbox");
  }
  ctx.set("Cache-Control", "no-store");
  ctx.body = await app.accessTokens.issueUserToken({
    userId: session.user.id,
    organizationId: session.user.organizationId,
    role: session.user.role,
    sessionId: session.id,
    environment,
  });
}

async function signOut(ctx: Context): Promise<void> {
  const session = await requireSession(ctx);
  requireCsrfToken(ctx, session);
  await endDashboardSession(ctx, session);
  ctx.status = 204;
}

/** Adds the routes to `router`; the dashboard context (sessions.ts) must be installed on the app. */
export function sessionRoutes(router: Router): void {
  router.get("/dashboard/auth/link", signInWithLink);
  router.get("/dashboard/auth/session", describeSession);
  router.post("/dashboard/auth/token", issueToken);
  router.post("/dashboard/auth/sign-out", signOut);
}
