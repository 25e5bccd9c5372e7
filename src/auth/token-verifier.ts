// Which issuer verifies a bearer JWT: the service's own, or the configured
// external issuer. The unverified `iss` only chooses the verifier; the chosen
// verifier checks the signature and every claim, `iss` included.
import { decodeJwt } from "jose";
import { invalidCredential, type AccessTokenVerifier } from "./authenticator.ts";

export interface TokenIssuer {
  issuer: string;
  verify: AccessTokenVerifier;
}

export function bearerTokenVerifier(own: TokenIssuer, external: TokenIssuer | null): AccessTokenVerifier {
  return async (token) => {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalidCredential("The access token is not a well-formed JWT.");
    }
    if (issuer === own.issuer) return own.verify(token);
    if (external && issuer === external.issuer) return external.verify(token);
    const accepted = [own.issuer, ...(external ? [external.issuer] : [])].join(" or ");
    throw invalidCredential(
      `The access token's issuer ${JSON.stringify(issuer ?? null)} is not accepted here (accepted: ${accepted}).`,
    );
  };
}
