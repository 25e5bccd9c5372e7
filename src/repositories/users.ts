// Users (people of an organization) and their one-time sign-in links.
import { type Executor, inTransaction } from "./executor.ts";
import type { SignInLink, User, UserRole } from "../../generated/prisma/client.ts";
import { pageOf, type Page } from "./paging.ts";

/** The identity of a user within an organization: the email trimmed and lower-cased. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export interface NewUserRecord {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  role: UserRole;
}

export interface NewSignInLink {
  tokenHash: string;
  userId: string;
  /** When the link was issued (the time its expiry is counted from); the database's clock when absent. */
  createdAt?: Date;
  expiresAt: Date;
}

/** What the upsert of a federated sign-in answers: the user, and whether the row is disabled. */
/** The audit entry of a role a sign-in changed (the repository fills in the rest). */
export interface SignInRoleAudit {
  id: string;
  actorName: string | null;
  requestId: string | null;
}

interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  email_key: string;
  name: string | null;
  role: UserRole;
  disabled_at: Date | null;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function fromRow(row: UserRow): User {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    emailKey: row.email_key,
    name: row.name,
    role: row.role,
    disabledAt: row.disabled_at,
    lastSignInAt: row.last_sign_in_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createUsersRepository(db: Executor) {
  return {
    create(record: NewUserRecord): Promise<User> {
      return db.user.create({ data: { ...record, emailKey: emailKey(record.email) } });
    },

    findById(id: string): Promise<User | null> {
      return db.user.findUnique({ where: { id } });
    },

    findByEmail(organizationId: string, email: string): Promise<User | null> {
      return db.user.findUnique({
        where: { organizationId_emailKey: { organizationId, emailKey: emailKey(email) } },
      });
    },

    /**
     * One statement, atomic under concurrency: inserts the user, or, when the organization already
     * has one with this email (the unique index on organization and lower-cased email), updates its
     * name and role unless it is disabled. Answers the row and whether it was disabled (then unchanged).
     */
    async upsertFederated(
      record: NewUserRecord,
      now: Date,
    ): Promise<{ user: User; disabled: boolean; created: boolean }> {
      // The role is the new user's only: an existing user's role changes through changeRoleAtSignIn.
      const rows = await db.$queryRaw<(UserRow & { created: boolean })[]>`
        INSERT INTO "users" ("id", "organization_id", "email", "email_key", "name", "role", "created_at", "updated_at")
        VALUES (${record.id}, ${record.organizationId}, ${record.email}, ${emailKey(record.email)}, ${record.name},
                ${record.role}::"UserRole", ${now}, ${now})
        ON CONFLICT ("organization_id", "email_key") DO UPDATE
          SET "name" = COALESCE(EXCLUDED."name", "users"."name"), "updated_at" = ${now}
          WHERE "users"."disabled_at" IS NULL
        RETURNING *, ("id" = ${record.id}) AS "created"`;
      if (rows[0]) return { user: fromRow(rows[0]), disabled: false, created: rows[0].created };
      const existing = await this.findByEmail(record.organizationId, record.email);
      if (!existing) throw new Error("federated upsert returned no row and found none");
      return { user: existing, disabled: true, created: false };
    },

    /**
     * Gives an enabled user the role a sign-in's identity provider asserts, with its audit entry, in
     * one statement: unless the user already has it, and never taking the admin role from the
     * organization's last enabled admin. Answers the role before, and whether it changed.
     * The statement checks and changes together; the transaction around it only holds the lock.
     */
    async changeRoleAtSignIn(
      userId: string,
      role: UserRole,
      audit: SignInRoleAudit,
      now: Date,
    ): Promise<{ previous: UserRole | null; changed: boolean }> {
      // Two admins demoted at once must not both see the other as the remaining admin: sign-in role
      // changes of one organization take turns (the lock ends with the transaction), and the
      // statement's snapshot is taken after the lock.
      const rows = await inTransaction(db, async (tx) => {
        await tx.$queryRaw`
          SELECT pg_advisory_xact_lock(hashtext('sign-in roles'), hashtext("organization_id"))::text
          FROM "users" WHERE "id" = ${userId}`;
        return tx.$queryRaw<{ previous: UserRole | null; changed: boolean }[]>`
        WITH "target" AS (
          SELECT "id", "organization_id", "role" AS "previous" FROM "users"
          WHERE "id" = ${userId} AND "disabled_at" IS NULL AND "role" <> ${role}::"UserRole"
        ), "allowed" AS (
          SELECT t.* FROM "target" t
          WHERE t."previous" <> 'admin' OR ${role}::"UserRole" = 'admin' OR EXISTS (
            SELECT 1 FROM "users" o
            WHERE o."organization_id" = t."organization_id" AND o."role" = 'admin' AND o."disabled_at" IS NULL
              AND o."id" <> t."id")
        ), "changed" AS (
          UPDATE "users" u SET "role" = ${role}::"UserRole", "updated_at" = ${now}
          FROM "allowed" a WHERE u."id" = a."id"
          RETURNING u."id", u."organization_id"
        ), "audited" AS (
          INSERT INTO "audit_entries" ("id", "organization_id", "actor_kind", "actor_id", "actor_name", "operation_id",
                                       "target_type", "target_id", "environment", "request_id", "created_at")
          SELECT ${audit.id}, c."organization_id", 'user'::"CredentialKind", c."id", ${audit.actorName}, 'signIn',
                 'member', c."id", NULL, ${audit.requestId}, ${now}
          FROM "changed" c
          RETURNING 1
        )
        SELECT (SELECT "previous" FROM "target") AS "previous", EXISTS (SELECT 1 FROM "audited") AS "changed"`;
      });
      return rows[0] ?? { previous: null, changed: false };
    },

    /** An organization's users, oldest first. */
    listPage(organizationId: string, page: Page) {
      const where = { organizationId };
      return pageOf(
        page,
        [
          ["createdAt", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) => db.user.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.user.count({ where }),
      );
    },

    update(id: string, data: { role?: UserRole; disabledAt?: Date | null; updatedAt: Date }): Promise<User> {
      return db.user.update({ where: { id }, data });
    },

    countEnabledAdmins(organizationId: string): Promise<number> {
      return db.user.count({ where: { organizationId, role: "admin", disabledAt: null } });
    },

    async markSignedIn(id: string, at: Date): Promise<void> {
      await db.user.update({ where: { id }, data: { lastSignInAt: at } });
    },

    async createSignInLink(record: NewSignInLink): Promise<void> {
      await db.signInLink.create({ data: record });
    },

    /** An invited user and their first sign-in link, in one transaction: never a user without a link. */
    async createWithSignInLink(record: NewUserRecord, link: Omit<NewSignInLink, "userId">): Promise<User> {
      return inTransaction(db, async (tx) => {
        const user = await tx.user.create({ data: { ...record, emailKey: emailKey(record.email) } });
        await tx.signInLink.create({ data: { ...link, userId: record.id } });
        return user;
      });
    },

    findSignInLink(tokenHash: string): Promise<(SignInLink & { user: User }) | null> {
      return db.signInLink.findUnique({ where: { tokenHash }, include: { user: true } });
    },

    /** Marks the link used if it is still unused and unexpired; false when another request won. */
    async consumeSignInLink(tokenHash: string, now: Date): Promise<boolean> {
      const { count } = await db.signInLink.updateMany({
        where: { tokenHash, usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now },
      });
      return count === 1;
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
