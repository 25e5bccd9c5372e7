// The dashboard's sign-in routes owned here (outside openapi.yaml: pages and redirects, not API):
//   GET  /dashboard/auth/link?token=…   a one-time link → a confirmation page (the link is not used)
//   POST /dashboard/auth/link token=…   the page's button → the link used → session cookie → 303 /dashboard/
//   GET  /dashboard/auth/session        the signed-in user, organization and CSRF token (401 without)
//   POST /dashboard/auth/token          X-CSRF-Token; {environment} → a short-lived API access token
//   POST /dashboard/auth/sign-out       X-CSRF-Token → 204, session deleted, cookie cleared
// Errors of the JSON routes are problem+json (the problem boundary); a failed link is an HTML page.
import type { Context, Middleware } from "koa";
import type { Router } from "@koa/router";
import { SignInRefusedError, ValidationError } from "../../kernel/errors.ts";
import { readJsonBody } from "../../pipeline/body.ts";
import getRawBody from "raw-body";
import { renderAuthError, renderAuthPage, signInConfirmationHtml } from "./error-page.ts";
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

/** A sign-in link's token is far shorter than this; the form holds nothing else. */
const LINK_FORM_LIMIT = "4kb";

/** Runs a link step; a refused link becomes the HTML page saying why. */
async function refusingLink(ctx: Context, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof SignInRefusedError)) throw error;
    const page = LINK_REFUSALS[error.reason] ?? { title: "Sign-in failed", message: error.message };
    renderAuthError(ctx, { status: error.reason === "user-disabled" ? 403 : 400, reason: error.reason, ...page });
  }
}

/** GET: checks the link without using it and shows the button that signs in (mail scanners follow GETs). */
async function confirmLink(ctx: Context): Promise<void> {
  const token = typeof ctx.query.token === "string" ? ctx.query.token : undefined;
  await refusingLink(ctx, async () => {
    const user = await dashboardContext(ctx).app.services.users.checkSignInLink(token);
    ctx.status = 200;
    renderAuthPage(ctx, signInConfirmationHtml(token!, user.email));
  });
}

/**
 * POST from the confirmation page: uses the link and signs in. A browser's post from another site
 * (its Origin or Sec-Fetch-Site says so) is refused, so no page elsewhere can sign a visitor in
 * with a link of its own (login CSRF).
 */
async function signInWithLink(ctx: Context): Promise<void> {
  const { app } = dashboardContext(ctx);
  const origin = ctx.get("origin");
  const site = ctx.get("sec-fetch-site");
  // This server's own origin as the browser addressed it (Koa's ctx.origin is the request's Origin header).
  const own = `${ctx.protocol}://${ctx.host}`;
  const crossSite = site
    ? site !== "same-origin"
    : Boolean(origin) && origin !== own && origin !== app.config.publicOrigin;
  if (crossSite) {
    renderAuthError(ctx, {
      status: 403,
      reason: "cross-site",
      title: "Sign in from the link itself",
      message: "This sign-in was sent from another site. Open your sign-in link and press its Sign in button.",
    });
    return;
  }
  const form = ctx.is("application/x-www-form-urlencoded")
    ? new URLSearchParams(await getRawBody(ctx.req, { limit: LINK_FORM_LIMIT, encoding: "utf8" }))
    : new URLSearchParams();
  await refusingLink(ctx, async () => {
    const user = await app.services.users.consumeSignInLink(form.get("token") ?? undefined);
    await startDashboardSession(ctx, user);
  });
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

/**
 * Adds the routes to `router`; the dashboard context (sessions.ts) must be installed on the app.
 * `throttle` counts the link's routes (no credential needed) per client address.
 */
export function sessionRoutes(router: Router, throttle: Middleware): void {
  router.get("/dashboard/auth/link", throttle, confirmLink);
  router.post("/dashboard/auth/link", throttle, signInWithLink);
  router.get("/dashboard/auth/session", describeSession);
  router.post("/dashboard/auth/token", issueToken);
  router.post("/dashboard/auth/sign-out", signOut);
}
