// What a request is authenticated as, passed from the auth middleware to
// handlers and services.
import type { Channel, Environment } from "../../generated/prisma/client.ts";

export const SCOPES = ["read:public", "write:contribute"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Credential {
  /** external_token: an access token of the configured external issuer. */
  kind: "api_key" | "oauth_client" | "external_token";
  /** The api key's or OAuth client's record id; `ext:<sub>` for an external issuer's token. */
  id: string;
  organizationId: string;
  organizationSlug: string;
  /** The organization's onboarding channel; becomes an equivalency's provenance. */
  channel: Channel;
  environment: Environment;
  scopes: Scope[];
}

export function hasScope(credential: Credential, scope: Scope): boolean {
  return credential.scopes.includes(scope);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
