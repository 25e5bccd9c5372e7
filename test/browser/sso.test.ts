// Single sign-on in a real browser (Debian chromium, playwright-core): the dashboard's sign-in
// page sends the person to a real OpenID Provider (npm oidc-provider) or to the test SAML IdP
// (signing with a key made for this run), and they come back signed in, provisioned just in
// time with the mapped role. A tampered SAML assertion ends on a clear refusal page. axe-core
// checks the refusal page too; screenshots go to test-results/screenshots/.
import http from "node:http";
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { buildDashboard } from "../../scripts/build-dashboard.ts";
import { parseIdpMetadata } from "../../src/services/sso-metadata.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { startOidcProvider, type OidcTestProvider } from "../helpers/idp/oidc-provider.ts";
import { startSamlIdp, type SamlIdp } from "../helpers/idp/saml-idp.ts";
import { checkPage, launchBrowser, listenOnFreePort, openPage } from "./browser.ts";

describe("dashboard sign-in with OIDC and SAML in the browser", function () {
  this.timeout(120_000);
  let t: TestApp;
  let server: http.Server;
  let origin: string;
  let op: OidcTestProvider;
  let idp: SamlIdp;
  let browser: Browser;
  let samlOrgId: string;

  const usersOf = async (organizationId: string) =>
    (await t.app.context.repositories.users.listPage(organizationId, { limit: 100, offset: 0 })).items;

  before(async function () {
    // A fresh migrated database can take long on a loaded machine; the steps themselves stay short.
    this.timeout(300_000);
    await buildDashboard();
    server = http.createServer();
    origin = await listenOnFreePort(server);
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
    samlOrgId = (await t.otherOrganization("saml-college")).id;
    await sso.addSamlConnection({
      organizationId: samlOrgId,
      domain: "saml.example.edu",
      metadata: await parseIdpMetadata(idp.metadataXml),
      roleAttribute: "eduPersonAffiliation",
      roleMap: { staff: "contributor" },
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await op?.close();
    await idp?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  async function signIn(email: string) {
    const watched = await openPage(browser);
    const { page } = watched;
    await page.goto(`${origin}/dashboard/`);
    await page.getByRole("heading", { level: 1, name: "Sign in to the dashboard" }).waitFor();
    await page.getByLabel("Email address").fill(email);
    await page.getByRole("button", { name: "Continue" }).click();
    return watched;
  }

  it("signs in through the OpenID Provider (code flow with PKCE) and provisions the person with the mapped role", async () => {
    op.setUser({ sub: "ada", email: "ada@oidc.example.edu", name: "Ada Lovelace", claims: { groups: ["staff"] } });
    const { page, context, problems } = await signIn("ada@oidc.example.edu");
    try {
      await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
      expect(page.url()).to.equal(`${origin}/dashboard/`);
      expect(await page.locator(".who").textContent()).to.equal("Ada Lovelace (contributor)");
      const provisioned = (await usersOf(t.organizationId)).filter((u) => u.email === "ada@oidc.example.edu");
      expect(provisioned.map((u) => u.role)).to.deep.equal(["contributor"]);
      // The session works for the API: the page lists equivalencies through a token of the session.
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Equivalencies" }).click();
      await page.getByText("No equivalency matches these filters.").waitFor();
      expect(problems).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it("signs in through the SAML IdP (signed assertion posted to the ACS) and provisions the person", async () => {
    idp.setUser({
      email: "grace@saml.example.edu",
      name: "Grace Hopper",
      attributes: { eduPersonAffiliation: "staff" },
    });
    const { page, context, problems } = await signIn("grace@saml.example.edu");
    try {
      await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
      expect(await page.locator(".brand").textContent()).to.equal("saml-college");
      expect(await page.locator(".who").textContent()).to.equal("Grace Hopper (contributor)");
      const provisioned = (await usersOf(samlOrgId)).filter((u) => u.email === "grace@saml.example.edu");
      expect(provisioned).to.have.length(1);
      expect(problems).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it("ends on a clear refusal page, with a way back, when the SAML assertion was tampered with", async () => {
    idp.setUser({ email: "mallory@saml.example.edu", name: "Mallory" });
    idp.behaviour = { tamper: true };
    const { page, context } = await signIn("mallory@saml.example.edu");
    try {
      await page.waitForURL(`${origin}/dashboard/auth/saml/acs`);
      const back = page.getByRole("link", { name: /dashboard|sign in|back/i }).first();
      await back.waitFor();
      expect(await back.getAttribute("href")).to.equal("/dashboard/");
      await checkPage(page, "sso-refused");
      expect((await usersOf(samlOrgId)).map((u) => u.email)).not.to.include("mallory@saml.example.edu");
    } finally {
      idp.behaviour = {};
      await context.close();
    }
  });
});
