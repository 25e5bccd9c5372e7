// The browser side of sign-in: the session (GET /dashboard/auth/session), short-lived API
// tokens for it (POST /dashboard/auth/token, renewed before they expire), sign-out.
export type Role = "viewer" | "contributor" | "admin";
export type Environment = "live" | "sandbox";

export interface Session {
  user: { id: string; email: string; name: string | null; role: Role };
  organization: { id: string; slug: string; name: string };
  csrfToken: string;
}

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  errors?: { pointer: string; message: string }[];
}

export class DashboardError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problem: Problem | null,
  ) {
    super(message);
  }
}

async function problemOf(response: Response): Promise<Problem | null> {
  try {
    return (await response.json()) as Problem;
  } catch {
    return null;
  }
}

async function failure(response: Response, fallback: string): Promise<DashboardError> {
  const problem = await problemOf(response);
  return new DashboardError(problem?.detail ?? problem?.title ?? fallback, response.status, problem);
}

/** The signed-in session, or null when there is none (401). */
export async function loadSession(): Promise<Session | null> {
  const response = await fetch("/dashboard/auth/session", { credentials: "same-origin" });
  if (response.status === 401) return null;
  if (!response.ok) throw await failure(response, `The session could not be read (${response.status}).`);
  return (await response.json()) as Session;
}

/** Asks for the identity provider of the email's domain; answers the URL to go to. */
export async function startSignIn(email: string): Promise<string> {
  const response = await fetch("/dashboard/auth/start", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email }),
  });
  if (!response.ok) throw await failure(response, `Sign-in could not start (${response.status}).`);
  return ((await response.json()) as { redirectUrl: string }).redirectUrl;
}

export async function signOut(session: Session): Promise<void> {
  const response = await fetch("/dashboard/auth/sign-out", {
    method: "POST",
    credentials: "same-origin",
    headers: { "X-CSRF-Token": session.csrfToken },
  });
  if (!response.ok && response.status !== 401) throw await failure(response, "Signing out failed.");
}

interface TokenResponse {
  access_token: string;
  expires_in: number;
}

/** Renew this long before expiry (or at 80 % of a shorter lifetime). */
const RENEW_MARGIN_MS = 60_000;

/**
 * Access tokens of one session for one environment. A token is fetched on first use and
 * renewed ahead of its expiry; `invalidate` forgets it (after a 401).
 */
export class TokenSource {
  private token: string | null = null;
  private renewAt = 0;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly session: Session,
    readonly environment: Environment,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async get(): Promise<string> {
    if (this.token && this.now() < this.renewAt) return this.token;
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  invalidate() {
    this.token = null;
  }

  private async fetchToken(): Promise<string> {
    const response = await fetch("/dashboard/auth/token", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": this.session.csrfToken },
      body: JSON.stringify({ environment: this.environment }),
    });
    if (!response.ok) throw await failure(response, `No access token for the dashboard (${response.status}).`);
    const body = (await response.json()) as TokenResponse;
    const lifetimeMs = body.expires_in * 1000;
    this.token = body.access_token;
    this.renewAt = this.now() + Math.min(lifetimeMs - RENEW_MARGIN_MS, lifetimeMs * 0.8);
    return this.token;
  }
}
