// What a request is authenticated as, passed from the auth middleware to
// handlers and services.
import type { Channel, Environment, UserRole } from "../../generated/prisma/client.ts";

export const SCOPES = ["read:public", "write:contribute"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Credential {
  /**
   * external_token: an access token of the configured external issuer; user: a dashboard user's token;
   * operator: whoever runs the server's command line (never an API credential: the CLI acts as it);
   * public: nobody in particular, calling the public explorer's operations (`security: []`) from an address.
   */
  kind: "api_key" | "oauth_client" | "external_token" | "user" | "operator" | "public";
  /** The api key's or OAuth client's record id; `ext:<sub>` for an external issuer's token; the user's id; the operator's OS user name. */
  id: string;
  /** kind user only: the user's current role and how the audit log names them. */
  user?: { role: UserRole; email: string; name: string | null; sessionId: string };
  organizationId: string;
  organizationSlug: string;
  /** The organization's onboarding channel; becomes an equivalency's provenance. */
  channel: Channel;
  environment: Environment;
  scopes: Scope[];
  /** An access token's `exp`, in milliseconds since the epoch: what holds the token to account after its request (event streams). */
  expiresAt?: number;
}

/** What the API authenticates: every kind but the command line's operator. */
export type ApiCredential = Credential & { kind: Exclude<Credential["kind"], "operator"> };

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export const USER_ROLES = ["admin", "contributor", "viewer"] as const;

/** The scopes a dashboard user's token carries for each role (admin-only operations also check the role). */
export const ROLE_SCOPES: Record<UserRole, Scope[]> = {
  viewer: ["read:public"],
  contributor: ["read:public", "write:contribute"],
  admin: ["read:public", "write:contribute"],
};

export function isUserRole(value: unknown): value is UserRole {
  return typeof value === "string" && (USER_ROLES as readonly string[]).includes(value);
}

/** A verified token's `exp` (a required claim), in milliseconds since the epoch. */
export function expiryOf(claims: { exp?: number }): number | undefined {
  return typeof claims.exp === "number" ? claims.exp * 1000 : undefined;
}

/** The kinds a record may name as acting: every kind but the anonymous public caller, who changes nothing. */
export type ActingKind<K extends Credential["kind"] = Credential["kind"]> = Exclude<K, "public">;

export function actingKind<K extends Credential["kind"]>(kind: K): ActingKind<K> {
  if (kind === "public") throw new Error("the public caller changes nothing and is never recorded as acting");
  return kind as ActingKind<K>;
}

/**
 * Who calls an operation that needs no credential (the public explorer's): it holds no scope and
 * belongs to no organization, so it passes only operations that ask for neither. `environment` is
 * the one the request names (the explorer's services read it), `live` until then.
 */
export function publicCaller(environment: Environment = "live"): ApiCredential {
  return {
    kind: "public",
    id: "public",
    organizationId: "",
    organizationSlug: "",
    channel: "direct",
    environment,
    scopes: [],
  };
}
