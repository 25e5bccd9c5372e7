// SAML 2.0 sign-in with @node-saml/node-saml, SP-initiated: the AuthnRequest
// goes out by the HTTP-Redirect binding, the Response comes back by HTTP-POST
// to the assertion consumer service. node-saml verifies the XML signature (the
// assertion must be signed by a certificate of the connection's metadata), the
// issuer, the audience (our entity id), the validity window and InResponseTo
// (against the one request this RelayState sent). This file adds what it leaves
// to the service provider: the Response's Destination (when it names one) and
// the bearer confirmation's Recipient must be our ACS URL, and an assertion id
// is accepted once (remembered until it expires).
import type { CacheProvider, SAML } from "@node-saml/node-saml";
import type { SsoConnection, SsoService, SsoSignIn } from "../../../services/sso.ts";
import type { ServiceProviderUrls } from "./urls.ts";
import { emailFrom, type FederatedIdentity, SignInFailure, textFrom } from "./identity.ts";

/**
 * node-saml (with xml-crypto) and xml2js load with the first SAML request, not with the server:
 * most deployments have no SAML connection (docs/benchmarks.md, memory).
 */
const nodeSaml = () => import("@node-saml/node-saml");

/** Clocks of campus identity providers drift; a minute either way is accepted. */
const CLOCK_SKEW_MS = 60_000;
/** How long an assertion id is remembered when the assertion names no expiry. */
const DEFAULT_ASSERTION_LIFETIME_MS = 24 * 3_600_000;
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

const EMAIL_ATTRIBUTES = ["email", "mail", "urn:oid:0.9.2342.19200300.100.1.3", "emailAddress"];
const NAME_ATTRIBUTES = ["displayName", "urn:oid:2.16.840.1.113730.3.1.241", "name", "cn", "urn:oid:2.5.4.3"];

type XmlNode = { $?: Record<string, string>; _?: string } & Record<string, unknown>;

/** The element's children of that name (xml2js keeps them as arrays, prefixes stripped). */
function children(node: XmlNode | undefined, name: string): XmlNode[] {
  const value = node?.[name];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

async function samlFor(
  connection: SsoConnection,
  urls: ServiceProviderUrls,
  cacheProvider: CacheProvider,
): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await nodeSaml();
  return new SAML({
    entryPoint: connection.samlSsoUrl!,
    callbackUrl: urls.samlAcsUrl,
    issuer: urls.samlEntityId,
    audience: urls.samlEntityId,
    idpIssuer: connection.samlEntityId!,
    idpCert: connection.samlCertificates,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    cacheProvider,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
    digestAlgorithm: "sha256",
  });
}

/** The SP metadata an IdP administrator imports: entity id, ACS (HTTP-POST), signed assertions wanted. */
export async function serviceProviderMetadata(urls: ServiceProviderUrls): Promise<string> {
  const { generateServiceProviderMetadata } = await nodeSaml();
  return generateServiceProviderMetadata({
    issuer: urls.samlEntityId,
    callbackUrl: urls.samlAcsUrl,
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    wantAssertionsSigned: true,
  });
}

export function createSamlSignIn(sso: SsoService, urls: ServiceProviderUrls) {
  return {
    /** The IdP URL carrying a new AuthnRequest; its id is stored with the RelayState that comes back. */
    async start(connection: SsoConnection, state: string): Promise<string> {
      let requestId: string | null = null;
      const capture: CacheProvider = {
        saveAsync: async (key, value) => {
          requestId = key;
          return { value, createdAt: Date.now() };
        },
        getAsync: async () => null,
        removeAsync: async () => null,
      };
      const url = await (await samlFor(connection, urls, capture)).getAuthorizeUrlAsync(state, undefined, {});
      if (!requestId) throw new Error("node-saml did not report the AuthnRequest id");
      await sso.beginSignIn({ state, connectionId: connection.id, samlRequestId: requestId });
      return url;
    },

    /**
     * `cookieState` is the RelayState this browser was given when it started the sign-in (a cookie):
     * a response posted from another browser (an attacker's own assertion, to sign the victim in as
     * the attacker) is refused. The RelayState is used up before any check, so whatever the outcome
     * it cannot be posted again (no repeated verification of a large response).
     */
    async finish(
      form: { SAMLResponse?: string; RelayState?: string },
      cookieState: string | undefined,
    ): Promise<FederatedIdentity & { connection: SsoConnection }> {
      if (!form.SAMLResponse) {
        throw new SignInFailure("assertion-invalid", "No SAML response", "The identity provider sent no SAMLResponse.");
      }
      const pending = form.RelayState ? await sso.findSignIn(form.RelayState) : null;
      if (!pending?.samlRequestId) {
        throw new SignInFailure(
          "sign-in-unknown",
          "This sign-in has expired",
          "The SAML response does not answer a sign-in started here recently (unknown or expired RelayState). Start again from the sign-in page.",
        );
      }
      if (!(await sso.useSignIn(pending.state))) {
        throw new SignInFailure("sign-in-used", "This sign-in was already used", "Start again from the sign-in page.");
      }
      if (!cookieState || cookieState !== pending.state) {
        throw new SignInFailure(
          "state-mismatch",
          "This sign-in was started in another browser",
          "The SAML response does not belong to a sign-in this browser started. Start again from the sign-in page.",
          undefined,
          401,
        );
      }
      const connection = await sso.connectionById(pending.connectionId);
      if (connection?.protocol !== "saml") {
        throw new SignInFailure(
          "sign-in-unknown",
          "This sign-in is no longer possible",
          "The sign-in connection was removed.",
        );
      }
      const profile = await validate(connection, pending, form);
      await checkDestination(profile.getSamlResponseXml?.(), urls.samlAcsUrl);
      const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
      checkRecipient(assertion, urls.samlAcsUrl);
      checkIssuer(assertion, connection);

      const assertionId = assertion?.$?.ID;
      if (!assertionId)
        throw new SignInFailure("assertion-invalid", "The SAML assertion was refused", "The assertion has no ID.");
      if (!(await sso.rememberAssertion(connection.id, assertionId, expiryOf(assertion)))) {
        throw new SignInFailure(
          "assertion-replayed",
          "This SAML assertion was already used",
          "The identity provider's assertion has already been used to sign in once (a replay). Start again from the sign-in page.",
          `assertion ${assertionId}`,
          401,
        );
      }
      const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
      const given = textFrom(attributes.givenName, attributes["urn:oid:2.5.4.42"]);
      const surname = textFrom(attributes.sn, attributes.surname, attributes["urn:oid:2.5.4.4"]);
      return {
        connection,
        email: emailFrom(...EMAIL_ATTRIBUTES.map((name) => attributes[name]), profile.nameID) ?? "",
        name: textFrom(...NAME_ATTRIBUTES.map((name) => attributes[name]), [given, surname].filter(Boolean).join(" ")),
        roleValues: connection.roleClaim ? attributes[connection.roleClaim] : undefined,
      };
    },
  };

  async function validate(
    connection: SsoConnection,
    pending: SsoSignIn,
    form: { SAMLResponse?: string; RelayState?: string },
  ) {
    // Only the request this RelayState sent is a valid InResponseTo.
    const expected: CacheProvider = {
      saveAsync: async () => null,
      getAsync: async (key) => (key === pending.samlRequestId ? pending.createdAt.toISOString() : null),
      removeAsync: async () => null,
    };
    try {
      const { profile } = await (await samlFor(connection, urls, expected)).validatePostResponseAsync({
        SAMLResponse: form.SAMLResponse!,
        RelayState: form.RelayState ?? "",
      });
      if (!profile) throw new Error("Missing SAML assertion");
      return profile;
    } catch (error) {
      throw classify(error, Buffer.from(form.SAMLResponse!, "base64").toString("utf8"));
    }
  }
}

/**
 * SAML Bindings 3.5.5.2: the Response's Destination, which node-saml does not read, is where the
 * IdP meant to send it. Absent is allowed (the signed assertion's Recipient is checked below);
 * present and different means a response captured at another service provider.
 */
async function parseXml(xml: string): Promise<unknown> {
  const { parseStringPromise, processors } = await import("xml2js");
  return parseStringPromise(xml, { tagNameProcessors: [processors.stripPrefix] });
}

async function checkDestination(responseXml: string | undefined, acsUrl: string): Promise<void> {
  const parsed = responseXml
    ? ((await parseXml(responseXml)) as {
        Response?: XmlNode;
      })
    : {};
  const destination = parsed.Response?.$?.Destination;
  if (destination !== undefined && destination !== acsUrl) {
    throw new SignInFailure(
      "destination-mismatch",
      "The SAML response was sent to another service",
      `The response's Destination is not this service's assertion consumer URL (${acsUrl}).`,
      `destination: ${destination}`,
      401,
    );
  }
}

function checkRecipient(assertion: XmlNode | undefined, acsUrl: string): void {
  const confirmations = children(children(assertion, "Subject")[0], "SubjectConfirmation").filter(
    (confirmation) => confirmation.$?.Method === BEARER,
  );
  const recipients = confirmations.flatMap((c) => children(c, "SubjectConfirmationData")).map((d) => d.$?.Recipient);
  if (!recipients.length || recipients.some((recipient) => recipient !== acsUrl)) {
    throw new SignInFailure(
      "recipient-mismatch",
      "The SAML assertion was meant for another service",
      `The assertion's Recipient is not this service's assertion consumer URL (${acsUrl}).`,
      `recipients: ${recipients.join(", ") || "none"}`,
      401,
    );
  }
}

/** An element's text: xml2js gives a string without attributes, an object with `_` with them. */
function textOf(node: unknown): string | undefined {
  if (typeof node === "string") return node.trim();
  const text = (node as XmlNode | undefined)?._;
  return typeof text === "string" ? text.trim() : undefined;
}

/**
 * SAML Core 2.3.3: the assertion's Issuer is the IdP that made it. node-saml checks `idpIssuer`
 * only on logout messages, so the connection's entity id is compared here: an assertion another
 * IdP made, signed by a certificate this connection also trusts, is refused.
 */
function checkIssuer(assertion: XmlNode | undefined, connection: SsoConnection): void {
  const issuers = Array.isArray(assertion?.Issuer) ? (assertion.Issuer as unknown[]) : [];
  const issuer = issuers.length === 1 ? textOf(issuers[0]) : undefined;
  if (issuer !== connection.samlEntityId) {
    throw new SignInFailure(
      "issuer-mismatch",
      "The SAML assertion comes from another identity provider",
      "The assertion's issuer is not the identity provider configured for your domain.",
      `issuer: ${issuer ?? "none"}, expected ${connection.samlEntityId}`,
      401,
    );
  }
}

/** When the assertion stops being valid: the latest NotOnOrAfter it names. */
function expiryOf(assertion: XmlNode | undefined): Date {
  const times = [
    ...children(assertion, "Conditions").map((c) => c.$?.NotOnOrAfter),
    ...children(children(assertion, "Subject")[0], "SubjectConfirmation")
      .flatMap((c) => children(c, "SubjectConfirmationData"))
      .map((d) => d.$?.NotOnOrAfter),
  ]
    .map((value) => (value ? Date.parse(value) : Number.NaN))
    .filter(Number.isFinite);
  const latest = times.length ? Math.max(...times) : Date.now() + DEFAULT_ASSERTION_LIFETIME_MS;
  return new Date(latest + CLOCK_SKEW_MS);
}

/** node-saml's error messages, turned into what the person is told (the response only tells signed from unsigned). */
function classify(error: unknown, responseXml: string): SignInFailure {
  const message = (error as Error).message ?? String(error);
  const fail = (reason: ConstructorParameters<typeof SignInFailure>[0], title: string, text: string) =>
    new SignInFailure(reason, title, text, message, 401);
  if (/audience/i.test(message))
    return fail(
      "audience-mismatch",
      "The SAML assertion was meant for another service",
      "The assertion's audience is not this service (wrong audience). Ask your identity provider's administrator to check the service provider entity id.",
    );
  if (/expired|NotOnOrAfter|NotBefore|not yet valid|No valid subject confirmation/i.test(message))
    return fail(
      "assertion-expired",
      "The SAML assertion has expired",
      "The assertion is outside its validity window (expired or not yet valid). Start again from the sign-in page; if it happens again, the identity provider's clock may be wrong.",
    );
  if (/InResponseTo/i.test(message))
    return fail(
      "in-response-to-mismatch",
      "This SAML response answers another sign-in",
      "The response does not answer the sign-in request sent from here (InResponseTo). Start again from the sign-in page.",
    );
  if (/signature/i.test(message) && /<(\w+:)?Signature[\s>]/.test(responseXml))
    return fail(
      "assertion-tampered",
      "The SAML assertion's signature does not match",
      "The assertion is signed, but its signature does not match its content or the identity provider's certificate: it may have been altered in transit.",
    );
  if (/signature/i.test(message))
    return fail(
      "assertion-unsigned",
      "The SAML assertion is not validly signed",
      "The identity provider's assertion is not signed; this service accepts signed assertions only. Ask the identity provider's administrator to sign assertions.",
    );
  if (/issuer/i.test(message))
    return fail(
      "assertion-invalid",
      "The SAML assertion comes from another identity provider",
      "The assertion's issuer is not the identity provider configured for your domain.",
    );
  if (/SAML provider returned/i.test(message))
    return fail("provider-error", "The identity provider refused the sign-in", message);
  return fail(
    "assertion-invalid",
    "The SAML response was refused",
    "The identity provider's response could not be verified. Start again, or ask an administrator for a sign-in link.",
  );
}
