// OpenID Connect sign-in with openid-client: authorization code flow with PKCE
// (S256), `state` and `nonce` checked, the provider found by discovery from its
// issuer. The pending sign-in (state, code verifier, nonce) is stored
// server-side; the browser keeps only the state, in a cookie, so a callback
// that did not start in this browser is refused.
import crypto from "node:crypto";
import type * as OpenIdClient from "openid-client";
import type { SsoConnection, SsoService } from "../../../services/sso.ts";
import { emailFrom, type FederatedIdentity, SignInFailure, textFrom } from "./identity.ts";

/**
 * openid-client loads with the first OIDC sign-in, not with the server: most deployments have no
 * OIDC connection (docs/benchmarks.md, memory).
 */
const openIdClient = () => import("openid-client");

/** Discovery documents are read again after this long (keys rotate, endpoints move). */
const DISCOVERY_TTL_MS = 10 * 60_000;

export interface OidcSignIn {
  /** Where to send the browser. */
  redirectUrl: string;
  /** Goes into the state cookie. */
  state: string;
}

export function createOidcSignIn(sso: SsoService, redirectUri: string) {
  const configurations = new Map<string, { config: OpenIdClient.Configuration; loadedAt: number }>();

  async function configurationOf(connection: SsoConnection): Promise<OpenIdClient.Configuration> {
    const client = await openIdClient();
    const cached = configurations.get(connection.id);
    if (cached && Date.now() - cached.loadedAt < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(connection.oidcIssuer!);
    try {
      const config = await client.discovery(
        issuer,
        connection.oidcClientId!,
        sso.clientSecretOf(connection),
        undefined,
        // Plain http is accepted only for a loopback issuer (checked when the connection was added).
        issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests], timeout: 10 } : { timeout: 10 },
      );
      configurations.set(connection.id, { config, loadedAt: Date.now() });
      return config;
    } catch (error) {
      throw new SignInFailure(
        "provider-unreachable",
        "The identity provider could not be reached",
        "Your organization's identity provider did not answer. Try again in a few minutes, or ask an administrator for a sign-in link.",
        (error as Error).message,
        401,
      );
    }
  }

  return {
    async start(connection: SsoConnection): Promise<OidcSignIn> {
      const client = await openIdClient();
      const config = await configurationOf(connection);
      const state = client.randomState();
      const nonce = client.randomNonce();
      const codeVerifier = client.randomPKCECodeVerifier();
      await sso.beginSignIn({ state, connectionId: connection.id, codeVerifier, nonce });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: "openid email profile",
        response_type: "code",
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      return { redirectUrl: url.href, state };
    },

    /**
     * Ends the flow: the callback's state must be the one this browser started
     * with (its cookie), the pending sign-in unused and unexpired; then the code
     * is exchanged (PKCE) and the ID token checked (signature, issuer, audience,
     * expiry, nonce) by openid-client.
     */
    async finish(
      callbackUrl: URL,
      cookieState: string | undefined,
    ): Promise<FederatedIdentity & { connection: SsoConnection }> {
      const state = callbackUrl.searchParams.get("state") ?? "";
      if (!cookieState || !safeEqual(state, cookieState)) {
        throw new SignInFailure(
          "state-mismatch",
          "This sign-in did not start here",
          "The answer from the identity provider does not belong to a sign-in started in this browser (state mismatch). Start again from the sign-in page.",
        );
      }
      const pending = await sso.findSignIn(state);
      if (!pending?.codeVerifier || !pending.nonce) {
        throw new SignInFailure(
          "sign-in-unknown",
          "This sign-in has expired",
          "The sign-in took too long or is unknown. Start again from the sign-in page.",
        );
      }
      const connection = await sso.connectionById(pending.connectionId);
      if (connection?.protocol !== "oidc") {
        throw new SignInFailure(
          "sign-in-unknown",
          "This sign-in is no longer possible",
          "The sign-in connection was removed.",
        );
      }
      if (!(await sso.useSignIn(state))) {
        throw new SignInFailure("sign-in-used", "This sign-in was already used", "Start again from the sign-in page.");
      }
      const client = await openIdClient();
      const config = await configurationOf(connection);
      let tokens: Awaited<ReturnType<typeof OpenIdClient.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw classify(error, client);
      }
      const claims: Record<string, unknown> = tokens.claims() ?? {};
      // OIDC Core 5.1: email_verified is a boolean; when present, anything but true (false, "false",
      // "true" as a string) is an address the provider has not verified.
      if ("email_verified" in claims && claims.email_verified !== true) {
        throw new SignInFailure(
          "email-unverified",
          "Your email address is not verified",
          "Your identity provider has not verified your email address, so it cannot sign you in here. Verify the address at your identity provider, then start again.",
          `email_verified: ${JSON.stringify(claims.email_verified)}`,
          401,
        );
      }
      const email = emailFrom(claims.email);
      return {
        connection,
        email: email ?? "",
        name: textFrom(claims.name, [claims.given_name, claims.family_name].filter(Boolean).join(" ")),
        roleValues: connection.roleClaim ? claims[connection.roleClaim] : undefined,
      };
    },
  };
}

function safeEqual(a: string, b: string): boolean {
  const left = crypto.createHash("sha256").update(a).digest();
  const right = crypto.createHash("sha256").update(b).digest();
  return crypto.timingSafeEqual(left, right) && a === b;
}

function classify(error: unknown, client: typeof OpenIdClient): SignInFailure {
  // openid-client wraps oauth4webapi's error, which names the claim that failed.
  const cause = (error as { cause?: unknown }).cause;
  const message = [error, cause]
    .map((e) => (e instanceof Error ? e.message : ""))
    .filter(Boolean)
    .join(": ");
  if (error instanceof client.AuthorizationResponseError) {
    const description = error.error_description ? `: ${error.error_description}` : "";
    return new SignInFailure(
      "provider-error",
      "The identity provider refused the sign-in",
      `The identity provider answered "${error.error}"${description}.`,
      message,
      401,
    );
  }
  if (/nonce/i.test(message)) {
    return new SignInFailure(
      "nonce-mismatch",
      "The identity provider's answer was refused",
      "The ID token does not carry the nonce this sign-in sent (nonce mismatch), so it may have been replayed. Start again from the sign-in page.",
      message,
      401,
    );
  }
  if (/"state"/.test(message)) {
    return new SignInFailure(
      "state-mismatch",
      "This sign-in did not start here",
      "The answer from the identity provider does not belong to this sign-in (state mismatch). Start again from the sign-in page.",
      message,
    );
  }
  return new SignInFailure(
    "provider-error",
    "The identity provider's answer was refused",
    "The answer from the identity provider could not be verified. Start again, or ask an administrator for a sign-in link.",
    message,
    401,
  );
}
