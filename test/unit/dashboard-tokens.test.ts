// The dashboard's access tokens in the browser (src/dashboard/app/session.ts): fetched once for
// concurrent callers, with the session's CSRF token and the environment, renewed before expiry.
import { expect } from "chai";
import { type Session, TokenSource } from "../../src/dashboard/app/session.ts";

const session: Session = {
  user: { id: "usr_1", email: "a@acme.example", name: null, role: "admin" },
  organization: { id: "org_1", slug: "acme", name: "Acme" },
  csrfToken: "csrf-123",
};

describe("dashboard: access tokens of the session", () => {
  const realFetch = globalThis.fetch;
  let requests: { url: string; init: RequestInit }[];
  let now: number;

  beforeEach(() => {
    requests = [];
    now = 1_000_000;
    globalThis.fetch = (async (url: string, init: RequestInit) => {
      requests.push({ url, init });
      return new Response(JSON.stringify({ access_token: `token-${requests.length}`, expires_in: 300 }), {
        status: 200,
        headers: { "Content-Type": "application/json" },
      });
    }) as typeof fetch;
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it("asks POST /dashboard/auth/token once for concurrent callers, with the CSRF token and the environment", async () => {
    const tokens = new TokenSource(session, "sandbox", () => now);
    const [a, b] = await Promise.all([tokens.get(), tokens.get()]);
    expect([a, b]).to.deep.equal(["token-1", "token-1"]);
    expect(requests).to.have.length(1);
    expect(requests[0].url).to.equal("/dashboard/auth/token");
    expect(requests[0].init.method).to.equal("POST");
    expect((requests[0].init.headers as Record<string, string>)["X-CSRF-Token"]).to.equal("csrf-123");
    expect(JSON.parse(requests[0].init.body as string)).to.deep.equal({ environment: "sandbox" });
  });

  it("keeps the token until a minute before it expires, then renews it", async () => {
    const tokens = new TokenSource(session, "live", () => now);
    expect(await tokens.get()).to.equal("token-1");
    now += 239_000;
    expect(await tokens.get()).to.equal("token-1");
    now += 1_000;
    expect(await tokens.get()).to.equal("token-2");
    expect(requests).to.have.length(2);
  });

  it("fetches a new token after invalidate (a 401 from the API)", async () => {
    const tokens = new TokenSource(session, "live", () => now);
    await tokens.get();
    tokens.invalidate();
    expect(await tokens.get()).to.equal("token-2");
  });

  it("fails with the problem's detail when the session cannot have a token", async () => {
    globalThis.fetch = (async () =>
      new Response(JSON.stringify({ title: "Forbidden", detail: "needs the CSRF token" }), {
        status: 403,
      })) as typeof fetch;
    const tokens = new TokenSource(session, "live", () => now);
    let caught: unknown;
    await tokens.get().catch((error) => (caught = error));
    expect((caught as Error).message).to.equal("needs the CSRF token");
    expect((caught as { status: number }).status).to.equal(403);
  });
});
