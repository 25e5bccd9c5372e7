// A one-time sign-in link as `npm run cli -- users invite` prints it, pointed at the test server.
import type { TestApp } from "../helpers/app.ts";

export async function signInLink(
  t: TestApp,
  origin: string,
  invite: { email: string; role: "viewer" | "contributor" | "admin" },
): Promise<string> {
  const { signInUrl } = await t.app.context.services.users.inviteUser({ organizationSlug: "acme", ...invite });
  const url = new URL(signInUrl);
  return `${origin}${url.pathname}${url.search}`;
}
