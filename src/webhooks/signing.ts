// The signature scheme of the specification: X-SVC-Signature is
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of `${t}.${rawBody}`>", with one v1 per
// active secret (two during the 24 h after a rotation).
import crypto from "node:crypto";

export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function sign(secret: string, timestamp: number, rawBody: string): string {
  return crypto.createHmac("sha256", secret).update(`${timestamp}.${rawBody}`, "utf8").digest("hex");
}

export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${sign(secret, timestamp, rawBody)}`)].join(",");
}

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

export function parseSignatureHeader(header: string): ParsedSignature | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === "t" && /^\d+$/.test(value ?? "")) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/.test(value ?? "")) signatures.push(value);
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * What a receiver does: any v1 matching under the secret, compared in constant
 * time, within the tolerance of its own clock.
 */
export function verifySignature(
  rawBody: string,
  header: string,
  secret: string,
  options: { toleranceSeconds?: number; nowSeconds?: number } = {},
): boolean {
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > (options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(sign(secret, parsed.timestamp, rawBody), "hex");
  return parsed.signatures.some((candidate) => {
    const given = Buffer.from(candidate, "hex");
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}

export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString("base64url")}`;
}

/** What listings show of a secret. */
export function secretPrefix(secret: string): string {
  return secret.slice(0, "whsec_".length + 4);
}
