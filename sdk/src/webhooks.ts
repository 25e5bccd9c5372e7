// Verifying a webhook delivery: `X-SVC-Signature: t=<unix>,v1=<hex>[,v1=<hex>]`,
// each v1 the HMAC-SHA256 of `<t>.<raw body>` under one of the endpoint's
// secrets (two during the 24 hours after a rotation).
import crypto from "node:crypto";
import type { components } from "./api-types.js";

export type Event = components["schemas"]["Event"];
export type EventType = components["schemas"]["EventType"];

export type WebhookVerificationFailure =
  | "malformed-header"
  | "timestamp-outside-tolerance"
  | "no-matching-signature"
  | "malformed-body";

export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted distance between `t` and now, in seconds; 300 by default. */
  toleranceSeconds?: number;
  /** The current time in unix seconds; the system clock by default. */
  nowSeconds?: number;
}

const SIGNATURE_BYTES = 32;

/**
 * Checks a delivery against your endpoint secret and returns its event, typed by
 * `type`. Pass the body exactly as received (before any JSON parsing).
 * Throws WebhookVerificationError when the delivery is not authentic or too old.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Event {
  const { timestamp, signatures } = parseSignatureHeader(signatureHeader ?? "");
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp-outside-tolerance",
      `The signature timestamp is more than ${tolerance} s from now.`,
    );
  }
  const body =
    typeof rawBody === "string"
      ? Buffer.from(rawBody, "utf8")
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = crypto.createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(body).digest();
  // Compare against every candidate, matching or not, so timing says nothing.
  let matched = false;
  for (const candidate of signatures) matched = crypto.timingSafeEqual(candidate, expected) || matched;
  if (!matched) throw new WebhookVerificationError("no-matching-signature", "No v1 signature matches the secret.");
  try {
    return JSON.parse(body.toString("utf8")) as Event;
  } catch {
    throw new WebhookVerificationError("malformed-body", "The body is not JSON.");
  }
}

function parseSignatureHeader(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t" && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-fA-F]+$/.test(value) && value.length === SIGNATURE_BYTES * 2)
      signatures.push(Buffer.from(value, "hex"));
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookVerificationError(
      "malformed-header",
      "The signature header needs t=<unix seconds> and at least one v1=<64 hex digits>.",
    );
  }
  return { timestamp, signatures };
}
