// A one-time sign-in link as `npm run cli -- users invite` prints it, pointed at the test server.
import type { TestApp } from "../helpers/app.ts";

export async function signInLink(
  t: TestApp,
  origin: string,
  invite: { email: string; role: "viewer" | "contributor" | "admin" },
): Promise<string> {
  const services = t.app.context.services as unknown as Record<string, Record<string, (...args: unknown[]) => unknown>>;
  const result = (await services.users.inviteUser({ organizationId: t.organizationId, ...invite })) as {
    signInUrl: string;
  };
  const url = new URL(result.signInUrl);
  return `${origin}${url.pathname}${url.search}`;
}
