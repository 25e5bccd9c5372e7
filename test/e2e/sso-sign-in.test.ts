// Single sign-on end to end over HTTP: the service listens on 127.0.0.1, a real
// OpenID Provider (npm oidc-provider) and a test SAML IdP (signing with a key made
// for this run) listen beside it, and a cookie-keeping client follows every
// redirect itself. Covers the full OIDC and SAML sign-ins with just-in-time
// provisioning, the refusal pages (tampered, unsigned, wrong audience, expired,
// replayed assertion; OIDC state and nonce mismatch) and two concurrent first
// sign-ins creating one user.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { CookieClient } from "../helpers/idp/cookie-client.ts";
import { startOidcProvider, type OidcTestProvider } from "../helpers/idp/oidc-provider.ts";
import { startSamlIdp, type SamlIdp } from "../helpers/idp/saml-idp.ts";
import { parseIdpMetadata } from "../../src/services/sso-metadata.ts";

describe("single sign-on (OIDC and SAML) over HTTP", () => {
  let t: TestApp;
  let server: http.Server;
  let origin: string;
  let op: OidcTestProvider;
  let idp: SamlIdp;
  let samlOrgId: string;

  const users = async (organizationId: string) =>
    (await t.app.context.repositories.users.listPage(organizationId, { limit: 100, offset: 0 })).items;
  const atDashboard = (url: URL) => url.origin === origin && url.pathname === "/dashboard/";

  before(async function () {
    // A fresh database, an OpenID Provider and a SAML IdP with their keys: slow on a busy machine.
    this.timeout(300_000);
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({ SVC_PUBLIC_ORIGIN: origin });
    server.on("request", t.app.koa.callback());

    op = await startOidcProvider({ redirectUris: [`${origin}/dashboard/auth/oidc/callback`] });
    idp = await startSamlIdp();
    const { sso } = t.app.context.services;
    await sso.addOidcConnection({
      organizationId: t.organizationId,
      domain: "oidc.example.edu",
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      roleClaim: "groups",
      roleMap: { staff: "contributor", "it-admins": "admin" },
    });
    const samlOrg = await t.otherOrganization("saml-college");
    samlOrgId = samlOrg.id;
    await sso.addSamlConnection({
      organizationId: samlOrgId,
      domain: "saml.example.edu",
      metadata: await parseIdpMetadata(idp.metadataXml),
      roleAttribute: "eduPersonAffiliation",
      roleMap: { staff: "contributor" },
    });
  });
  after(async () => {
    await op?.close();
    await idp?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  async function session(client: CookieClient) {
    const response = await client.request(`${origin}/dashboard/auth/session`);
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  async function expectRefusal(response: Response | null, status: number, reason: string) {
    expect(response, "the flow should end on a page").to.not.equal(null);
    const html = await response!.text();
    expect(response!.status, html).to.equal(status);
    expect(response!.headers.get("content-type")).to.match(/^text\/html/);
    expect(html.match(/data-reason="([^"]*)"/)?.[1], html).to.equal(reason);
    expect(html).to.contain('href="/dashboard/"');
    return html;
  }

  /** POST /dashboard/auth/start; the IdP URL it answers. */
  async function start(client: CookieClient, email: string): Promise<string> {
    const response = await client.postJson(`${origin}/dashboard/auth/start`, { email });
    const body = (await response.json()) as { redirectUrl: string };
    expect(response.status, JSON.stringify(body)).to.equal(200);
    return body.redirectUrl;
  }

  describe("OIDC (authorization code + PKCE)", () => {
    it("signs a new person in end to end, creating the user with the mapped role, then updates name and role", async () => {
      op.setUser({ sub: "ada", email: "ada@oidc.example.edu", name: "Ada Lovelace", claims: { groups: ["staff"] } });
      const client = new CookieClient();
      const redirectUrl = await start(client, "Ada@OIDC.example.edu");
      const authorize = new URL(redirectUrl);
      expect(authorize.origin).to.equal(op.issuer);
      expect(authorize.searchParams.get("code_challenge_method")).to.equal("S256");
      expect(authorize.searchParams.get("redirect_uri")).to.equal(`${origin}/dashboard/auth/oidc/callback`);
      for (const name of ["state", "nonce", "code_challenge"])
        expect(authorize.searchParams.get(name)).to.be.a("string");

      const { stoppedAt, hops } = await client.follow(redirectUrl, { stop: atDashboard });
      expect(stoppedAt?.href, JSON.stringify(hops)).to.equal(`${origin}/dashboard/`);
      const callback = hops.find((hop) => hop.url.startsWith(`${origin}/dashboard/auth/oidc/callback`));
      expect(callback?.status).to.equal(303);

      const first = await session(client);
      expect(first.status).to.equal(200);
      expect(first.body.user).to.include({ email: "ada@oidc.example.edu", name: "Ada Lovelace", role: "contributor" });
      expect(first.body.organization.id).to.equal(t.organizationId);

      op.setUser({ sub: "ada", email: "ada@oidc.example.edu", name: "Ada King", claims: { groups: ["it-admins"] } });
      const again = new CookieClient();
      await again.follow(await start(again, "ada@oidc.example.edu"), { stop: atDashboard });
      const second = await session(again);
      expect(second.body.user).to.include({ id: first.body.user.id, name: "Ada King", role: "admin" });
      expect((await users(t.organizationId)).filter((u) => u.email === "ada@oidc.example.edu")).to.have.length(1);
    });

    it('refuses an email_verified that is not true (false, or the string "false"), creating nobody', async () => {
      for (const [sub, verified] of [
        ["unverified-bool", false],
        ["unverified-text", "false"],
      ] as const) {
        const email = `${sub}@oidc.example.edu`;
        op.setUser({ sub, email, name: "Unverified", claims: { email_verified: verified } });
        const client = new CookieClient();
        const { response } = await client.follow(await start(client, email), { stop: atDashboard });
        await expectRefusal(response, 401, "email-unverified");
        expect((await users(t.organizationId)).map((u) => u.email)).to.not.include(email);
      }
    });

    it("gives the default role viewer when the role claim maps to nothing", async () => {
      op.setUser({ sub: "bo", email: "bo@oidc.example.edu", name: "Bo", claims: { groups: ["students"] } });
      const client = new CookieClient();
      await client.follow(await start(client, "bo@oidc.example.edu"), { stop: atDashboard });
      expect((await session(client)).body.user).to.include({ email: "bo@oidc.example.edu", role: "viewer" });
    });

    it("refuses a callback whose state is not the one this browser started with (state mismatch), creating nobody", async () => {
      op.setUser({ sub: "eve", email: "eve@oidc.example.edu", name: "Eve" });
      const client = new CookieClient();
      const redirectUrl = new URL(await start(client, "eve@oidc.example.edu"));
      redirectUrl.searchParams.set("state", "forged-state-from-another-browser");
      const { response } = await client.follow(redirectUrl.href, { stop: atDashboard });
      await expectRefusal(response, 400, "state-mismatch");
      expect((await session(client)).status).to.equal(401);
      expect((await users(t.organizationId)).map((u) => u.email)).to.not.include("eve@oidc.example.edu");
    });

    it("refuses an ID token whose nonce is not the one sent (nonce mismatch), creating nobody", async () => {
      op.setUser({ sub: "mallory", email: "mallory@oidc.example.edu", name: "Mallory" });
      const client = new CookieClient();
      const redirectUrl = new URL(await start(client, "mallory@oidc.example.edu"));
      redirectUrl.searchParams.set("nonce", "a-nonce-of-another-sign-in");
      const { response } = await client.follow(redirectUrl.href, { stop: atDashboard });
      await expectRefusal(response, 401, "nonce-mismatch");
      expect((await users(t.organizationId)).map((u) => u.email)).to.not.include("mallory@oidc.example.edu");
    });

    it("refuses a callback replayed after the sign-in was used", async () => {
      op.setUser({ sub: "cy", email: "cy@oidc.example.edu", name: "Cy" });
      const client = new CookieClient();
      const { hops } = await client.follow(await start(client, "cy@oidc.example.edu"), { stop: atDashboard });
      const callback = hops.find((hop) => hop.url.startsWith(`${origin}/dashboard/auth/oidc/callback`))!;
      expect(callback.status).to.equal(303);
      // The same callback again, from a browser holding the same state cookie.
      const state = new URL(callback.url).searchParams.get("state")!;
      const response = await new CookieClient().request(callback.url, {
        headers: { cookie: `svc_sso_state=${state}` },
      });
      await expectRefusal(response, 400, "sign-in-used");
    });
  });

  describe("SAML 2.0 (SP-initiated, signed assertions)", () => {
    beforeEach(() => {
      idp.behaviour = {};
      idp.lastPost = null;
    });

    /** Starts a sign-in and lets the IdP answer; the form it would post. */
    async function samlPost(client: CookieClient, email: string) {
      const redirectUrl = await start(client, email);
      expect(redirectUrl.startsWith(`${idp.ssoUrl}?SAMLRequest=`)).to.equal(true);
      const { response } = await client.follow(redirectUrl);
      expect(response?.status).to.equal(200);
      await response!.text();
      expect(idp.lastPost?.acsUrl).to.equal(`${origin}/dashboard/auth/saml/acs`);
      return idp.lastPost!;
    }

    /** Posts the IdP's form to the ACS from `client`, as its browser would. */
    const postToAcs = (client: CookieClient, post: { acsUrl: string; SAMLResponse: string; RelayState: string }) =>
      client.postForm(post.acsUrl, { SAMLResponse: post.SAMLResponse, RelayState: post.RelayState });

    it("publishes the SP metadata: entity id, ACS URL (HTTP-POST), signed assertions wanted", async () => {
      const response = await new CookieClient().request(`${origin}/dashboard/auth/saml/metadata`);
      expect(response.status).to.equal(200);
      expect(response.headers.get("content-type")).to.match(/^application\/samlmetadata\+xml/);
      const xml = await response.text();
      expect(xml).to.contain(`entityID="${origin}/dashboard/auth/saml/metadata"`);
      expect(xml).to.contain(`Location="${origin}/dashboard/auth/saml/acs"`);
      expect(xml).to.contain("urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST");
      expect(xml).to.contain('WantAssertionsSigned="true"');
    });

    it("signs a new person in end to end, creating the user with the mapped role", async () => {
      idp.setUser({
        email: "grace@saml.example.edu",
        name: "Grace Hopper",
        attributes: { eduPersonAffiliation: ["member", "staff"] },
      });
      const client = new CookieClient();
      const response = await postToAcs(client, await samlPost(client, "grace@saml.example.edu"));
      expect(response.status, await response.clone().text()).to.equal(303);
      expect(response.headers.get("location")).to.equal("/dashboard/");
      const { status, body } = await session(client);
      expect(status).to.equal(200);
      expect(body.user).to.include({ email: "grace@saml.example.edu", name: "Grace Hopper", role: "contributor" });
      expect(body.organization.id).to.equal(samlOrgId);
    });

    it("roles only where mapped: the CLI's only admin stays admin without role attributes and with a lower mapped role; with another admin, the mapped role applies and is audited", async () => {
      const people = t.app.context.services.users;
      const dean = (
        await people.inviteUser({ organizationSlug: "saml-college", email: "dean@saml.example.edu", role: "admin" })
      ).user;
      const signInAs = async (attributes: Record<string, string[]>) => {
        idp.setUser({ email: "dean@saml.example.edu", name: "Dean", attributes });
        const client = new CookieClient();
        const response = await postToAcs(client, await samlPost(client, "dean@saml.example.edu"));
        expect(response.status, await response.clone().text()).to.equal(303);
        return (await session(client)).body.user;
      };
      const roleChanges = async () =>
        (await t.database.prisma.auditEntry.findMany({ where: { operationId: "signIn", targetId: dean.id } })).map(
          (entry) => ({ actorKind: entry.actorKind, actorId: entry.actorId, targetType: entry.targetType }),
        );

      expect(await signInAs({})).to.include({ id: dean.id, role: "admin" });
      expect(await signInAs({ eduPersonAffiliation: ["student"] })).to.include({ role: "admin" });
      // "staff" maps to contributor, but dean is the organization's last admin.
      expect(await signInAs({ eduPersonAffiliation: ["staff"] })).to.include({ role: "admin" });
      expect(await roleChanges()).to.deep.equal([]);

      await people.inviteUser({ organizationSlug: "saml-college", email: "provost@saml.example.edu", role: "admin" });
      expect(await signInAs({ eduPersonAffiliation: ["staff"] })).to.include({ role: "contributor" });
      expect(await roleChanges()).to.deep.equal([{ actorKind: "user", actorId: dean.id, targetType: "member" }]);
    });

    it("accepts a response that names no Destination (the signed assertion's Recipient still is ours)", async () => {
      idp.setUser({ email: "no-destination@saml.example.edu", name: "No Destination" });
      idp.behaviour = { destination: null };
      const client = new CookieClient();
      const post = await samlPost(client, "no-destination@saml.example.edu");
      expect(Buffer.from(post.SAMLResponse, "base64").toString("utf8")).to.not.include("Destination=");
      const response = await client.postForm(post.acsUrl, {
        SAMLResponse: post.SAMLResponse,
        RelayState: post.RelayState,
      });
      expect(response.status, await response.clone().text()).to.equal(303);
      expect((await session(client)).body.user).to.include({ email: "no-destination@saml.example.edu" });
    });

    it("refuses a replayed response (the same response posted again): its RelayState was used up", async () => {
      idp.setUser({ email: "replay@saml.example.edu", name: "Replay" });
      const client = new CookieClient();
      const post = await samlPost(client, "replay@saml.example.edu");
      expect((await postToAcs(client, post)).status).to.equal(303);
      const attacker = new CookieClient();
      await expectRefusal(await postToAcs(attacker, post), 400, "sign-in-used");
      expect((await session(attacker)).status).to.equal(401);
    });

    it("refuses a response posted from a browser that did not start the sign-in (login CSRF: the RelayState is bound to a cookie)", async () => {
      idp.setUser({ email: "attacker@saml.example.edu", name: "Attacker" });
      const attacker = new CookieClient();
      const post = await samlPost(attacker, "attacker@saml.example.edu");
      // The attacker's own valid assertion, posted from the victim's browser (an auto-submitting form).
      const victim = new CookieClient();
      await expectRefusal(await postToAcs(victim, post), 401, "state-mismatch");
      expect((await session(victim)).status).to.equal(401);
      expect((await users(samlOrgId)).map((u) => u.email)).to.not.include("attacker@saml.example.edu");
      // Used up by the refused attempt: not even the browser that started it can finish it now.
      await expectRefusal(await postToAcs(attacker, post), 400, "sign-in-used");
    });

    it("uses the RelayState up when validation fails, so a response cannot be posted again to be verified again", async () => {
      idp.setUser({ email: "tampered-twice@saml.example.edu", name: "Tampered" });
      idp.behaviour = { tamper: true };
      const client = new CookieClient();
      const post = await samlPost(client, "tampered-twice@saml.example.edu");
      await expectRefusal(await postToAcs(client, post), 401, "assertion-tampered");
      // The ACS cleared the state cookie; a browser that kept it is refused before any verification.
      const kept = new CookieClient();
      const again = await kept.request(post.acsUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `svc_saml_state=${post.RelayState}` },
        body: new URLSearchParams({ SAMLResponse: post.SAMLResponse, RelayState: post.RelayState }).toString(),
      });
      await expectRefusal(again, 400, "sign-in-used");
    });

    const refusals: { title: string; behaviour: SamlIdp["behaviour"]; status: number; reason: string }[] = [
      { title: "a tampered assertion", behaviour: { tamper: true }, status: 401, reason: "assertion-tampered" },
      { title: "an unsigned assertion", behaviour: { unsigned: true }, status: 401, reason: "assertion-unsigned" },
      {
        title: "an assertion for another audience",
        behaviour: { audience: "https://another-service.example/sp" },
        status: 401,
        reason: "audience-mismatch",
      },
      { title: "an expired assertion", behaviour: { expired: true }, status: 401, reason: "assertion-expired" },
      {
        title: "an assertion for another recipient",
        behaviour: { recipient: "https://another-service.example/acs" },
        status: 401,
        reason: "recipient-mismatch",
      },
      {
        title: "a response sent to another service (Destination)",
        behaviour: { destination: "https://another-service.example/acs" },
        status: 401,
        reason: "destination-mismatch",
      },
      {
        title: "a response to another request (InResponseTo)",
        behaviour: { inResponseTo: "_another-request" },
        status: 401,
        reason: "in-response-to-mismatch",
      },
      {
        title: "a validly signed assertion that names another issuer",
        behaviour: { issuer: "https://another-idp.example/saml" },
        status: 401,
        reason: "issuer-mismatch",
      },
    ];
    for (const refusal of refusals) {
      it(`refuses ${refusal.title} with a clear page, creating nobody`, async () => {
        const email = `${refusal.reason}@saml.example.edu`;
        idp.setUser({ email, name: "Refused" });
        idp.behaviour = refusal.behaviour;
        const client = new CookieClient();
        const post = await samlPost(client, email);
        const response = await client.postForm(post.acsUrl, {
          SAMLResponse: post.SAMLResponse,
          RelayState: post.RelayState,
        });
        await expectRefusal(response, refusal.status, refusal.reason);
        expect((await session(client)).status).to.equal(401);
        expect((await users(samlOrgId)).map((u) => u.email)).to.not.include(email);
        expect((await users(samlOrgId)).map((u) => u.email)).to.not.include(`intruder+${email}`);
      });
    }

    it("creates exactly one user when two first sign-ins of one person finish at once", async () => {
      idp.setUser({ email: "twice@saml.example.edu", name: "Twice" });
      const [a, b] = [new CookieClient(), new CookieClient()];
      const first = await samlPost(a, "twice@saml.example.edu");
      const second = await samlPost(b, "twice@saml.example.edu");
      const responses = await Promise.all([
        a.postForm(first.acsUrl, { SAMLResponse: first.SAMLResponse, RelayState: first.RelayState }),
        b.postForm(second.acsUrl, { SAMLResponse: second.SAMLResponse, RelayState: second.RelayState }),
      ]);
      expect(responses.map((r) => r.status)).to.deep.equal([303, 303]);
      const [sa, sb] = await Promise.all([session(a), session(b)]);
      expect(sa.body.user.id).to.equal(sb.body.user.id);
      expect((await users(samlOrgId)).filter((u) => u.email === "twice@saml.example.edu")).to.have.length(1);
    });
  });

  it("answers 502 identity-provider-unavailable when the domain's OpenID Provider does not answer", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await t.app.context.services.sso.addOidcConnection({
      organizationId: t.organizationId,
      domain: "down.example.edu",
      issuer: `http://127.0.0.1:${port}`,
      clientId: "x",
      clientSecret: "y",
    });
    const response = await new CookieClient().postJson(`${origin}/dashboard/auth/start`, {
      email: "a@down.example.edu",
    });
    expect(response.status).to.equal(502);
    expect(((await response.json()) as { type: string }).type).to.match(/\/problems\/identity-provider-unavailable$/);
  });

  it("answers 404 no-sign-in-connection for an email domain without single sign-on", async () => {
    const response = await new CookieClient().postJson(`${origin}/dashboard/auth/start`, {
      email: "x@nowhere.example",
    });
    expect(response.status).to.equal(404);
    expect(response.headers.get("content-type")).to.match(/^application\/problem\+json/);
    const problem = (await response.json()) as { type: string; detail: string };
    expect(problem.type).to.match(/\/problems\/no-sign-in-connection$/);
    expect(problem.detail).to.contain("sign-in link");
  });
});
