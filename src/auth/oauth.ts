// OAuth 2.0 client credentials (RFC 6749 §4.4): the service issues short-lived
// ES256 JWT access tokens, publishes its public keys as a JWKS, and accepts
// those tokens wherever an API key is accepted.
import crypto from "node:crypto";
import {
  SignJWT,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  type JWK,
  type JSONWebKeySet,
  type JWTPayload,
} from "jose";
import { TOKEN_AUDIENCE, type Config } from "../kernel/config.ts";
import { ProblemError } from "../kernel/errors.ts";
import type { Repositories } from "../repositories/index.ts";
import { digestsEqual, hashApiKey } from "./api-keys.ts";
import { invalidCredential } from "./authenticator.ts";
import { type ApiCredential, type Credential, ROLE_SCOPES, type Scope, expiryOf, isScope } from "./credential.ts";
import type { Environment, UserRole } from "../../generated/prisma/client.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import { signingKeyContext } from "../repositories/secrets.ts";

const ALGORITHM = "ES256";
export { TOKEN_AUDIENCE };
/** Claims every access token carries; a token without one of them is refused. */
export const REQUIRED_CLAIMS = ["exp", "iat", "jti"];

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

/** What a dashboard session asks a token for: the user, their organization, the environment. */
export interface UserTokenRequest {
  userId: string;
  organizationId: string;
  role: UserRole;
  sessionId: string;
  environment: Environment;
}

/** The live session a user token names, as its verification needs it (null: ended, expired or disabled). */
export type SessionLookup = (sessionId: string) => Promise<{
  user: {
    id: string;
    email: string;
    name: string | null;
    role: UserRole;
    organizationId: string;
    organization: { slug: string; source: Credential["channel"] };
  };
} | null>;

export interface AccessTokens {
  issuer: string;
  jwks: JSONWebKeySet;
  issue(clientId: string, clientSecret: string, requestedScope: string | undefined): Promise<TokenResponse>;
  /** A short-lived token for a dashboard session, limited to the user's role and organization. */
  issueUserToken(request: UserTokenRequest): Promise<TokenResponse>;
  verify(token: string): Promise<ApiCredential>;
}

/** An OAuth error (RFC 6749 §5.2) carried in a problem document. */
export class OAuthError extends ProblemError {
  constructor(
    error: "invalid_request" | "invalid_client" | "invalid_grant" | "invalid_scope" | "unsupported_grant_type",
    detail: string,
  ) {
    const isClient = error === "invalid_client";
    super(isClient ? "unauthenticated" : "validation-failed", detail, {
      extensions: { error, error_description: detail } as never,
      headers: isClient ? { "WWW-Authenticate": 'Basic realm="course-equivalency"' } : {},
    });
  }
}

export function defaultIssuer(config: Config): string {
  return config.oauth.issuer ?? `http://${config.host}:${config.port}`;
}

/** The newest signing key, its private half opened; the first start makes one and stores it sealed. */
async function loadSigningKey(
  repositories: Pick<Repositories, "secrets">,
  secrets: SecretBox,
): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const existing = await repositories.secrets.findNewestSigningKey();
  if (existing) {
    const privateJwk = JSON.parse(secrets.open(existing.privateJwk, signingKeyContext(existing.kid))) as JWK;
    return { kid: existing.kid, privateJwk, publicJwk: existing.publicJwk as JWK };
  }
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const kid = crypto.randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALGORITHM };
  await repositories.secrets.createSigningKey({
    kid,
    privateJwk: secrets.seal(JSON.stringify(privateJwk), signingKeyContext(kid)),
    publicJwk,
  });
  return { kid, privateJwk, publicJwk };
}

export async function createAccessTokens(
  repositories: Pick<Repositories, "credentials" | "secrets">,
  config: Config,
  secrets: SecretBox,
  findSession: SessionLookup = async () => null,
): Promise<AccessTokens> {
  const { credentials } = repositories;
  const signing = await loadSigningKey(repositories, secrets);
  const privateKey = await importJWK(signing.privateJwk, ALGORITHM);
  const jwks: JSONWebKeySet = { keys: [signing.publicJwk] };
  const keySet = createLocalJWKSet(jwks);
  const issuer = defaultIssuer(config);

  async function issue(
    clientId: string,
    clientSecret: string,
    requestedScope: string | undefined,
  ): Promise<TokenResponse> {
    const client = await credentials.findOAuthClientByClientId(clientId);
    if (!client || client.revokedAt || !digestsEqual(client.secretHash, hashApiKey(clientSecret))) {
      throw new OAuthError("invalid_client", "The client id or secret is not valid.");
    }
    const granted = client.scopes.filter(isScope);
    const requested = requestedScope?.trim() ? requestedScope.trim().split(/\s+/) : granted;
    const refused = requested.filter((scope) => !granted.includes(scope as Scope));
    if (refused.length) throw new OAuthError("invalid_scope", `The client may not request: ${refused.join(" ")}.`);
    const scope = requested.join(" ");
    const accessToken = await new SignJWT({
      scope,
      env: client.environment,
      org: client.organizationId,
      cid: client.id,
    })
      .setProtectedHeader({ alg: ALGORITHM, kid: signing.kid, typ: "at+jwt" })
      .setIssuer(issuer)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(client.clientId)
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .setExpirationTime(`${config.oauth.tokenTtlSeconds}s`)
      .sign(privateKey);
    await credentials.markOAuthClientUsed(client.id, new Date());
    return { access_token: accessToken, token_type: "Bearer", expires_in: config.oauth.tokenTtlSeconds, scope };
  }

  async function issueUserToken(request: UserTokenRequest): Promise<TokenResponse> {
    const scope = ROLE_SCOPES[request.role].join(" ");
    const ttl = config.dashboard.tokenTtlSeconds;
    const accessToken = await new SignJWT({
      scope,
      env: request.environment,
      org: request.organizationId,
      uid: request.userId,
      role: request.role,
      sid: request.sessionId,
    })
      .setProtectedHeader({ alg: ALGORITHM, kid: signing.kid, typ: "at+jwt" })
      .setIssuer(issuer)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(request.userId)
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .setExpirationTime(`${ttl}s`)
      .sign(privateKey);
    return { access_token: accessToken, token_type: "Bearer", expires_in: ttl, scope };
  }

  /**
   * A user token is honoured while its session lives (sign-out and disabling refuse it at once),
   * with the user's current role: a demotion narrows the token's scopes immediately.
   */
  async function verifyUserToken(claims: JWTPayload): Promise<ApiCredential> {
    const environment = claims.env;
    if (typeof claims.sid !== "string" || (environment !== "live" && environment !== "sandbox")) {
      throw invalidCredential("The access token is not valid: it names no session or environment.");
    }
    const session = await findSession(claims.sid);
    if (!session || session.user.id !== claims.uid || session.user.organizationId !== claims.org) {
      throw invalidCredential("The dashboard session of this token has ended.");
    }
    const { user } = session;
    const allowed = ROLE_SCOPES[user.role];
    return {
      kind: "user",
      id: user.id,
      organizationId: user.organizationId,
      organizationSlug: user.organization.slug,
      channel: user.organization.source,
      environment,
      scopes: String(claims.scope ?? "")
        .split(" ")
        .filter(isScope)
        .filter((s) => allowed.includes(s)),
      user: { role: user.role, email: user.email, name: user.name, sessionId: claims.sid },
      expiresAt: expiryOf(claims),
    };
  }

  async function verify(token: string): Promise<ApiCredential> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keySet, {
        issuer,
        audience: TOKEN_AUDIENCE,
        algorithms: [ALGORITHM],
        requiredClaims: REQUIRED_CLAIMS,
      }));
    } catch (error) {
      throw invalidCredential(`The access token is not valid: ${(error as Error).message}.`);
    }
    if (typeof claims.uid === "string") return verifyUserToken(claims);
    if (typeof claims.cid !== "string")
      throw invalidCredential('The access token is not valid: it names no client ("cid").');
    // Looked up on every request, never cached: a revocation refuses tokens already issued at once.
    const client = await credentials.findOAuthClientById(claims.cid);
    if (!client || client.revokedAt) throw invalidCredential("The OAuth client of this token has been revoked.");
    return {
      kind: "oauth_client",
      id: client.id,
      organizationId: client.organizationId,
      organizationSlug: client.organization.slug,
      channel: client.organization.source,
      environment: client.environment,
      scopes: String(claims.scope ?? "")
        .split(" ")
        .filter(isScope)
        .filter((s) => client.scopes.includes(s)),
      expiresAt: expiryOf(claims),
    };
  }

  return { issuer, jwks, issue, issueUserToken, verify };
}
