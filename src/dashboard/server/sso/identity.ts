// What a federated sign-in yields, and how it fails. A failure names a stable
// reason (shown to tests in the refusal page's data-reason) and a message for
// the person; the details stay in the log.

/** The person as the identity provider vouches for them. */
export interface FederatedIdentity {
  email: string;
  name: string | null;
  /** The values of the connection's role claim or attribute (none when it has no role claim). */
  roleValues: unknown;
}

export type SignInFailureReason =
  | "sign-in-unknown"
  | "sign-in-used"
  | "state-mismatch"
  | "nonce-mismatch"
  | "provider-error"
  | "provider-unreachable"
  | "assertion-invalid"
  | "assertion-unsigned"
  | "assertion-tampered"
  | "audience-mismatch"
  | "assertion-expired"
  | "recipient-mismatch"
  | "destination-mismatch"
  | "in-response-to-mismatch"
  | "assertion-replayed"
  | "email-missing"
  | "email-unverified"
  | "issuer-mismatch"
  | "email-outside-domain";

export class SignInFailure extends Error {
  constructor(
    readonly reason: SignInFailureReason,
    readonly title: string,
    message: string,
    /** What the log gets (the library's own words). */
    readonly detail?: string,
    readonly status: 400 | 401 = 400,
  ) {
    super(message);
    this.name = "SignInFailure";
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The first value that looks like an email address. */
export function emailFrom(...candidates: unknown[]): string | null {
  for (const candidate of candidates.flat()) {
    if (typeof candidate === "string" && EMAIL.test(candidate.trim())) return candidate.trim().toLowerCase();
  }
  return null;
}

/** The first non-empty text value. */
export function textFrom(...candidates: unknown[]): string | null {
  for (const candidate of candidates.flat()) {
    if (typeof candidate === "string" && candidate.trim()) return candidate.trim();
  }
  return null;
}
