// Dashboard sessions: stored server-side, found by the SHA-256 of the cookie value.
import type { Executor } from "./executor.ts";
import type { DashboardSession, Organization, User } from "../../generated/prisma/client.ts";

export type SessionWithUser = DashboardSession & { user: User & { organization: Organization } };

export function createSessionsRepository(db: Executor) {
  return {
    create(record: {
      id: string;
      tokenHash: string;
      userId: string;
      csrfToken: string;
      createdAt: Date;
      lastSeenAt: Date;
      absoluteExpiresAt: Date;
    }): Promise<DashboardSession> {
      return db.dashboardSession.create({ data: record });
    },

    findByTokenHash(tokenHash: string): Promise<SessionWithUser | null> {
      return db.dashboardSession.findUnique({
        where: { tokenHash },
        include: { user: { include: { organization: true } } },
      });
    },

    findById(id: string): Promise<SessionWithUser | null> {
      return db.dashboardSession.findUnique({
        where: { id },
        include: { user: { include: { organization: true } } },
      });
    },

    async touch(id: string, lastSeenAt: Date): Promise<void> {
      await db.dashboardSession.updateMany({ where: { id }, data: { lastSeenAt } });
    },

    async delete(id: string): Promise<void> {
      await db.dashboardSession.deleteMany({ where: { id } });
    },

    /** Ends every session of a user (disabled users are signed out everywhere). */
    async deleteForUser(userId: string): Promise<void> {
      await db.dashboardSession.deleteMany({ where: { userId } });
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
