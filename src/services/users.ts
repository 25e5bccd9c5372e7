// People of an organization: invitations with one-time sign-in links, just-in-time provisioning
// of federated sign-ins, members' roles and disabling. Sessions are in services/sessions.ts.
import crypto from "node:crypto";
import type { User, UserRole } from "../../generated/prisma/client.ts";
import type { Page, PageResult } from "./types.ts";
import type { Repositories } from "../repositories/index.ts";
import { hashApiKey } from "../auth/api-keys.ts";
import { type Credential, USER_ROLES, isUserRole } from "../auth/credential.ts";
import { ConflictError, ForbiddenError, SignInRefusedError, ValidationError, notFound } from "../kernel/errors.ts";
import { appendEntries, auditChange, type ChangedRecord } from "./audit.ts";
import { newId } from "../kernel/ids.ts";

/** A sign-in link works once, within this time. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const SIGN_IN_LINK_PATH = "/dashboard/auth/link";
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
/** The role of a person's first federated sign-in when the connection maps none. */
export const DEFAULT_FEDERATED_ROLE: UserRole = "viewer";

export interface MemberView {
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
  disabled: boolean;
  disabledAt: string | null;
  lastSignInAt: string | null;
  createdAt: string;
}

export function memberView(user: User): MemberView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    disabled: user.disabledAt !== null,
    disabledAt: user.disabledAt?.toISOString() ?? null,
    lastSignInAt: user.lastSignInAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
  };
}

export interface Invitation {
  user: User;
  signInUrl: string;
  expiresAt: Date;
}

export interface UsersServiceDependencies
  extends Pick<Repositories, "users" | "sessions" | "organizations" | "transaction"> {
  publicOrigin: string;
  now?: () => Date;
  /** Ends what this process holds of a disabled user at once (their event streams). */
  forgetCredential?: (userId: string) => void;
}

function checkEmail(email: unknown): string {
  const trimmed = typeof email === "string" ? email.trim() : "";
  if (!EMAIL.test(trimmed)) throw ValidationError.single("/email", "must be an email address");
  return trimmed;
}

function checkRole(role: unknown): UserRole {
  if (!isUserRole(role)) throw ValidationError.single("/role", `must be one of ${USER_ROLES.join(", ")}`);
  return role;
}

/** Operations on people need a user's token with the admin role; keys and OAuth clients are refused. */
export function requireAdminUser(caller: Credential): void {
  if (caller.kind !== "user") {
    throw new ForbiddenError(
      "This operation is for people: it needs a dashboard user's access token with the admin role, not an API key or OAuth client.",
    );
  }
  if (caller.user?.role !== "admin") {
    throw new ForbiddenError(`This operation needs the admin role; the user's role is ${caller.user?.role}.`);
  }
}

export function createUsersService({
  users,
  organizations,
  transaction,
  publicOrigin,
  now = () => new Date(),
  forgetCredential = () => {},
}: UsersServiceDependencies) {
  /** Members have no environment: an entry about one names none. */
  const memberRecord = (user: User): ChangedRecord => ({
    organizationId: user.organizationId,
    environment: null,
    type: "member",
    id: user.id,
  });

  /** A one-time link: the token for the URL, and what is stored of it (only its hash). */
  function newSignInLink() {
    const token = crypto.randomBytes(32).toString("base64url");
    // Issued and expiring by one reading of the clock: the link lives exactly its time.
    const createdAt = now();
    const expiresAt = new Date(createdAt.getTime() + SIGN_IN_LINK_TTL_MS);
    const url = new URL(SIGN_IN_LINK_PATH, publicOrigin);
    url.searchParams.set("token", token);
    return {
      stored: { tokenHash: hashApiKey(token), createdAt, expiresAt },
      signInUrl: url.toString(),
      expiresAt,
    };
  }

  /** A new one-time link for an existing user. */
  async function issueSignInLink(user: User): Promise<Invitation> {
    const { stored, signInUrl, expiresAt } = newSignInLink();
    await transaction(async (writes) => {
      await writes.users.createSignInLink({ ...stored, userId: user.id });
      await auditChange(writes, [memberRecord(user)]);
    });
    return { user, signInUrl, expiresAt };
  }

  /** A new user and their first link, written together. */
  async function invite(organizationId: string, input: { email: unknown; role: unknown; name?: string | null }) {
    const email = checkEmail(input.email);
    const role = checkRole(input.role);
    const existing = await users.findByEmail(organizationId, email);
    if (existing) {
      throw new ConflictError(`The organization already has a member with the email ${existing.email}.`, existing.id);
    }
    const { stored, signInUrl, expiresAt } = newSignInLink();
    const record = { id: newId("usr"), organizationId, email, name: input.name ?? null, role };
    const user = await transaction(async (writes) => {
      const created = await writes.users.createWithSignInLink(record, stored);
      await auditChange(writes, [memberRecord(created)]);
      return created;
    });
    return { user, signInUrl, expiresAt };
  }

  async function usableSignInLink(token: string | undefined) {
    if (!token || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) {
      throw new SignInRefusedError("link-invalid", "This sign-in link is not valid.");
    }
    const link = await users.findSignInLink(hashApiKey(token));
    if (!link) throw new SignInRefusedError("link-invalid", "This sign-in link is not valid.");
    if (link.usedAt) throw new SignInRefusedError("link-used", "This sign-in link has already been used.");
    if (link.expiresAt <= now()) throw new SignInRefusedError("link-expired", "This sign-in link has expired.");
    if (link.user.disabledAt) {
      throw new SignInRefusedError("user-disabled", `The account ${link.user.email} has been disabled.`);
    }
    return link;
  }

  async function setMember(user: User, change: { role?: UserRole; disabled?: boolean }): Promise<User> {
    const demotesAdmin = user.role === "admin" && change.role !== undefined && change.role !== "admin";
    const disablesAdmin = user.role === "admin" && change.disabled === true && user.disabledAt === null;
    if ((demotesAdmin || disablesAdmin) && user.disabledAt === null) {
      const admins = await users.countEnabledAdmins(user.organizationId);
      if (admins <= 1) {
        throw new ConflictError(
          `${user.email} is the organization's last admin; make another member admin first.`,
          user.id,
        );
      }
    }
    const disabledAt = change.disabled === undefined ? undefined : change.disabled ? (user.disabledAt ?? now()) : null;
    const updated = await transaction(async (writes) => {
      const changed = await writes.users.update(user.id, { role: change.role, disabledAt, updatedAt: now() });
      // A disabled person is signed out everywhere at once (their tokens name the session).
      if (change.disabled) await writes.sessions.deleteForUser(user.id);
      await auditChange(writes, [memberRecord(changed)]);
      return changed;
    });
    if (change.disabled) forgetCredential(user.id);
    return updated;
  }

  return {
    issueSignInLink,

    /** The CLI: a new user with a sign-in link, or a fresh link for an existing enabled user. */
    async inviteUser(input: { organizationSlug: string; email: string; role: string; name?: string | null }) {
      const organization = await organizations.findBySlug(input.organizationSlug);
      if (!organization) throw notFound.organizationSlug(input.organizationSlug);
      const existing = await users.findByEmail(organization.id, checkEmail(input.email));
      if (existing) {
        if (existing.disabledAt) throw new ConflictError(`${existing.email} is disabled.`, existing.id);
        return { ...(await issueSignInLink(existing)), created: false };
      }
      return { ...(await invite(organization.id, input)), created: true };
    },

    async listUsers(organizationSlug: string, page: Page): Promise<PageResult<MemberView>> {
      const organization = await organizations.findBySlug(organizationSlug);
      if (!organization) throw notFound.organizationSlug(organizationSlug);
      const { items, total, next } = await users.listPage(organization.id, page);
      return { items: items.map(memberView), total, next };
    },

    /** The CLI: disables any user by id. */
    async disableUser(id: string): Promise<MemberView> {
      const user = await users.findById(id);
      if (!user) throw notFound.user(id);
      return memberView(await setMember(user, { disabled: true }));
    },

    /**
     * Just-in-time provisioning of a federated sign-in: creates the user on the first sign-in (one
     * statement, INSERT … ON CONFLICT on the organization and the lower-cased email, so concurrent
     * first sign-ins create exactly one user) and updates the name on later ones. `role` is the role
     * the connection maps the provider's values to, or null when it maps none (no role claim, or no
     * mapped value): a new user then gets `viewer`, an existing one keeps their role. A mapped role
     * that differs is given with an audit entry (operationId `signIn`), except that the last enabled
     * admin is never demoted. A disabled user is refused and left unchanged.
     */
    async provisionFederatedUser(input: {
      organizationId: string;
      email: string;
      name?: string | null;
      role: UserRole | null;
      requestId?: string | null;
    }): Promise<User> {
      const email = checkEmail(input.email);
      const role = input.role === null ? null : checkRole(input.role);
      const name = input.name?.trim() || null;
      const at = now();
      // A user created by the sign-in is audited with the creation (the member is actor and target).
      const { user, disabled, created } = await transaction(async (writes) => {
        const outcome = await writes.users.upsertFederated(
          { id: newId("usr"), organizationId: input.organizationId, email, name, role: role ?? DEFAULT_FEDERATED_ROLE },
          at,
        );
        if (outcome.created) {
          const origin = {
            actor: { kind: "user" as const, id: outcome.user.id },
            actorName: outcome.user.name ?? outcome.user.email,
            operationId: "signIn",
            requestId: input.requestId ?? null,
            clientRequestId: null,
          };
          await appendEntries(writes, origin, [memberRecord(outcome.user)]);
        }
        return outcome;
      });
      if (disabled) throw new SignInRefusedError("user-disabled", `The account ${user.email} has been disabled.`);
      if (created || role === null || role === user.role) return user;
      const audit = { id: newId("aud"), actorName: user.name ?? user.email, requestId: input.requestId ?? null };
      const { changed } = await users.changeRoleAtSignIn(user.id, role, audit, at);
      return changed ? { ...user, role, updatedAt: at } : user;
    },

    /** Whether a one-time link would sign someone in, without using it: its user, or a refusal saying why. */
    checkSignInLink(token: string | undefined): Promise<User> {
      return usableSignInLink(token).then((link) => link.user);
    },

    /** Consumes a one-time link: the user it signs in, or a refusal saying why. */
    async consumeSignInLink(token: string | undefined): Promise<User> {
      const link = await usableSignInLink(token);
      if (!(await users.consumeSignInLink(link.tokenHash, now()))) {
        throw new SignInRefusedError("link-used", "This sign-in link has already been used.");
      }
      return link.user;
    },

    listMembers(caller: Credential, page: Page): Promise<PageResult<MemberView>> {
      requireAdminUser(caller);
      return users.listPage(caller.organizationId, page).then(({ items, total, next }) => ({
        items: items.map(memberView),
        total,
        next,
      }));
    },

    async inviteMember(caller: Credential, input: { email: string; role: string; name?: string | null }) {
      requireAdminUser(caller);
      const invitation = await invite(caller.organizationId, input);
      return { member: memberView(invitation.user), signInUrl: invitation.signInUrl, expiresAt: invitation.expiresAt };
    },

    /** A new one-time sign-in link for a member of the caller's organization (an earlier link stays valid until it expires). */
    async issueMemberSignInLink(caller: Credential, id: string) {
      requireAdminUser(caller);
      const user = await users.findById(id);
      if (!user || user.organizationId !== caller.organizationId) throw notFound.user(id);
      if (user.disabledAt) throw new ConflictError(`${user.email} is disabled; enable them first.`, user.id);
      const link = await issueSignInLink(user);
      return { member: memberView(link.user), signInUrl: link.signInUrl, expiresAt: link.expiresAt };
    },

    async updateMember(caller: Credential, id: string, change: { role?: string; disabled?: boolean }) {
      requireAdminUser(caller);
      const user = await users.findById(id);
      if (!user || user.organizationId !== caller.organizationId) throw notFound.user(id);
      const role = change.role === undefined ? undefined : checkRole(change.role);
      return memberView(await setMember(user, { role, disabled: change.disabled }));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
