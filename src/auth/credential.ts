// What a request is authenticated as, passed from the auth middleware to
// handlers and services.
import type { Channel, Environment } from "../../generated/prisma/client.ts";

export const SCOPES = ["read:public", "write:contribute"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Credential {
  kind: "api_key" | "oauth_client";
  /** The api key's or OAuth client's record id. */
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
