// The dashboard's sign-in routes owned here (outside openapi.yaml: pages and redirects, not API):
//   GET  /dashboard/auth/link?token=…   a one-time link → session cookie → 303 /dashboard/
//   GET  /dashboard/auth/session        the signed-in user, organization and CSRF token (401 without)
//   POST /dashboard/auth/token          X-CSRF-Token; {environment} → a short-lived API access token
//   POST /dashboard/auth/sign-out       X-CSRF-Token → 204, session deleted, cookie cleared
// Errors of the JSON routes are problem+json (the problem boundary); a failed link is an HTML page.
import type Koa from "koa";
import type { Context, Next } from "koa";
import type { AppContext } from "../../app/context.ts";
import { ProblemError, SignInRefusedError, ValidationError } from "../../kernel/errors.ts";
import { readJsonBody } from "../../pipeline/body.ts";
import { renderAuthError } from "./error-page.ts";
import {
  dashboardContext,
  endDashboardSession,
  installDashboardContext,
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

const ROUTES: Record<string, (ctx: Context) => Promise<void>> = {
  "GET /dashboard/auth/link": signInWithLink,
  "GET /dashboard/auth/session": describeSession,
  "POST /dashboard/auth/token": issueToken,
  "POST /dashboard/auth/sign-out": signOut,
};

const ALLOWED: Record<string, string> = {
  "/dashboard/auth/link": "GET",
  "/dashboard/auth/session": "GET",
  "/dashboard/auth/token": "POST",
  "/dashboard/auth/sign-out": "POST",
};

/** Installs the dashboard context (see sessions.ts) and serves the routes above; one line in app.ts. */
export function mountDashboardAuth(koa: Koa, app: AppContext): void {
  installDashboardContext(koa, app);
  koa.use(async (ctx: Context, next: Next) => {
    const route = ROUTES[`${ctx.method} ${ctx.path}`];
    if (route) return route(ctx);
    const allowed = ALLOWED[ctx.path];
    if (allowed) {
      throw new ProblemError("method-not-allowed", `${ctx.method} is not allowed on ${ctx.path}; use ${allowed}.`, {
        headers: { Allow: allowed },
        extensions: { allowed: [allowed] },
      });
    }
    return next();
  });
}
