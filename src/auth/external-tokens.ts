// Access tokens of an external issuer (an organization's identity provider),
// accepted when the operator configures its issuer URL and JWKS. The token is
// verified against the issuer's published keys, then its claims are mapped to
// a credential: the organization by slug, the environment, and the scopes
// this service knows. The mapping is documented in docs/api-guide.md and in the
// OAuth2 security scheme of openapi.yaml.
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from "jose";
import type { ExternalIssuerConfig } from "../kernel/config.ts";
import type { OrganizationsRepository } from "../repositories/organizations.ts";
import type { AuthenticationError } from "../kernel/errors.ts";
import { invalidCredential } from "./authenticator.ts";
import { type ApiCredential, type Credential, SCOPES, expiryOf } from "./credential.ts";
import { Environment } from "../../generated/prisma/enums.ts";

/** Asymmetric algorithms only: a JWKS publishes public keys, and HS* would need a shared secret. */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
const REQUIRED_CLAIMS = ["exp", "iat", "jti", "sub"];
/** Tolerated difference between the issuer's clock and ours, for exp and nbf. */
const CLOCK_TOLERANCE_SECONDS = 30;
const JWKS_TIMEOUT_MS = 5_000;
/** Keys are reused this long before they are fetched again. */
const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;
/** A token with an unknown kid refetches the keys at most this often. */
const JWKS_COOLDOWN_MS = 30_000;
const MAX_SUBJECT_LENGTH = 255;
const ENVIRONMENTS: readonly Environment[] = Object.values(Environment);

export const EXTERNAL_ID_PREFIX = "ext:";

export interface ExternalTokens {
  issuer: string;
  verify(token: string): Promise<ApiCredential>;
}

export function createExternalTokens(
  organizations: Pick<OrganizationsRepository, "findBySlug">,
  settings: ExternalIssuerConfig,
): ExternalTokens {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
    timeoutDuration: JWKS_TIMEOUT_MS,
    cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
    cooldownDuration: JWKS_COOLDOWN_MS,
  });

  async function verify(token: string): Promise<ApiCredential> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: ALGORITHMS,
        requiredClaims: REQUIRED_CLAIMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      throw verificationFailure(error, settings.issuer);
    }
    const subject = claims.sub!;
    if (subject.length > MAX_SUBJECT_LENGTH)
      throw invalid(`its "sub" claim is longer than ${MAX_SUBJECT_LENGTH} characters`);
    const slug = claims[settings.orgClaim];
    if (typeof slug !== "string" || !slug)
      throw invalid(`it has no "${settings.orgClaim}" claim naming an organization`);
    const environment = claims[settings.envClaim];
    if (typeof environment !== "string" || !ENVIRONMENTS.includes(environment as Environment)) {
      throw invalid(
        `its "${settings.envClaim}" claim must be live or sandbox, got ${JSON.stringify(environment ?? null)}`,
      );
    }
    if (!settings.orgs.includes(slug)) throw invalid(notTrustedFor(slug, settings));
    const organization = await organizations.findBySlug(slug);
    if (!organization)
      throw invalid(`its organization "${slug}" (claim "${settings.orgClaim}") is not known to this service`);
    return {
      kind: "external_token",
      id: `${EXTERNAL_ID_PREFIX}${subject}`,
      organizationId: organization.id,
      organizationSlug: organization.slug,
      channel: organization.source,
      environment: environment as Environment,
      scopes: tokenScopes(claims),
      expiresAt: expiryOf(claims),
    };
  }

  return { issuer: settings.issuer, verify };
}

/** `scope` (RFC 9068: space-separated) or `scp` (an array, or space-separated), limited to the scopes this service knows. */
export function tokenScopes(claims: JWTPayload): Credential["scopes"] {
  const raw = claims.scope ?? claims.scp;
  const listed = Array.isArray(raw)
    ? raw.filter((s): s is string => typeof s === "string")
    : typeof raw === "string"
      ? raw.split(/\s+/)
      : [];
  return SCOPES.filter((scope) => listed.includes(scope));
}

/**
 * Whoever administers the issuer can put any slug in the claim: it speaks only for the
 * organizations the operator lists in SVC_OAUTH_EXTERNAL_ORGS.
 */
function notTrustedFor(slug: string, settings: ExternalIssuerConfig): string {
  if (!settings.orgs.length)
    return `SVC_OAUTH_EXTERNAL_ORGS names no organization this issuer may speak for, so its tokens are refused`;
  return `this issuer may not speak for the organization "${slug}" (claim "${settings.orgClaim}"; SVC_OAUTH_EXTERNAL_ORGS lists ${settings.orgs.join(", ")})`;
}

/** The start-up warning of an issuer trusted for no organization (null when it has some). */
export function externalIssuerWarning(settings: ExternalIssuerConfig | null): string | null {
  if (!settings || settings.orgs.length) return null;
  return `SVC_OAUTH_EXTERNAL_ISSUER is set but SVC_OAUTH_EXTERNAL_ORGS is not: every token of ${settings.issuer} is refused until SVC_OAUTH_EXTERNAL_ORGS lists the organizations (slugs) it may speak for`;
}

function invalid(reason: string): AuthenticationError {
  return invalidCredential(`The access token of the external issuer is not accepted: ${reason}.`);
}

/** The keys could not be fetched, or the token failed a check: both are 401s, told apart in the detail. */
function verificationFailure(error: unknown, issuer: string): AuthenticationError {
  const unreachable =
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    error.code === errors.JOSEError.code;
  if (unreachable) return invalid(`the signing keys (JWKS) of ${issuer} could not be fetched; retry later`);
  return invalid((error as Error).message);
}
