// Every route outside the contract, on one @koa/router: the service's own (operational.ts), the
// OAuth issuer (src/auth/oauth-routes.ts), the dashboard's pages, sign-in and single sign-on, and
// the public transfer explorer's page (src/dashboard/server/). A known path asked with another method is a 405 problem whose Allow
// header is the router's; a path none of them knows goes on to the API and then to the 404.
import type { Context, Middleware, Next } from "koa";
import { Router } from "@koa/router";
import type { AccessTokens } from "../auth/oauth.ts";
import { oauthRoutes } from "../auth/oauth-routes.ts";
import type { SharedStore } from "../auth/rate-limiter.ts";
import { sessionRoutes } from "../dashboard/server/session-routes.ts";
import type { DashboardDependencies } from "../dashboard/server/sessions.ts";
import { ssoRoutes } from "../dashboard/server/sso/routes.ts";
import type { Database } from "../db/database.ts";
import { dashboardPages } from "../dashboard/server/static.ts";
import { explorerPages } from "../dashboard/server/explorer-pages.ts";
import { API_ROOT } from "../kernel/document.ts";
import { ProblemError } from "../kernel/errors.ts";
import { operationalRoutes } from "./operational.ts";

export interface OutsideRoutesDependencies {
  /** The app's context has all of these. */
  app: DashboardDependencies & { database: Database; accessTokens: AccessTokens };
  /** Counts a token request against its client address (the pipeline's admission). */
  throttleTokenRequest(ctx: Context): Promise<void>;
  /** Counts a request to a dashboard sign-in route against its client address (the pipeline's admission). */
  throttleSignIn(ctx: Context): Promise<void>;
  /** The shared rate-limit store (Redis) when configured, reported by /readyz. */
  redis?: SharedStore | null;
}

/** OPTIONS is not served: like the API's paths, these answer it 405. */
const SERVED_METHODS = ["HEAD", "GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * One middleware: the routes, and the 405 a known path answers for another method. A request for
 * the API (under /api/v1, but for the documents served there) passes straight on to the pipeline.
 */
export function routesOutsideContract(deps: OutsideRoutesDependencies): Middleware {
  const router = new Router({ methods: SERVED_METHODS });
  const { app } = deps;
  operationalRoutes(router, { database: app.database, redis: deps.redis });
  oauthRoutes(router, { accessTokens: app.accessTokens, throttleTokenRequest: deps.throttleTokenRequest });
  dashboardPages(router);
  explorerPages(router);
  // The sign-in routes need no credential: each request is counted against its client address first.
  const throttleSignIn = async (ctx: Context, next: Next) => {
    await deps.throttleSignIn(ctx);
    await next();
  };
  sessionRoutes(router, throttleSignIn);
  ssoRoutes(router, app, throttleSignIn);

  const routesUnderApiRoot = new Set(
    router.stack.map((layer) => layer.path).filter((path) => typeof path === "string" && path.startsWith(API_ROOT)),
  );
  const routes = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  // A path of these routes asked with another method ends here, and allowedMethods answers 405.
  const onKnownPath = (ctx: Context) =>
    ((ctx as { matched?: { methods: string[] }[] }).matched ?? []).some((layer) => layer.methods.length);

  return async function outsideContract(ctx: Context, next: Next) {
    if (ctx.path.startsWith(`${API_ROOT}/`) && !routesUnderApiRoot.has(ctx.path)) return next();
    await allowedMethods(ctx, () => routes(ctx, () => (onKnownPath(ctx) ? Promise.resolve() : next())));
    if (ctx.status !== 405 && ctx.status !== 501) return;
    const allowed = (ctx.response.get("Allow") || "").split(", ").filter(Boolean);
    throw new ProblemError(
      "method-not-allowed",
      `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(", ")}.`,
      { headers: { Allow: allowed.join(", ") }, extensions: { allowed } },
    );
  };
}
