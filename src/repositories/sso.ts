// Single sign-on: the organizations' connections to their identity providers,
// the sign-ins sent to a provider and not yet back, and the SAML assertion ids
// already accepted (kept until the assertion expires, so none is accepted twice).
import type { Executor } from "./executor.ts";
import type { Prisma, SsoConnection, SsoProtocol, SsoSignInState } from "../../generated/prisma/client.ts";
import { pageOf, type Page } from "./paging.ts";

export type SsoConnectionRecord = SsoConnection;
export type SsoSignInRecord = SsoSignInState;

export interface NewSsoConnection {
  id: string;
  organizationId: string;
  protocol: SsoProtocol;
  domain: string;
  oidcIssuer?: string | null;
  oidcClientId?: string | null;
  /** Sealed. */
  oidcClientSecret?: string | null;
  samlEntityId?: string | null;
  samlSsoUrl?: string | null;
  samlCertificates?: string[];
  roleClaim?: string | null;
  roleMap: Record<string, string>;
}

export interface NewSignIn {
  state: string;
  connectionId: string;
  codeVerifier?: string | null;
  nonce?: string | null;
  samlRequestId?: string | null;
  expiresAt: Date;
}

export function createSsoRepository(db: Executor) {
  return {
    /** Creates the connection; null when its domain already has one. */
    async create(record: NewSsoConnection): Promise<SsoConnection | null> {
      // INSERT … ON CONFLICT DO NOTHING: two concurrent additions of one domain cannot both succeed.
      const { count } = await db.ssoConnection.createMany({
        data: [{ ...record, roleMap: record.roleMap as Prisma.InputJsonValue }],
        skipDuplicates: true,
      });
      return count === 1 ? db.ssoConnection.findUnique({ where: { id: record.id } }) : null;
    },

    findById(id: string): Promise<SsoConnection | null> {
      return db.ssoConnection.findUnique({ where: { id } });
    },

    findByDomain(domain: string): Promise<SsoConnection | null> {
      return db.ssoConnection.findUnique({ where: { domain } });
    },

    /** The connections of any of these domains, in one query. */
    findByDomains(domains: string[]): Promise<SsoConnection[]> {
      return db.ssoConnection.findMany({ where: { domain: { in: domains } } });
    },

    /** An organization's connections, oldest first (then by id). */
    listByOrganization(organizationId: string): Promise<SsoConnection[]> {
      return db.ssoConnection.findMany({ where: { organizationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    },

    /** One page of an organization's connections, oldest first (then by id). */
    listPage(organizationId: string, page: Page) {
      const where = { organizationId };
      return pageOf(
        page,
        [
          ["createdAt", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) =>
          db.ssoConnection.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.ssoConnection.count({ where }),
      );
    },

    /** Deletes the connection with its pending sign-ins and remembered assertions; answers whether it existed. */
    async remove(id: string): Promise<boolean> {
      const { count } = await db.ssoConnection.deleteMany({ where: { id } });
      return count > 0;
    },

    /** Records a sign-in sent to the provider, dropping those that expired meanwhile. */
    async createSignIn(record: NewSignIn): Promise<void> {
      await db.ssoSignInState.deleteMany({ where: { expiresAt: { lt: new Date() } } });
      await db.ssoSignInState.create({ data: record });
    },

    /** The pending sign-in of that state, used or not, if it has not expired. */
    findSignIn(state: string, now: Date): Promise<SsoSignInState | null> {
      return db.ssoSignInState.findFirst({ where: { state, expiresAt: { gt: now } } });
    },

    /** Marks the sign-in used; false when it was already used or has expired (only one use wins). */
    async useSignIn(state: string, now: Date): Promise<boolean> {
      const { count } = await db.ssoSignInState.updateMany({
        where: { state, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      return count === 1;
    },

    /**
     * Remembers a SAML assertion id until it expires; false when it was already
     * remembered (a replay). Forgets the ones that expired.
     */
    async rememberAssertion(connectionId: string, assertionId: string, expiresAt: Date): Promise<boolean> {
      await db.samlAssertionSeen.deleteMany({ where: { expiresAt: { lt: new Date() } } });
      const { count } = await db.samlAssertionSeen.createMany({
        data: [{ connectionId, assertionId, expiresAt }],
        skipDuplicates: true,
      });
      return count === 1;
    },
  };
}

export type SsoRepository = ReturnType<typeof createSsoRepository>;
