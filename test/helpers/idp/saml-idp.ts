// A SAML 2.0 identity provider for tests, on 127.0.0.1 (port chosen by the OS).
// It reads the AuthnRequest of the HTTP-Redirect binding, "signs in" the person
// configured with setUser (no login form), and answers with the HTML page of the
// HTTP-POST binding: a form that posts the signed Response to the service
// provider's ACS (submitted by script in a browser; an HTTP test reads
// `lastPost`). Signing uses xml-crypto and a key made for this run; the test
// hooks in `behaviour` make the next responses wrong in one way each.
//
//   const idp = await startSamlIdp();           idp.metadataXml → `sso add-saml --metadata`
//   idp.setUser({ email: "ada@example.edu", name: "Ada", attributes: { role: "staff" } });
//   idp.behaviour = { tamper: true };          (unsigned, tamper, audience, expired, recipient, destination, inResponseTo)
//   await idp.close();
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { parseStringPromise, processors } from "xml2js";
import { SignedXml } from "xml-crypto";
import { type TestCertificate, testCertificate } from "./certificate.ts";

const inflateRaw = promisify(zlib.inflateRaw);

export interface SamlTestUser {
  email: string;
  name?: string;
  /** Extra attributes (the role attribute, say); a list gives several AttributeValues. */
  attributes?: Record<string, string | string[]>;
  /** The NameID; the email by default. */
  nameId?: string;
}

export interface SamlIdpBehaviour {
  /** Send the assertion without a signature. */
  unsigned?: boolean;
  /** Change the email attribute after signing (the digest no longer matches). */
  tamper?: boolean;
  /** Put this audience in the assertion instead of the requester's entity id. */
  audience?: string;
  /** Make the assertion's validity window end ten minutes ago. */
  expired?: boolean;
  /** Put this Recipient in the bearer confirmation instead of the ACS URL. */
  recipient?: string;
  /** Put this Destination on the Response instead of the ACS URL (null: none). */
  destination?: string | null;
  /** Answer this request id instead of the real one (null: none). */
  inResponseTo?: string | null;
  /** Name this Issuer in the (validly signed) assertion and response instead of the IdP's entity id. */
  issuer?: string;
}

/** What the IdP's page posts to the service provider. */
export interface SamlPost {
  acsUrl: string;
  SAMLResponse: string;
  RelayState: string;
}

export interface SamlIdp {
  /** http://127.0.0.1:<port> */
  origin: string;
  entityId: string;
  /** The SingleSignOnService (HTTP-Redirect) location. */
  ssoUrl: string;
  /** The IdP metadata (also served at `metadataUrl`). */
  metadataXml: string;
  metadataUrl: string;
  certificate: TestCertificate;
  /** The person signed in by the next requests. */
  setUser(user: SamlTestUser): void;
  behaviour: SamlIdpBehaviour;
  /** The form posted by the last answered request. */
  lastPost: SamlPost | null;
  /** A signed Response to any request id, built without the redirect (for crafted tests). */
  buildResponse(request: { id: string | null; acsUrl: string; spEntityId: string }): string;
  close(): Promise<void>;
}

function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] as string,
  );
}

function escapeHtml(text: string): string {
  return escapeXml(text);
}

const newId = () => `_${crypto.randomBytes(16).toString("hex")}`;

export async function startSamlIdp(options: { entityId?: string } = {}): Promise<SamlIdp> {
  const certificate = await testCertificate("Test SAML IdP");
  let user: SamlTestUser = { email: "person@example.edu", name: "Test Person" };

  function assertionXml(request: { id: string | null; acsUrl: string; spEntityId: string }): string {
    const b = idp.behaviour;
    const now = Date.now();
    const notBefore = new Date(b.expired ? now - 20 * 60_000 : now - 60_000).toISOString();
    const notOnOrAfter = new Date(b.expired ? now - 10 * 60_000 : now + 5 * 60_000).toISOString();
    const issued = new Date(b.expired ? now - 20 * 60_000 : now).toISOString();
    const inResponseTo = b.inResponseTo === undefined ? request.id : b.inResponseTo;
    const irt = inResponseTo ? ` InResponseTo="${escapeXml(inResponseTo)}"` : "";
    const attributes: Record<string, string | string[]> = {
      email: user.email,
      ...(user.name ? { displayName: user.name } : {}),
      ...user.attributes,
    };
    const attributeXml = Object.entries(attributes)
      .map(
        ([name, values]) =>
          `<saml:Attribute Name="${escapeXml(name)}">${(Array.isArray(values) ? values : [values])
            .map((v) => `<saml:AttributeValue>${escapeXml(v)}</saml:AttributeValue>`)
            .join("")}</saml:Attribute>`,
      )
      .join("");
    return (
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${issued}">` +
      `<saml:Issuer>${escapeXml(b.issuer ?? idp.entityId)}</saml:Issuer>` +
      "<saml:Subject>" +
      `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(user.nameId ?? user.email)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${irt} NotOnOrAfter="${notOnOrAfter}" Recipient="${escapeXml(b.recipient ?? request.acsUrl)}"/></saml:SubjectConfirmation>` +
      "</saml:Subject>" +
      `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${escapeXml(b.audience ?? request.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${issued}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement>${attributeXml}</saml:AttributeStatement>` +
      "</saml:Assertion>"
    );
  }

  function sign(assertion: string): string {
    const signer = new SignedXml({
      privateKey: certificate.privateKeyPem,
      publicCert: certificate.certificatePem,
      signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
    });
    signer.addReference({
      xpath: "//*[local-name(.)='Assertion']",
      transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
      digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    });
    signer.computeSignature(assertion, {
      location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: "after" },
    });
    return signer.getSignedXml();
  }

  function buildResponse(request: { id: string | null; acsUrl: string; spEntityId: string }): string {
    const b = idp.behaviour;
    let assertion = assertionXml(request);
    if (!b.unsigned) assertion = sign(assertion);
    if (b.tamper) assertion = assertion.replace(escapeXml(user.email), escapeXml(`intruder+${user.email}`));
    const inResponseTo = b.inResponseTo === undefined ? request.id : b.inResponseTo;
    const irt = inResponseTo ? ` InResponseTo="${escapeXml(inResponseTo)}"` : "";
    const target = b.destination === undefined ? request.acsUrl : b.destination;
    const destination = target === null ? "" : ` Destination="${escapeXml(target)}"`;
    const xml =
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${new Date().toISOString()}"${destination}${irt}>` +
      `<saml:Issuer>${escapeXml(b.issuer ?? idp.entityId)}</saml:Issuer>` +
      '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
      assertion +
      "</samlp:Response>";
    return Buffer.from(xml, "utf8").toString("base64");
  }

  async function answer(url: URL, res: http.ServerResponse) {
    const encoded = url.searchParams.get("SAMLRequest");
    if (!encoded) {
      res.writeHead(400, { "content-type": "text/plain" }).end("SAMLRequest missing");
      return;
    }
    const xml = (await inflateRaw(Buffer.from(encoded, "base64"))).toString("utf8");
    const parsed = await parseStringPromise(xml, { tagNameProcessors: [processors.stripPrefix] });
    const request = parsed.AuthnRequest;
    const acsUrl: string = request.$.AssertionConsumerServiceURL;
    const spEntityId: string = request.Issuer[0]._ ?? request.Issuer[0];
    const post: SamlPost = {
      acsUrl,
      SAMLResponse: buildResponse({ id: request.$.ID, acsUrl, spEntityId }),
      RelayState: url.searchParams.get("RelayState") ?? "",
    };
    idp.lastPost = post;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body><main><h1>Test identity provider</h1><p>Signing in ${escapeHtml(user.email)}…</p>
<form method="post" action="${escapeHtml(acsUrl)}">
<input type="hidden" name="SAMLResponse" value="${escapeHtml(post.SAMLResponse)}">
<input type="hidden" name="RelayState" value="${escapeHtml(post.RelayState)}">
<button type="submit">Continue</button>
</form></main><script>document.forms[0].submit()</script></body></html>`);
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", idp.origin);
    if (url.pathname === "/metadata") {
      res.writeHead(200, { "content-type": "application/samlmetadata+xml" }).end(idp.metadataXml);
      return;
    }
    if (url.pathname === "/sso") {
      answer(url, res).catch((error) => res.writeHead(500).end(String(error)));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = options.entityId ?? `${origin}/metadata`;
  const ssoUrl = `${origin}/sso`;

  const idp: SamlIdp = {
    origin,
    entityId,
    ssoUrl,
    metadataUrl: `${origin}/metadata`,
    metadataXml:
      `<?xml version="1.0" encoding="UTF-8"?>\n<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${escapeXml(entityId)}">` +
      '<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate.certificateBase64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
      "<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>" +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${escapeXml(ssoUrl)}"/>` +
      "</md:IDPSSODescriptor></md:EntityDescriptor>\n",
    certificate,
    setUser(next) {
      user = next;
    },
    behaviour: {},
    lastPost: null,
    buildResponse,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return idp;
}
