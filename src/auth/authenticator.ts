// Resolves an Authorization header to a Credential: API keys by their hash,
// OAuth access tokens by their signature. Failures are 401 problems whose
// WWW-Authenticate header says what went wrong (RFC 6750).
import type { CredentialsRepository } from "../repositories/credentials.ts";
import { AuthenticationError } from "../kernel/errors.ts";
import { digestsEqual, parseApiKey } from "./api-keys.ts";
import { type ApiCredential, isScope } from "./credential.ts";

const REALM = 'Bearer realm="course-equivalency"';
const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
/** lastUsedAt is a hint, not an audit log: write it at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Verified keys are remembered briefly so hot read paths skip a lookup (SVC_CREDENTIAL_CACHE_MS). */
const CACHE_TTL_MS = 2_000;

export type AccessTokenVerifier = (token: string) => Promise<ApiCredential>;

interface CachedCredential {
  credential: ApiCredential;
  hash: string;
  expiresAt: number;
}

export class Authenticator {
  private readonly cache = new Map<string, CachedCredential>();
  /** Lookups under way, by key hash: when a cached key expires under load, every request waiting for it shares one query. */
  private readonly lookups = new Map<string, Promise<ApiCredential>>();
  /** Moves on at each forget: a lookup that started before a revocation is not cached after it. */
  private generation = 0;
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(
    private readonly credentials: Pick<CredentialsRepository, "findApiKeyByHash" | "markApiKeyUsed">,
    private readonly verifyAccessToken: AccessTokenVerifier | null,
    private readonly onBackgroundError: (error: unknown) => void,
    private readonly cacheMs = CACHE_TTL_MS,
  ) {}

  /**
   * The credential of an API key this process verified moments ago, without waiting: a request
   * that finds its key here is answered by authenticate() the same way, a turn of the event loop
   * later. Undefined for anything else (authenticate() then decides).
   */
  cached(authorization: string | undefined): ApiCredential | undefined {
    if (!authorization) return undefined;
    const token = BEARER.exec(authorization)?.[1];
    if (!token?.startsWith("svc_")) return undefined;
    const parsed = parseApiKey(token);
    return parsed ? this.cachedKey(parsed.hash) : undefined;
  }

  async authenticate(authorization: string | undefined): Promise<ApiCredential> {
    if (!authorization) {
      throw new AuthenticationError(
        "This operation needs a credential: send Authorization: Bearer <API key or access token>.",
        REALM,
      );
    }
    const match = BEARER.exec(authorization);
    if (!match) {
      throw invalidCredential(
        "The Authorization header must have the form 'Bearer <API key or access token>'.",
        "invalid_request",
      );
    }
    const token = match[1];
    if (token.startsWith("svc_")) return this.authenticateApiKey(token);
    if (this.verifyAccessToken && token.split(".").length === 3) return this.verifyAccessToken(token);
    throw invalidCredential(
      "The credential is not an API key (svc_live_... or svc_sandbox_...) or an access token of this service.",
    );
  }

  /**
   * Forgets a credential at once (an API key's or OAuth client's record id), so a
   * revocation takes effect in this process immediately; other processes hear of
   * it through the database's revocation notices (src/auth/revocations.ts).
   */
  forget(credentialId: string): void {
    this.generation++;
    this.lookups.clear();
    for (const [hash, entry] of this.cache) if (entry.credential.id === credentialId) this.cache.delete(hash);
  }

  /** Forgets every cached credential (revocation notices may have been missed). */
  forgetAll(): void {
    this.generation++;
    this.lookups.clear();
    this.cache.clear();
  }

  private async authenticateApiKey(key: string): Promise<ApiCredential> {
    const parsed = parseApiKey(key);
    if (!parsed) throw invalidCredential("The API key is malformed: expected svc_<live|sandbox>_<token>.");
    const cached = this.cachedKey(parsed.hash);
    if (cached) return cached;
    let lookup = this.lookups.get(parsed.hash);
    if (!lookup) {
      lookup = this.lookUpApiKey(parsed.hash).finally(() => {
        if (this.lookups.get(parsed.hash) === lookup) this.lookups.delete(parsed.hash);
      });
      this.lookups.set(parsed.hash, lookup);
    }
    return lookup;
  }

  private cachedKey(hash: string): ApiCredential | undefined {
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > Date.now() && digestsEqual(cached.hash, hash)) return cached.credential;
    return undefined;
  }

  private async lookUpApiKey(hash: string): Promise<ApiCredential> {
    const generation = this.generation;
    const record = await this.credentials.findApiKeyByHash(hash);
    if (!record || !digestsEqual(record.hash, hash)) throw invalidCredential("The API key is not known.");
    if (record.revokedAt) throw invalidCredential("The API key has been revoked.");
    const credential: ApiCredential = {
      kind: "api_key",
      id: record.id,
      organizationId: record.organizationId,
      organizationSlug: record.organization.slug,
      channel: record.organization.source,
      environment: record.environment,
      scopes: record.scopes.filter(isScope),
    };
    if (generation === this.generation)
      this.cache.set(hash, { credential, hash, expiresAt: Date.now() + this.cacheMs });
    this.touch(record.id, record.lastUsedAt);
    return credential;
  }

  private touch(keyId: string, lastUsedAt: Date | null): void {
    const now = Date.now();
    const lastWrite = Math.max(this.lastUsedWrites.get(keyId) ?? 0, lastUsedAt?.getTime() ?? 0);
    if (now - lastWrite < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWrites.set(keyId, now);
    this.credentials.markApiKeyUsed(keyId, new Date(now)).catch(this.onBackgroundError);
  }
}

/** A 401 whose WWW-Authenticate header carries the reason (RFC 6750). */
export function invalidCredential(detail: string, error = "invalid_token"): AuthenticationError {
  // Header values must be printable ASCII without double quotes.
  const description = detail.replace(/"/g, "'").replace(/[^\x20-\x7e]/g, "?");
  return new AuthenticationError(detail, `${REALM}, error="${error}", error_description="${description}"`);
}
