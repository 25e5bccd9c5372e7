// The service's own OAuth 2.0 issuer over HTTP (RFC 6749 client credentials): the token
// endpoint, its keys as JWKS and its RFC 8414 metadata. The token request is counted against its
// client address before its body is read.
import type { Context } from "koa";
import type { Router } from "@koa/router";
import getRawBody from "raw-body";
import { MalformedRequestError, ProblemError } from "../kernel/errors.ts";
import { unstorableFlaw } from "../kernel/unstorable-text.ts";
import { SCOPES } from "./credential.ts";
import { type AccessTokens, OAuthError } from "./oauth.ts";

export interface OAuthRouteDependencies {
  accessTokens: AccessTokens;
  /** Counts a token request against its client address; throws the 429 when the address's bucket is empty. */
  throttleTokenRequest(ctx: Context): Promise<void>;
}

/** Adds the routes to `router`. */
export function oauthRoutes(router: Router, deps: OAuthRouteDependencies): void {
  router.get("/.well-known/jwks.json", (ctx) => {
    ctx.body = deps.accessTokens.jwks;
  });
  router.get("/.well-known/oauth-authorization-server", (ctx) => {
    const issuer = deps.accessTokens.issuer;
    ctx.body = {
      issuer,
      token_endpoint: `${issuer}/oauth/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: [...SCOPES],
      response_types_supported: ["token"],
    };
  });
  router.post("/oauth/token", async (ctx) => {
    await deps.throttleTokenRequest(ctx);
    const form = await readForm(ctx);
    if (form.get("grant_type") !== "client_credentials") {
      throw new OAuthError("unsupported_grant_type", "Only grant_type=client_credentials is supported.");
    }
    const { clientId, clientSecret } = clientCredentials(ctx, form);
    ctx.set("Cache-Control", "no-store");
    ctx.body = await deps.accessTokens.issue(clientId, clientSecret, form.get("scope") ?? undefined);
  });
}

async function readForm(ctx: Context): Promise<URLSearchParams> {
  const type = ctx.get("content-type").split(";")[0].trim().toLowerCase();
  const text = await getRawBody(ctx.req, { limit: 16 * 1024, encoding: "utf8" });
  if (type === "application/x-www-form-urlencoded") return decodeForm(text);
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new MalformedRequestError("The token request body is not valid JSON.");
    }
    const fields = Object.entries(
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {},
    );
    const notText = fields.find(([, value]) => typeof value !== "string");
    if (notText) throw new OAuthError("invalid_request", `The token request field ${notText[0]} must be a string.`);
    // Before URLSearchParams, which would turn a lone surrogate into U+FFFD.
    rejectUnstorable(fields.flat() as string[]);
    return new URLSearchParams(fields as [string, string][]);
  }
  throw new ProblemError("unsupported-media-type", "Token requests must be application/x-www-form-urlencoded.");
}

/**
 * URLSearchParams quietly keeps malformed percent-encoding ("%ZZ") as text and
 * turns invalid UTF-8 into U+FFFD; a token request that is not well-formed is
 * refused instead (RFC 6749 §5.2 invalid_request).
 */
function decodeForm(text: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const separator = pair.indexOf("=");
    const [name, value] = separator < 0 ? [pair, ""] : [pair.slice(0, separator), pair.slice(separator + 1)];
    const decoded = [percentDecoded(name.replace(/\+/g, " ")), percentDecoded(value.replace(/\+/g, " "))] as const;
    rejectUnstorable(decoded);
    form.append(...decoded);
  }
  return form;
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new OAuthError("invalid_request", "The token request holds malformed percent-encoding.");
  }
}

/** PostgreSQL cannot compare U+0000 or a lone surrogate, and no client id, secret or scope holds one. */
function rejectUnstorable(texts: Iterable<string>): void {
  for (const text of texts) {
    const flaw = unstorableFlaw(text);
    if (flaw) throw new OAuthError("invalid_request", `Each field of the token request ${flaw}.`);
  }
}

function clientCredentials(ctx: Context, form: URLSearchParams): { clientId: string; clientSecret: string } {
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.get("authorization"));
  if (basic) {
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const separator = decoded.indexOf(":");
    if (separator > 0) {
      const clientId = percentDecoded(decoded.slice(0, separator));
      const clientSecret = percentDecoded(decoded.slice(separator + 1));
      rejectUnstorable([clientId, clientSecret]);
      return { clientId, clientSecret };
    }
  }
  const clientId = form.get("client_id");
  const clientSecret = form.get("client_secret");
  if (!clientId || !clientSecret) {
    throw new OAuthError("invalid_client", "Authenticate the client with HTTP Basic or client_id and client_secret.");
  }
  return { clientId, clientSecret };
}
