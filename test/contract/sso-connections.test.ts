// listSsoConnections: an admin user reads the organization's single sign-on connections, oldest
// first, never a secret; API keys and non-admin users are refused.
import { expect } from "chai";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { expectContract, expectProblem } from "../helpers/contract.ts";
import { createUserWithToken, type TestUser } from "../helpers/people.ts";
import { startSamlIdp, type SamlIdp } from "../helpers/idp/saml-idp.ts";
import { parseIdpMetadata } from "../../src/services/sso-metadata.ts";

describe("sign-in connections (listSsoConnections)", () => {
  let t: TestApp;
  let admin: TestUser;
  let idp: SamlIdp;
  const clientSecret = "oidc-client-secret-that-must-never-be-shown";

  before(async function () {
    this.timeout(300_000);
    t = await createTestApp();
    admin = await createUserWithToken(t, "admin");
    idp = await startSamlIdp();
    const { sso } = t.app.context.services;
    await sso.addOidcConnection({
      organizationId: t.organizationId,
      domain: "acme.edu",
      issuer: "https://login.acme.edu/",
      clientId: "dashboard",
      clientSecret,
      roleClaim: "groups",
      roleMap: { registrar: "contributor" },
    });
    await sso.addSamlConnection({
      organizationId: t.organizationId,
      domain: "college.acme.edu",
      metadata: await parseIdpMetadata(idp.metadataXml),
    });
    const other = await t.otherOrganization("sso-other");
    await sso.addOidcConnection({
      organizationId: other.id,
      domain: "other.edu",
      issuer: "https://login.other.edu/",
      clientId: "x",
      clientSecret: "y",
    });
  });
  after(async () => {
    await idp?.close();
    await t?.close();
  });

  it("listSsoConnections answers an admin's token with the organization's connections, oldest first, without secrets", async () => {
    const response = await t.http.get("/api/v1/sso-connections").set(bearer(admin.token));
    await expectContract(response, 200);
    const [oidc, saml] = response.body.data;
    expect(response.body.data.map((c: { domain: string }) => c.domain)).to.deep.equal(["acme.edu", "college.acme.edu"]);
    expect(oidc).to.include({ protocol: "oidc", issuer: "https://login.acme.edu/", clientId: "dashboard" });
    expect(oidc.roleMap).to.deep.equal({ registrar: "contributor" });
    expect(saml).to.include({ protocol: "saml", issuer: idp.entityId, ssoUrl: idp.ssoUrl, roleClaim: null });
    expect(saml.signingCertificates[0].fingerprintSha256).to.match(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(JSON.stringify(response.body)).to.not.contain(clientSecret).and.not.contain("v1:");
    expect(response.headers["x-total-count"]).to.equal("2");
  });

  it("listSsoConnections pages with limit and offset", async () => {
    const response = await t.http.get("/api/v1/sso-connections?limit=1&offset=1").set(bearer(admin.token));
    await expectContract(response, 200);
    expect(response.body.data.map((c: { domain: string }) => c.domain)).to.deep.equal(["college.acme.edu"]);
    expect(response.body.pagination).to.include({ total: 2, limit: 1, offset: 1, returned: 1 });
  });

  it("listSsoConnections answers 403 to API keys and to contributor and viewer tokens", async () => {
    const contributor = await createUserWithToken(t, "contributor");
    const viewer = await createUserWithToken(t, "viewer");
    for (const credential of [t.keys.live, contributor.token, viewer.token]) {
      const response = await t.http.get("/api/v1/sso-connections").set(bearer(credential));
      await expectContract(response, 403);
      expectProblem(response, "forbidden");
    }
  });
});
