// The dashboard's single sign-on routes (pages and redirects, outside openapi.yaml):
//   POST /dashboard/auth/start {email}     200 {redirectUrl} to the identity provider of the email's domain
//                                          (404 problem no-sign-in-connection when there is none)
//   GET  /dashboard/auth/oidc/callback     OIDC code flow end → JIT user → session → 303 /dashboard/
//   GET  /dashboard/auth/saml/metadata     the service provider's SAML metadata
//   POST /dashboard/auth/saml/acs          SAML response (HTTP-POST) → JIT user → session → 303 /dashboard/
// A sign-in that fails renders the refusal page (400/401) and provisions nobody: the user is created
// or updated only after every check of the protocol has passed.
import crypto from "node:crypto";
import type { Context, Middleware } from "koa";
import type { Router } from "@koa/router";
import getRawBody from "raw-body";
import { stringifySetCookie, parseCookie } from "cookie";
import { ProblemError, SignInRefusedError, ValidationError } from "../../../kernel/errors.ts";
import { readJsonBody } from "../../../pipeline/body.ts";
import { emailInDomain, roleFromValues, type SsoConnection } from "../../../services/sso.ts";
import { renderAuthError } from "../error-page.ts";
import { type DashboardDependencies, startDashboardSession } from "../sessions.ts";
import { type FederatedIdentity, SignInFailure } from "./identity.ts";
import { createOidcSignIn } from "./oidc.ts";
import { createSamlSignIn, serviceProviderMetadata } from "./saml.ts";
import { SSO_PATHS, serviceProviderUrls } from "./urls.ts";
import { requestLog } from "../../../pipeline/request-log.ts";

/** The largest SAML response accepted (base64, form-encoded). */
const ACS_BODY_LIMIT = "512kb";
const STATE_COOKIE_MAX_AGE_S = 600;

/** Adds the routes to `router`; `throttle` counts each sign-in step (no credential needed) per client address. */
export function ssoRoutes(router: Router, app: DashboardDependencies, throttle: Middleware): void {
  const urls = serviceProviderUrls(app.config.publicOrigin);
  const secureCookie = new URL(app.config.publicOrigin).protocol === "https:";
  // Scoped to the callback path, so no other page of the origin sees it; __Host- needs Path=/.
  const stateCookie = secureCookie ? "__Secure-svc_sso_state" : "svc_sso_state";
  // The SAML RelayState's twin, scoped to the ACS. The IdP's form posts cross-site, which a
  // SameSite=Lax cookie would not follow: SameSite=None (with Secure) on https; on a plain-http
  // origin (local development) no SameSite attribute, whose browser default lets a top-level POST
  // carry it (SameSite=None without Secure would be dropped).
  const samlStateCookie = secureCookie ? "__Secure-svc_saml_state" : "svc_saml_state";
  const oidc = createOidcSignIn(app.services.sso, urls.oidcRedirectUri);
  const saml = createSamlSignIn(app.services.sso, urls);

  function setStateCookie(ctx: Context, value: string, maxAge: number) {
    ctx.append(
      "Set-Cookie",
      stringifySetCookie(stateCookie, value, {
        httpOnly: true,
        sameSite: "lax",
        path: SSO_PATHS.oidcCallback,
        secure: secureCookie,
        maxAge,
      }),
    );
  }

  function setSamlStateCookie(ctx: Context, value: string, maxAge: number) {
    ctx.append(
      "Set-Cookie",
      stringifySetCookie(samlStateCookie, value, {
        httpOnly: true,
        sameSite: secureCookie ? "none" : undefined,
        path: SSO_PATHS.samlAcs,
        secure: secureCookie,
        maxAge,
      }),
    );
  }

  async function start(ctx: Context) {
    const body = (await readJsonBody(ctx, app.config.bodyLimitBytes)) as { email?: unknown } | undefined;
    const email = typeof body?.email === "string" ? body.email.trim() : "";
    if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email)) throw ValidationError.single("/email", "must be an email address");
    const connection = await app.services.sso.connectionForEmail(email);
    let redirectUrl: string;
    if (connection.protocol === "oidc") {
      try {
        const started = await oidc.start(connection);
        setStateCookie(ctx, started.state, STATE_COOKIE_MAX_AGE_S);
        redirectUrl = started.redirectUrl;
      } catch (error) {
        if (error instanceof SignInFailure) throw new ProblemError("identity-provider-unavailable", error.message);
        throw error;
      }
    } else {
      const state = crypto.randomBytes(24).toString("base64url");
      redirectUrl = await saml.start(connection, state);
      setSamlStateCookie(ctx, state, STATE_COOKIE_MAX_AGE_S);
    }
    ctx.set("Cache-Control", "no-store");
    ctx.body = { redirectUrl };
  }

  /** Provisions (or updates) the person and signs them in; only called once the protocol's checks passed. */
  async function signIn(ctx: Context, identity: FederatedIdentity & { connection: SsoConnection }) {
    const { connection } = identity;
    if (!identity.email) {
      throw new SignInFailure(
        "email-missing",
        "The identity provider sent no email address",
        "Your identity provider did not release your email address to this service. Ask its administrator to release the email claim or attribute.",
      );
    }
    if (!emailInDomain(identity.email, connection.domain)) {
      throw new SignInFailure(
        "email-outside-domain",
        "This account belongs to another domain",
        `The identity provider signed you in as ${identity.email}, which is not an address of ${connection.domain}.`,
        undefined,
        401,
      );
    }
    const role = roleFromValues(connection.roleMap as Record<string, string>, identity.roleValues);
    const user = await app.services.users.provisionFederatedUser({
      organizationId: connection.organizationId,
      email: identity.email,
      name: identity.name,
      role,
      requestId: typeof ctx.state.requestId === "string" ? ctx.state.requestId : null,
    });
    if (role !== null && user.role !== role)
      requestLog(ctx).warn(
        { userId: user.id, asserted: role },
        "single sign-on kept the admin role of the organization's last admin",
      );
    await startDashboardSession(ctx, user);
  }

  /** Runs a sign-in's last step; a refusal becomes the HTML page, logged with the library's reason. */
  async function refusing(ctx: Context, work: () => Promise<void>) {
    try {
      await work();
    } catch (error) {
      if (error instanceof SignInFailure) {
        requestLog(ctx).warn({ reason: error.reason, detail: error.detail }, "single sign-on refused");
        renderAuthError(ctx, {
          status: error.status,
          title: error.title,
          message: error.message,
          reason: error.reason,
        });
        return;
      }
      if (error instanceof SignInRefusedError) {
        renderAuthError(ctx, {
          status: 403,
          reason: error.reason,
          title: "This account has been disabled",
          message: "An administrator of your organization has disabled this account. Ask them to enable it again.",
        });
        return;
      }
      throw error;
    }
  }

  async function oidcCallback(ctx: Context) {
    await refusing(ctx, async () => {
      const cookieState = parseCookie(ctx.get("cookie") || "")[stateCookie];
      setStateCookie(ctx, "", 0);
      const identity = await oidc.finish(new URL(ctx.originalUrl, urls.oidcRedirectUri), cookieState);
      await signIn(ctx, identity);
    });
  }

  async function samlAcs(ctx: Context) {
    await refusing(ctx, async () => {
      if (!ctx.is("application/x-www-form-urlencoded")) {
        throw new SignInFailure(
          "assertion-invalid",
          "No SAML response",
          "The assertion consumer service expects a form post (HTTP-POST binding).",
        );
      }
      const cookieState = parseCookie(ctx.get("cookie") || "")[samlStateCookie];
      setSamlStateCookie(ctx, "", 0);
      const text = await getRawBody(ctx.req, { limit: ACS_BODY_LIMIT, encoding: "utf8" });
      const form = new URLSearchParams(text);
      const identity = await saml.finish(
        { SAMLResponse: form.get("SAMLResponse") ?? undefined, RelayState: form.get("RelayState") ?? undefined },
        cookieState,
      );
      await signIn(ctx, identity);
    });
  }

  async function samlMetadata(ctx: Context) {
    ctx.type = "application/samlmetadata+xml";
    ctx.body = await serviceProviderMetadata(urls);
  }

  router.post(SSO_PATHS.start, throttle, start);
  router.get(SSO_PATHS.oidcCallback, throttle, oidcCallback);
  router.get(SSO_PATHS.samlMetadata, samlMetadata);
  router.post(SSO_PATHS.samlAcs, throttle, samlAcs);
}
