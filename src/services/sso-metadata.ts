// Reads what the service needs from a SAML identity provider's metadata
// (SAML 2.0 metadata, OASIS saml-metadata-2.0-os): its entity id, the URL of
// its single sign-on service for the HTTP-Redirect binding, and the
// certificates it signs with. Nothing here verifies a signature: the metadata
// is given by the administrator (a file, or a URL they name).
import crypto from "node:crypto";
import { ValidationError } from "../kernel/errors.ts";

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** Base64 DER, as written in the metadata's X509Certificate elements. */
  certificates: string[];
}

const REDIRECT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";

type Node = { $?: Record<string, string>; _?: string } & { [child: string]: Node[] | undefined };

function invalid(message: string): ValidationError {
  return new ValidationError("The identity provider's metadata is not usable.", [{ pointer: "/metadata", message }]);
}

/** Every descendant element of that local name (an element of text alone is its text). */
function descendants(node: Node, name: string): (Node | string)[] {
  const found: (Node | string)[] = [];
  for (const [key, children] of Object.entries(node)) {
    if (key === "$" || key === "_" || !Array.isArray(children)) continue;
    for (const child of children as (Node | string)[]) {
      if (key === name) found.push(child);
      if (typeof child === "object") found.push(...descendants(child, name));
    }
  }
  return found;
}

export async function parseIdpMetadata(xml: string): Promise<IdpMetadata> {
  let root: Record<string, Node>;
  try {
    // Element names without their namespace prefix (md:, ds:, or none).
    // Loaded here, not with the server: only `sso add-saml` reads IdP metadata.
    const { parseStringPromise, processors } = await import("xml2js");
    root = await parseStringPromise(xml, { tagNameProcessors: [processors.stripPrefix], explicitRoot: true });
  } catch (error) {
    throw invalid(`not well-formed XML (${(error as Error).message.split("\n")[0]})`);
  }
  if (!root || typeof root !== "object") throw invalid("empty document");
  const document = Object.fromEntries(Object.entries(root).map(([name, element]) => [name, [element]])) as Node;
  const entities = descendants(document, "EntityDescriptor").filter((e): e is Node => typeof e === "object");
  const idps = entities.filter((entity) => entity.IDPSSODescriptor?.length);
  if (idps.length !== 1)
    throw invalid(`expected exactly one EntityDescriptor with an IDPSSODescriptor, found ${idps.length}`);
  const entity = idps[0];
  const entityId = entity.$?.entityID?.trim();
  if (!entityId) throw invalid("the EntityDescriptor has no entityID");

  const idp = entity.IDPSSODescriptor![0];
  const redirect = (idp.SingleSignOnService ?? []).find((service) => service.$?.Binding === REDIRECT_BINDING);
  const ssoUrl = redirect?.$?.Location?.trim();
  if (!ssoUrl) throw invalid("the IDPSSODescriptor has no SingleSignOnService with the HTTP-Redirect binding");

  // A KeyDescriptor without `use` serves both signing and encryption.
  const keys = (idp.KeyDescriptor ?? []).filter((key) => (key.$?.use || "signing") === "signing");
  const certificates = keys
    .flatMap((key) => descendants(key, "X509Certificate"))
    .map((element) => (typeof element === "string" ? element : (element._ ?? "")).replace(/\s+/g, ""))
    .filter(Boolean);
  if (!certificates.length) throw invalid("the IDPSSODescriptor names no signing certificate");
  for (const certificate of certificates) certificateFingerprint(certificate);
  return { entityId, ssoUrl, certificates: [...new Set(certificates)] };
}

/** SHA-256 fingerprint (colon-separated hex, as openssl prints it) and expiry of a base64 DER certificate. */
export function certificateFingerprint(base64Der: string): { fingerprintSha256: string; notAfter: string } {
  try {
    const certificate = new crypto.X509Certificate(Buffer.from(base64Der, "base64"));
    return { fingerprintSha256: certificate.fingerprint256, notAfter: new Date(certificate.validTo).toISOString() };
  } catch {
    throw invalid("a signing certificate is not a valid X.509 certificate");
  }
}
