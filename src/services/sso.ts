// Single sign-on connections: an organization's identity providers (OpenID
// Connect or SAML 2.0), one per email domain across the service, configured by
// the operator's CLI and shown read-only to the organization's admins; and the
// bookkeeping of sign-ins (pending state, SAML assertions already used). The
// protocols themselves live in src/dashboard/server/sso/.
import type { Repositories } from "../repositories/index.ts";
import type { SsoConnectionRecord, SsoSignInRecord } from "../repositories/sso.ts";
import { ssoClientSecretContext } from "../repositories/secrets.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import type { Credential } from "../auth/credential.ts";
import type { Page, PageResult } from "./types.ts";
import { requireAdminUser } from "./users.ts";
import { ConflictError, NotFoundError, ProblemError, ValidationError, type FieldError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { certificateFingerprint, type IdpMetadata } from "./sso-metadata.ts";

export const SSO_ROLES = ["viewer", "contributor", "admin"] as const;
export type SsoRole = (typeof SSO_ROLES)[number];

export type SsoConnection = SsoConnectionRecord;
export type SsoSignIn = SsoSignInRecord;

/** How long a person has to come back from the identity provider. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/** RFC 1035: a domain name is at most 253 characters. */
const MAX_DOMAIN_LENGTH = 253;
const DOMAIN = /^(?=.{3,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CLAIM = /^[\x21-\x7e]{1,200}$/;

/** A loopback host may be reached over plain http (development and tests); anything else needs https. */
export function isAllowedProviderUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

/** "staff=contributor, it-admins=admin" -> { staff: "contributor", "it-admins": "admin" }. */
export function parseRoleMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = entry.lastIndexOf("=");
    const value = entry.slice(0, at).trim();
    const role = entry.slice(at + 1).trim();
    if (at <= 0 || !value)
      throw new ValidationError("The role map is not valid.", [
        { pointer: "/roleMap", message: `"${entry}" is not <provider value>=<role>` },
      ]);
    map[value] = role;
  }
  return map;
}

/**
 * The highest role any of the provider's values maps to; null when none does (or the connection
 * maps no role), in which case the sign-in leaves an existing user's role as it is.
 */
export function roleFromValues(roleMap: Record<string, string>, values: unknown): SsoRole | null {
  const list = (Array.isArray(values) ? values : [values]).filter((v): v is string => typeof v === "string");
  let best = -1;
  for (const value of list) {
    const rank = SSO_ROLES.indexOf(roleMap[value] as SsoRole);
    if (rank > best) best = rank;
  }
  return best < 0 ? null : SSO_ROLES[best];
}

/** Whether an email address belongs to the connection's domain (or one of its subdomains). */
export function emailInDomain(email: string, domain: string): boolean {
  const host = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return email.includes("@") && (host === domain || host.endsWith(`.${domain}`));
}

export interface OidcConnectionInput {
  organizationId: string;
  domain: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  roleClaim?: string;
  roleMap?: Record<string, string>;
}

export interface SamlConnectionInput {
  organizationId: string;
  domain: string;
  metadata: IdpMetadata;
  roleAttribute?: string;
  roleMap?: Record<string, string>;
}

/** What may be shown of a connection: never the client secret. */
export interface SsoConnectionView {
  id: string;
  protocol: "oidc" | "saml";
  domain: string;
  /** OIDC: the issuer URL; SAML: the identity provider's entity id. */
  issuer: string;
  /** OIDC only. */
  clientId: string | null;
  /** SAML only: where people are sent to sign in. */
  ssoUrl: string | null;
  /** SAML only. */
  signingCertificates: { fingerprintSha256: string; notAfter: string }[];
  roleClaim: string | null;
  roleMap: Record<string, SsoRole>;
  createdAt: string;
}

export function connectionView(connection: SsoConnection): SsoConnectionView {
  return {
    id: connection.id,
    protocol: connection.protocol,
    domain: connection.domain,
    issuer: (connection.protocol === "oidc" ? connection.oidcIssuer : connection.samlEntityId) ?? "",
    clientId: connection.oidcClientId,
    ssoUrl: connection.samlSsoUrl,
    signingCertificates: connection.samlCertificates.map(certificateFingerprint),
    roleClaim: connection.roleClaim,
    roleMap: connection.roleMap as Record<string, SsoRole>,
    createdAt: connection.createdAt.toISOString(),
  };
}

function checkCommon(input: { domain: string; roleClaim?: string; roleMap?: Record<string, string> }): FieldError[] {
  const errors: FieldError[] = [];
  if (!DOMAIN.test(input.domain))
    errors.push({ pointer: "/domain", message: "must be an email domain such as example.edu" });
  if (input.roleClaim !== undefined && !CLAIM.test(input.roleClaim))
    errors.push({ pointer: "/roleClaim", message: "must be a claim or attribute name (printable, no spaces)" });
  for (const [value, role] of Object.entries(input.roleMap ?? {})) {
    if (!(SSO_ROLES as readonly string[]).includes(role))
      errors.push({ pointer: "/roleMap", message: `"${value}" maps to "${role}", not one of ${SSO_ROLES.join(", ")}` });
  }
  if (Object.keys(input.roleMap ?? {}).length && input.roleClaim === undefined)
    errors.push({ pointer: "/roleClaim", message: "a role map needs the claim or attribute it reads" });
  return errors;
}

export function createSsoService({ sso, transaction }: Pick<Repositories, "sso" | "transaction">, secrets: SecretBox) {
  const connectionRecord = (connection: SsoConnection): ChangedRecord => ({
    organizationId: connection.organizationId,
    environment: null,
    type: "sso_connection",
    id: connection.id,
  });

  async function create(record: Parameters<typeof sso.create>[0]) {
    const created = await transaction(async (writes) => {
      const connection = await writes.sso.create(record);
      if (connection) await auditChange(writes, [connectionRecord(connection)]);
      return connection;
    });
    if (!created) {
      const existing = await sso.findByDomain(record.domain);
      throw new ConflictError(`The domain ${record.domain} already has a sign-in connection.`, existing?.id);
    }
    return created;
  }

  return {
    async addOidcConnection(input: OidcConnectionInput): Promise<SsoConnectionView> {
      const domain = input.domain.trim().toLowerCase();
      const errors = checkCommon({ ...input, domain });
      if (!isAllowedProviderUrl(input.issuer))
        errors.push({ pointer: "/issuer", message: "must be an https URL (http only on a loopback address)" });
      if (!input.clientId.trim()) errors.push({ pointer: "/clientId", message: "must not be empty" });
      if (!input.clientSecret) errors.push({ pointer: "/clientSecret", message: "must not be empty" });
      if (errors.length) throw new ValidationError("The OIDC connection is not valid.", errors);
      const id = newId("sso");
      const connection = await create({
        id,
        organizationId: input.organizationId,
        protocol: "oidc",
        domain,
        oidcIssuer: input.issuer,
        oidcClientId: input.clientId.trim(),
        oidcClientSecret: secrets.seal(input.clientSecret, ssoClientSecretContext(id)),
        roleClaim: input.roleClaim ?? null,
        roleMap: input.roleMap ?? {},
      });
      return connectionView(connection);
    },

    async addSamlConnection(input: SamlConnectionInput): Promise<SsoConnectionView> {
      const domain = input.domain.trim().toLowerCase();
      const errors = checkCommon({ domain, roleClaim: input.roleAttribute, roleMap: input.roleMap });
      if (!isAllowedProviderUrl(input.metadata.ssoUrl))
        errors.push({ pointer: "/metadata", message: "the SSO URL must be https (http only on a loopback address)" });
      if (errors.length) throw new ValidationError("The SAML connection is not valid.", errors);
      const connection = await create({
        id: newId("sso"),
        organizationId: input.organizationId,
        protocol: "saml",
        domain,
        samlEntityId: input.metadata.entityId,
        samlSsoUrl: input.metadata.ssoUrl,
        samlCertificates: input.metadata.certificates,
        roleClaim: input.roleAttribute ?? null,
        roleMap: input.roleMap ?? {},
      });
      return connectionView(connection);
    },

    /** An organization's connections, oldest first; never a secret (the operator's CLI). */
    async listConnections(organizationId: string): Promise<SsoConnectionView[]> {
      return (await sso.listByOrganization(organizationId)).map(connectionView);
    },

    /** A page of the caller's organization's connections (an admin user's token only); never a secret. */
    async listSsoConnections(caller: Credential, page: Page): Promise<PageResult<SsoConnectionView>> {
      requireAdminUser(caller);
      const { items, total, next } = await sso.listPage(caller.organizationId, page);
      return { items: items.map(connectionView), total, next };
    },

    async removeSsoConnection(id: string): Promise<void> {
      const removed = await transaction(async (writes) => {
        const connection = await writes.sso.findById(id);
        if (!connection || !(await writes.sso.remove(id))) return false;
        await auditChange(writes, [connectionRecord(connection)]);
        return true;
      });
      if (!removed) throw new NotFoundError(`No sign-in connection with id "${id}".`);
    },

    /** The connection that signs in people of this email address's domain (or a parent domain). */
    async connectionForEmail(email: string): Promise<SsoConnection> {
      const at = email.lastIndexOf("@");
      const host =
        at > 0
          ? email
              .slice(at + 1)
              .trim()
              .toLowerCase()
          : "";
      // The address's domain and its parents, looked up in one query: the work per address is
      // bounded whatever its number of labels (the sign-in route is open to anyone).
      const labels = host.length <= MAX_DOMAIN_LENGTH ? host.split(".") : [];
      const candidates = labels.slice(0, -1).map((_, i) => labels.slice(i).join("."));
      const found = candidates.length ? await sso.findByDomains(candidates) : [];
      const closest = candidates.map((domain) => found.find((c) => c.domain === domain)).find(Boolean);
      if (closest) return closest;
      throw new ProblemError(
        "no-sign-in-connection",
        `No single sign-on is set up for ${host ? `the domain ${host}` : "that address"}. ` +
          "Ask an administrator of your organization for a sign-in link.",
      );
    },

    async connectionById(id: string): Promise<SsoConnection | null> {
      return sso.findById(id);
    },

    /** The OIDC client secret, opened. */
    clientSecretOf(connection: SsoConnection): string {
      if (!connection.oidcClientSecret) throw new Error(`Connection ${connection.id} has no client secret.`);
      return secrets.open(connection.oidcClientSecret, ssoClientSecretContext(connection.id));
    },

    /** Remembers a sign-in sent to the provider (state, PKCE verifier, nonce or SAML request id). */
    async beginSignIn(record: {
      state: string;
      connectionId: string;
      codeVerifier?: string;
      nonce?: string;
      samlRequestId?: string;
    }): Promise<void> {
      await sso.createSignIn({ ...record, expiresAt: new Date(Date.now() + SIGN_IN_TTL_MS) });
    },

    /** The pending sign-in of that state (used or not), unless it expired. */
    findSignIn(state: string): Promise<SsoSignIn | null> {
      return sso.findSignIn(state, new Date());
    },

    /** Uses the sign-in up: true for the first use only. */
    useSignIn(state: string): Promise<boolean> {
      return sso.useSignIn(state, new Date());
    },

    /** Remembers an accepted assertion id until it expires; false when it was already accepted (a replay). */
    rememberAssertion(connectionId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
      return sso.rememberAssertion(connectionId, assertionId, expiresAt);
    },
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
