// The dashboard's sign-in routes (outside openapi.yaml): one-time links, the session cookie and its
// rules, idle and absolute expiry, CSRF on every state-changing route, the access token the
// session obtains for the API, sign-out, and the HTML refusal pages.
import { expect } from "chai";
import { decodeJwt } from "jose";
import type { Response } from "supertest";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { authErrorHtml } from "../../src/dashboard/server/error-page.ts";
import { loadConfig, ConfigError } from "../../src/kernel/config.ts";

function sessionCookie(response: Response, name = "svc_session"): string {
  const header = ([] as string[]).concat(response.headers["set-cookie"] ?? []);
  const cookie = header.find((c) => c.startsWith(`${name}=`));
  if (!cookie) throw new Error(`no ${name} cookie in ${JSON.stringify(header)}`);
  return cookie;
}

describe("dashboard sign-in: links, sessions, CSRF, tokens, sign-out", () => {
  let t: TestApp;

  async function linkFor(email: string, role = "admin"): Promise<string> {
    const invitation = await t.app.context.services.users.inviteUser({ organizationSlug: "acme", email, role });
    const url = new URL(invitation.signInUrl);
    return `${url.pathname}${url.search}`;
  }

  /** What the link's page posts when its button is pressed (same-origin, as the browser sends it). */
  function useLink(link: string) {
    const token = new URL(link, "http://x").searchParams.get("token") ?? "";
    return t.http.post("/dashboard/auth/link").set("Sec-Fetch-Site", "same-origin").type("form").send({ token });
  }

  /** Signs in through a fresh link; answers the cookie pair to send and the CSRF token. */
  async function signIn(email: string, role = "admin") {
    const response = await useLink(await linkFor(email, role));
    const cookie = sessionCookie(response).split(";")[0];
    const session = await t.http.get("/dashboard/auth/session").set("Cookie", cookie);
    return { cookie, csrf: session.body.csrfToken as string, session };
  }

  before(async () => {
    t = await createTestApp({ SVC_DASHBOARD_SESSION_IDLE: "30m", SVC_DASHBOARD_SESSION_ABSOLUTE: "12h" });
  });
  after(() => t.close());

  it("POST /dashboard/auth/link (the link page's button) signs in: 303 to /dashboard/ with an HttpOnly, SameSite=Lax session cookie", async () => {
    const response = await useLink(await linkFor("first@acme.edu"));
    expect(response.status).to.equal(303);
    expect(response.headers.location).to.equal("/dashboard/");
    const cookie = sessionCookie(response);
    expect(cookie).to.match(/^svc_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).to.contain("HttpOnly").and.contain("SameSite=Lax").and.contain("Path=/");
    expect(cookie).to.not.contain("Secure");
    expect(cookie).to.match(/Max-Age=(43199|43200);/);
    const value = cookie.split(";")[0].split("=")[1];
    const stored = await t.database.prisma.dashboardSession.findMany();
    expect(JSON.stringify(stored)).to.not.contain(value);
  });

  it("GET /dashboard/auth/session describes the user, organization and CSRF token; 401 problem without a session", async () => {
    const { session } = await signIn("describe@acme.edu", "contributor");
    expect(session.status).to.equal(200);
    expect(session.headers["cache-control"]).to.equal("no-store");
    expect(session.body.user).to.include({ email: "describe@acme.edu", role: "contributor" });
    expect(session.body.organization).to.include({ slug: "acme", name: "Acme Community College District" });
    expect(session.body.csrfToken).to.match(/^[A-Za-z0-9_-]{43}$/);
    for (const cookie of [undefined, "svc_session=unknown", "other=1"]) {
      const request = t.http.get("/dashboard/auth/session");
      const response = cookie ? await request.set("Cookie", cookie) : await request;
      expect(response.status).to.equal(401);
      expectProblem(response, "unauthenticated");
    }
  });

  it("a link works once; a bad, used or expired link and a disabled user get a clear HTML page", async () => {
    const link = await linkFor("once@acme.edu");
    expect((await useLink(link)).status).to.equal(303);
    const cases: [string, number, string, string][] = [
      [link, 400, "link-used", "already been used"],
      ["/dashboard/auth/link?token=not-a-real-token-aaaaaaaaaaaaaaaa", 400, "link-invalid", "not valid"],
      ["/dashboard/auth/link", 400, "link-invalid", "not valid"],
    ];
    const expiring = await linkFor("late@acme.edu");
    const token = new URL(expiring, "http://x").searchParams.get("token")!;
    const { hashApiKey } = await import("../../src/auth/api-keys.ts");
    await t.database.prisma.signInLink.update({
      where: { tokenHash: hashApiKey(token) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    cases.push([expiring, 400, "link-expired", "expired"]);
    const disabledLink = await linkFor("disabled@acme.edu", "viewer");
    const user = await t.database.prisma.user.findFirstOrThrow({ where: { email: "disabled@acme.edu" } });
    await t.app.context.services.users.disableUser(user.id);
    cases.push([disabledLink, 403, "user-disabled", "disabled"]);
    for (const [path, status, reason, words] of cases) {
      for (const response of [await t.http.get(path), await useLink(path)]) {
        expect(response.status, path).to.equal(status);
        expect(response.headers["content-type"]).to.match(/^text\/html/);
        expect(response.headers["set-cookie"]).to.equal(undefined);
        expect(response.text).to.contain(`data-reason="${reason}"`).and.contain(words);
        expect(response.text).to.contain('href="/dashboard/"');
      }
    }
  });

  it("GET /dashboard/auth/link only shows a Sign in button (a mail scanner following it uses nothing); a post from another site is refused", async () => {
    const link = await linkFor("scanned@acme.edu", "viewer");
    const token = new URL(link, "http://x").searchParams.get("token")!;
    for (let i = 0; i < 3; i++) {
      const page = await t.http.get(link);
      expect(page.status).to.equal(200);
      expect(page.headers["set-cookie"]).to.equal(undefined);
      expect(page.headers["referrer-policy"]).to.equal("same-origin");
      expect(page.headers["content-security-policy"]).to.contain("form-action 'self'");
      expect(page.text).to.contain('<form method="post" action="/dashboard/auth/link">');
      expect(page.text).to.contain(`name="token" value="${token}"`).and.contain("scanned@acme.edu");
    }
    for (const crossSite of [
      { Origin: "https://attacker.example" },
      { Origin: "null" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site", Origin: "https://other.acme.example" },
    ]) {
      const refused = await t.http.post("/dashboard/auth/link").set(crossSite).type("form").send({ token });
      expect(refused.status).to.equal(403);
      expect(refused.text).to.contain('data-reason="cross-site"');
      expect(refused.headers["set-cookie"]).to.equal(undefined);
    }
    const signedIn = await useLink(link);
    expect(signedIn.status).to.equal(303);
    expect(sessionCookie(signedIn)).to.match(/^svc_session=/);
  });

  it("POST /dashboard/auth/token needs the CSRF token (403 problem without it or with another)", async () => {
    const { cookie } = await signIn("csrf@acme.edu");
    const missing = await t.http.post("/dashboard/auth/token").set("Cookie", cookie).send({ environment: "live" });
    expect(missing.status).to.equal(403);
    expectProblem(missing, "forbidden");
    expect(missing.body.detail).to.contain("X-CSRF-Token");
    const other = await signIn("csrf-other@acme.edu");
    const wrong = await t.http
      .post("/dashboard/auth/token")
      .set("Cookie", cookie)
      .set("X-CSRF-Token", other.csrf)
      .send({ environment: "live" });
    expect(wrong.status).to.equal(403);
    const noSession = await t.http.post("/dashboard/auth/token").set("X-CSRF-Token", other.csrf).send({});
    expect(noSession.status).to.equal(401);
  });

  it("POST /dashboard/auth/token issues a short-lived JWT of the service's issuer that the API accepts as a user", async () => {
    const { cookie, csrf, session } = await signIn("token@acme.edu", "contributor");
    const response = await t.http
      .post("/dashboard/auth/token")
      .set("Cookie", cookie)
      .set("X-CSRF-Token", csrf)
      .send({ environment: "sandbox" });
    expect(response.status).to.equal(200);
    expect(response.headers["cache-control"]).to.equal("no-store");
    expect(response.body).to.include({ token_type: "Bearer", expires_in: 300, scope: "read:public write:contribute" });
    const claims = decodeJwt(response.body.access_token);
    expect(claims).to.include({
      iss: t.app.accessTokens.issuer,
      aud: "course-equivalency-api",
      uid: session.body.user.id,
      org: session.body.organization.id,
      env: "sandbox",
      role: "contributor",
    });
    expect((claims.exp as number) - (claims.iat as number)).to.equal(300);
    const me = await t.http.get("/api/v1/organizations/me").set(bearer(response.body.access_token));
    await expectContract(me, 200);
    expect(me.body.data).to.deep.include({ environment: "sandbox", credential: { id: claims.uid, kind: "user" } });
    const bad = await t.http
      .post("/dashboard/auth/token")
      .set("Cookie", cookie)
      .set("X-CSRF-Token", csrf)
      .send({ environment: "staging" });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors[0].pointer).to.equal("/environment");
  });

  it("POST /dashboard/auth/sign-out needs the CSRF token, ends the session, clears the cookie and refuses its tokens", async () => {
    const { cookie, csrf } = await signIn("bye@acme.edu");
    const token = await t.http
      .post("/dashboard/auth/token")
      .set("Cookie", cookie)
      .set("X-CSRF-Token", csrf)
      .send({ environment: "live" });
    const withoutCsrf = await t.http.post("/dashboard/auth/sign-out").set("Cookie", cookie);
    expect(withoutCsrf.status).to.equal(403);
    const response = await t.http.post("/dashboard/auth/sign-out").set("Cookie", cookie).set("X-CSRF-Token", csrf);
    expect(response.status).to.equal(204);
    expect(sessionCookie(response)).to.match(/^svc_session=;.*Max-Age=0/);
    expect((await t.http.get("/dashboard/auth/session").set("Cookie", cookie)).status).to.equal(401);
    const refused = await t.http.get("/api/v1/institutions").set(bearer(token.body.access_token));
    await expectContract(refused, 401);
  });

  it("a session ends after the idle time without use, and after the absolute time however active", async () => {
    const idle = await signIn("idle@acme.edu");
    const idleUser = await t.database.prisma.user.findFirstOrThrow({ where: { email: "idle@acme.edu" } });
    await t.database.prisma.dashboardSession.updateMany({
      where: { userId: idleUser.id },
      data: { lastSeenAt: new Date(Date.now() - 31 * 60_000) },
    });
    const expired = await t.http.get("/dashboard/auth/session").set("Cookie", idle.cookie);
    expect(expired.status).to.equal(401);
    expect(sessionCookie(expired)).to.contain("Max-Age=0");
    expect(await t.database.prisma.dashboardSession.count({ where: { userId: idleUser.id } })).to.equal(0);

    const active = await signIn("active@acme.edu");
    const activeUser = await t.database.prisma.user.findFirstOrThrow({ where: { email: "active@acme.edu" } });
    await t.database.prisma.dashboardSession.updateMany({
      where: { userId: activeUser.id },
      data: { lastSeenAt: new Date(Date.now() - 29 * 60_000) },
    });
    expect((await t.http.get("/dashboard/auth/session").set("Cookie", active.cookie)).status).to.equal(200);
    await t.database.prisma.dashboardSession.updateMany({
      where: { userId: activeUser.id },
      data: { absoluteExpiresAt: new Date(Date.now() - 1000) },
    });
    expect((await t.http.get("/dashboard/auth/session").set("Cookie", active.cookie)).status).to.equal(401);
  });

  it("answers 405 with Allow for another method on a dashboard route", async () => {
    const response = await t.http.get("/dashboard/auth/token");
    expect(response.status).to.equal(405);
    expect(response.headers.allow).to.equal("POST");
  });

  it("sign-in, the session and sign-out write no audit entry (they are not changes)", async () => {
    const before = await t.database.prisma.auditEntry.count();
    const { cookie, csrf } = await signIn("audit-free@acme.edu");
    await t.http.post("/dashboard/auth/sign-out").set("Cookie", cookie).set("X-CSRF-Token", csrf);
    expect(await t.database.prisma.auditEntry.count()).to.equal(before);
  });
});

describe("dashboard sign-in behind https: the __Host- cookie", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SVC_PUBLIC_ORIGIN: "https://equivalency.example.edu" });
  });
  after(() => t.close());

  it("links use the public origin; the cookie is __Host-svc_session, Secure, HttpOnly, SameSite=Lax, Path=/", async () => {
    const invitation = await t.app.context.services.users.inviteUser({
      organizationSlug: "acme",
      email: "secure@acme.edu",
      role: "viewer",
    });
    expect(invitation.signInUrl).to.match(/^https:\/\/equivalency\.example\.edu\/dashboard\/auth\/link\?token=/);
    const url = new URL(invitation.signInUrl);
    // The page's own origin is the public one: its post is accepted.
    const response = await t.http
      .post(url.pathname)
      .set("Origin", "https://equivalency.example.edu")
      .type("form")
      .send({ token: url.searchParams.get("token") });
    expect(response.status).to.equal(303);
    const cookie = sessionCookie(response, "__Host-svc_session");
    expect(cookie).to.contain("Secure").and.contain("HttpOnly").and.contain("SameSite=Lax").and.contain("Path=/");
    expect(cookie).to.not.contain("Domain=");
    const session = await t.http.get("/dashboard/auth/session").set("Cookie", cookie.split(";")[0]);
    expect(session.status).to.equal(200);
  });
});

describe("dashboard configuration and refusal page", () => {
  it("SVC_PUBLIC_ORIGIN defaults to the listening address and must be an origin; session times are configurable", () => {
    const defaults = loadConfig({ HOST: "127.0.0.1", PORT: "4000" });
    expect(defaults.publicOrigin).to.equal("http://127.0.0.1:4000");
    expect(defaults.dashboard).to.deep.equal({
      sessionIdleMs: 30 * 60_000,
      sessionAbsoluteMs: 12 * 3_600_000,
      tokenTtlSeconds: 300,
    });
    const set = loadConfig({ SVC_PUBLIC_ORIGIN: "https://eq.example.edu/", SVC_DASHBOARD_SESSION_IDLE: "10m" });
    expect(set.publicOrigin).to.equal("https://eq.example.edu");
    expect(set.dashboard.sessionIdleMs).to.equal(600_000);
    for (const env of [
      { SVC_PUBLIC_ORIGIN: "https://eq.example.edu/app" },
      { SVC_PUBLIC_ORIGIN: "ftp://eq.example.edu" },
      { SVC_DASHBOARD_SESSION_IDLE: "2h", SVC_DASHBOARD_SESSION_ABSOLUTE: "1h" },
      { SVC_DASHBOARD_SESSION_IDLE: "soon" },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).to.throw(ConfigError);
    }
  });

  it("renderAuthError's page escapes what it shows and links back to the dashboard", () => {
    const html = authErrorHtml({
      status: 400,
      title: "Bad <script>",
      message: 'The "assertion" & more',
      reason: "x",
    });
    expect(html).to.contain("Bad &lt;script&gt;").and.contain("&quot;assertion&quot; &amp; more");
    expect(html).to.not.contain("<script>");
    expect(html).to.contain('<a href="/dashboard/">');
  });
});
