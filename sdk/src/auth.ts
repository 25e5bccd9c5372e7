// Credentials: a fixed API key, or OAuth 2.0 client credentials whose access
// token is fetched from the service origin and renewed before it expires.
import { apiErrorFromResponse } from "./errors.js";
import type { Clock, FetchFunction } from "./transport.js";

export interface OAuthCredentials {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (`read:public write:contribute`); the client's own by default. */
  scope?: string;
  /** Token endpoint; `<origin of baseUrl>/oauth/token` by default. */
  tokenUrl?: string;
}

export interface Authenticator {
  /** The value of the `Authorization` header. */
  authorization(): Promise<string>;
  /** Called on a 401; true when a fresh credential is worth one more attempt. */
  renew(): boolean;
}

export function apiKeyAuthenticator(apiKey: string): Authenticator {
  const header = `Bearer ${apiKey}`;
  return { authorization: async () => header, renew: () => false };
}

interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
}

/** Renew this long before the token's stated expiry, for clock skew and latency. */
const EXPIRY_MARGIN_MS = 60_000;

export function oauthAuthenticator(
  credentials: OAuthCredentials,
  baseUrl: string,
  fetch: FetchFunction,
  clock: Clock,
): Authenticator {
  const tokenUrl = credentials.tokenUrl ?? new URL("/oauth/token", baseUrl).href;
  const basic = Buffer.from(
    `${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`,
  ).toString("base64");
  let current: { header: string; renewAt: number } | undefined;
  // One request in flight at a time, shared by every caller waiting for a token.
  let pending: Promise<string> | undefined;

  async function requestToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (credentials.scope) form.set("scope", credentials.scope);
    const response = await fetch(
      new Request(tokenUrl, {
        method: "POST",
        headers: {
          Authorization: `Basic ${basic}`,
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
        },
        body: form.toString(),
      }),
    );
    if (!response.ok) throw await apiErrorFromResponse(response);
    const token = (await response.json()) as TokenResponse;
    const lifetimeMs = (token.expires_in ?? 3600) * 1000;
    const header = `Bearer ${token.access_token}`;
    current = { header, renewAt: clock.now() + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS) };
    return header;
  }

  return {
    async authorization() {
      if (current && clock.now() < current.renewAt) return current.header;
      pending ??= requestToken().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    renew() {
      current = undefined;
      return true;
    },
  };
}
