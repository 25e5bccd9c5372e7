// Dashboard users for tests: a user of the test organization with a role, a live session, and
// the access token the dashboard would obtain for it (POST /dashboard/auth/token does the same).
import type { UserRole } from "../../generated/prisma/client.ts";
import type { Environment } from "../../src/services/types.ts";
import type { TestApp } from "./app.ts";

export interface TestUser {
  id: string;
  email: string;
  sessionId: string;
  /** The session cookie's value. */
  cookie: string;
  token: string;
}

let counter = 0;

export async function createUserWithToken(
  t: TestApp,
  role: UserRole,
  options: { environment?: Environment; organizationId?: string; email?: string } = {},
): Promise<TestUser> {
  const { users, dashboardSessions } = t.app.context.services;
  const organizationId = options.organizationId ?? t.organizationId;
  counter += 1;
  const user = await users.provisionFederatedUser({
    organizationId,
    email: options.email ?? `${role}${counter}@acme.edu`,
    name: `Test ${role} ${counter}`,
    role,
  });
  const session = await dashboardSessions.startSession(user.id);
  const { access_token } = await t.app.accessTokens.issueUserToken({
    userId: user.id,
    organizationId,
    role,
    sessionId: session.sessionId,
    environment: options.environment ?? "live",
  });
  return { id: user.id, email: user.email, sessionId: session.sessionId, cookie: session.token, token: access_token };
}
