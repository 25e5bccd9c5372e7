// The rules of single sign-on connections that need no protocol: role maps, the role a person
// gets, which connection an email address finds, which addresses belong to a domain.
import { expect } from "chai";
import {
  createSsoService,
  emailInDomain,
  isAllowedProviderUrl,
  parseRoleMap,
  roleFromValues,
} from "../../src/services/sso.ts";
import type { Repositories } from "../../src/repositories/index.ts";
import { SecretBox } from "../../src/kernel/secret-box.ts";
import { ProblemError } from "../../src/kernel/errors.ts";
import { serviceProviderUrls } from "../../src/dashboard/server/sso/urls.ts";

describe("sso service rules", () => {
  it("parses a role map and refuses an entry without a value", () => {
    expect(parseRoleMap(" staff=contributor, it admins=admin ,")).to.deep.equal({
      staff: "contributor",
      "it admins": "admin",
    });
    // The role follows the last "=", so a value may contain "=" (not ",", which separates pairs).
    expect(parseRoleMap("dept=math=contributor")).to.deep.equal({ "dept=math": "contributor" });
    expect(() => parseRoleMap("=admin")).to.throw(ProblemError);
  });

  it("gives the highest mapped role, and viewer when nothing maps", () => {
    const map = { student: "viewer", staff: "contributor", "it-admins": "admin" };
    expect(roleFromValues(map, ["staff", "it-admins"])).to.equal("admin");
    expect(roleFromValues(map, "staff")).to.equal("contributor");
    // No mapped value: no role from the provider (a new user is a viewer, an existing one keeps theirs).
    expect(roleFromValues(map, ["alumni"])).to.equal(null);
    expect(roleFromValues(map, undefined)).to.equal(null);
    expect(roleFromValues(map, [42, { staff: true }])).to.equal(null);
    expect(roleFromValues({}, ["staff"])).to.equal(null);
  });

  it("accepts addresses of the domain and its subdomains only", () => {
    expect(emailInDomain("ada@example.edu", "example.edu")).to.equal(true);
    expect(emailInDomain("ada@med.example.edu", "example.edu")).to.equal(true);
    expect(emailInDomain("ada@badexample.edu", "example.edu")).to.equal(false);
    expect(emailInDomain("example.edu", "example.edu")).to.equal(false);
  });

  it("allows plain http only for a loopback provider", () => {
    expect(isAllowedProviderUrl("https://login.example.edu/")).to.equal(true);
    expect(isAllowedProviderUrl("http://127.0.0.1:4000")).to.equal(true);
    expect(isAllowedProviderUrl("http://login.example.edu/")).to.equal(false);
    expect(isAllowedProviderUrl("not a url")).to.equal(false);
  });

  it("derives every service provider address from the public origin", () => {
    expect(serviceProviderUrls("https://equivalency.example.edu")).to.deep.equal({
      oidcRedirectUri: "https://equivalency.example.edu/dashboard/auth/oidc/callback",
      samlAcsUrl: "https://equivalency.example.edu/dashboard/auth/saml/acs",
      samlEntityId: "https://equivalency.example.edu/dashboard/auth/saml/metadata",
      samlMetadataUrl: "https://equivalency.example.edu/dashboard/auth/saml/metadata",
    });
  });

  it("finds the connection of an address's domain or of a parent domain, and says what to do without one", async () => {
    const looked: string[][] = [];
    const connection = { id: "sso_1", domain: "example.edu" };
    const parent = { id: "sso_0", domain: "edu" };
    const sso = {
      findByDomains: async (domains: string[]) => {
        looked.push(domains);
        return [parent, connection].filter((c) => domains.includes(c.domain));
      },
    } as unknown as Repositories["sso"];
    const transaction = () => Promise.reject(new Error("looking up a connection writes nothing"));
    const service = createSsoService({ sso, transaction }, new SecretBox(Buffer.alloc(32, 7)));
    // The closest domain wins; one query whatever the number of labels.
    expect(await service.connectionForEmail("Ada@Student.Example.EDU")).to.equal(connection);
    // A top-level domain alone is never a sign-in domain.
    expect(looked).to.deep.equal([["student.example.edu", "example.edu"]]);
    const deep = `x@${"a.".repeat(120)}example.edu`;
    looked.length = 0;
    expect(await service.connectionForEmail(deep)).to.equal(connection);
    expect(looked).to.have.length(1);
    looked.length = 0;
    await service.connectionForEmail(`x@${"a.".repeat(200)}edu`).catch(() => undefined);
    expect(looked, "a name longer than 253 characters is no domain: no query").to.deep.equal([]);
    const refused = await service.connectionForEmail("bo@elsewhere.org").catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(ProblemError);
    expect((refused as ProblemError).slug).to.equal("no-sign-in-connection");
    expect((refused as ProblemError).message).to.contain("sign-in link");
  });
});
