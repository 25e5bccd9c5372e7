// OAuth 2.0 client credentials (RFC 6749 §4.4): the service issues short-lived
// ES256 JWT access tokens, publishes its public keys as a JWKS, and accepts
// those tokens wherever an API key is accepted.
import crypto from "node:crypto";
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK, type JSONWebKeySet } from "jose";
import type { Config } from "../config.ts";
import type { Db } from "../db/database.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { AuthenticationError, ProblemError } from "../errors.ts";
import { newId } from "../ids.ts";
import { digestsEqual, hashApiKey } from "./api-keys.ts";
import { type Credential, type Scope, SCOPES, isScope } from "./credential.ts";

const ALGORITHM = "ES256";
export const TOKEN_AUDIENCE = "course-equivalency-api";
const REALM = 'Bearer realm="course-equivalency"';

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

export interface AccessTokens {
  issuer: string;
  jwks: JSONWebKeySet;
  issue(clientId: string, clientSecret: string, requestedScope: string | undefined): Promise<TokenResponse>;
  verify(token: string): Promise<Credential>;
}

/** An OAuth error (RFC 6749 §5.2) carried in a problem document. */
export class OAuthError extends ProblemError {
  constructor(error: "invalid_request" | "invalid_client" | "invalid_grant" | "invalid_scope" | "unsupported_grant_type", detail: string) {
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

async function loadSigningKey(db: Db) {
  const existing = await db.signingKey.findFirst({ orderBy: { createdAt: "desc" } });
  if (existing) return existing;
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const kid = crypto.randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: "sig" };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALGORITHM };
  return db.signingKey.create({ data: { kid, privateJwk, publicJwk } });
}

export async function createAccessTokens(db: Db, config: Config): Promise<AccessTokens> {
  const signing = await loadSigningKey(db);
  const privateKey = await importJWK(signing.privateJwk as JWK, ALGORITHM);
  const jwks: JSONWebKeySet = { keys: [signing.publicJwk as JWK] };
  const keySet = createLocalJWKSet(jwks);
  const issuer = defaultIssuer(config);

  async function issue(clientId: string, clientSecret: string, requestedScope: string | undefined): Promise<TokenResponse> {
    const client = await db.oAuthClient.findUnique({ where: { clientId } });
    if (!client || client.revokedAt || !digestsEqual(client.secretHash, hashApiKey(clientSecret))) {
      throw new OAuthError("invalid_client", "The client id or secret is not valid.");
    }
    const granted = client.scopes.filter(isScope);
    const requested = requestedScope?.trim() ? requestedScope.trim().split(/\s+/) : granted;
    const refused = requested.filter((scope) => !granted.includes(scope as Scope));
    if (refused.length) throw new OAuthError("invalid_scope", `The client may not request: ${refused.join(" ")}.`);
    const scope = requested.join(" ");
    const accessToken = await new SignJWT({ scope, env: client.environment, org: client.organizationId, cid: client.id })
      .setProtectedHeader({ alg: ALGORITHM, kid: signing.kid, typ: "at+jwt" })
      .setIssuer(issuer)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(client.clientId)
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .setExpirationTime(`${config.oauth.tokenTtlSeconds}s`)
      .sign(privateKey);
    await db.oAuthClient.update({ where: { id: client.id }, data: { lastUsedAt: new Date() } });
    return { access_token: accessToken, token_type: "Bearer", expires_in: config.oauth.tokenTtlSeconds, scope };
  }

  async function verify(token: string): Promise<Credential> {
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, keySet, { issuer, audience: TOKEN_AUDIENCE, algorithms: [ALGORITHM] }));
    } catch (error) {
      throw new AuthenticationError(
        `The access token is not valid: ${(error as Error).message}.`,
        `${REALM}, error="invalid_token", error_description="The access token is not valid"`,
      );
    }
    const client = await db.oAuthClient.findUnique({ where: { id: String(claims.cid) }, include: { organization: true } });
    if (!client || client.revokedAt) {
      throw new AuthenticationError("The OAuth client of this token has been revoked.", `${REALM}, error="invalid_token"`);
    }
    return {
      kind: "oauth_client",
      id: client.id,
      organizationId: client.organizationId,
      organizationSlug: client.organization.slug,
      channel: client.organization.source,
      environment: client.environment,
      scopes: String(claims.scope ?? "").split(" ").filter(isScope).filter((s) => client.scopes.includes(s)),
    };
  }

  return { issuer, jwks, issue, verify };
}

export async function createOAuthClient(
  db: Db,
  input: { organizationId: string; environment: Environment; scopes?: readonly string[]; name?: string | null },
) {
  const scopes = [...new Set(input.scopes ?? SCOPES)];
  if (!scopes.length || scopes.some((s) => !isScope(s))) throw new Error(`scopes must be a non-empty list of ${SCOPES.join(", ")}`);
  const clientSecret = `svcsec_${crypto.randomBytes(30).toString("base64url")}`;
  const id = newId("oac");
  const client = await db.oAuthClient.create({
    data: {
      id,
      clientId: id,
      organizationId: input.organizationId,
      environment: input.environment,
      name: input.name ?? null,
      secretHash: hashApiKey(clientSecret),
      scopes,
    },
  });
  return { client, clientSecret };
}
