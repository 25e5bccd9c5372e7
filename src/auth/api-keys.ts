// API key format, hashing and verification. Keys are "svc_<env>_<token>"; only a
// SHA-256 hash is stored, and the plaintext is shown once, at creation.
import crypto from "node:crypto";
import type { Environment } from "../../generated/prisma/client.ts";

const KEY_PATTERN = /^svc_(live|sandbox)_([A-Za-z0-9_-]{32,})$/;
/** Characters of a key kept in listings: "svc_live_" plus eight of the token. */
const VISIBLE_TOKEN_CHARS = 8;

export interface ParsedKey {
  environment: Environment;
  hash: string;
}

export function generateApiKey(environment: Environment): string {
  // 30 random bytes give 40 url-safe characters.
  return `svc_${environment}_${crypto.randomBytes(30).toString("base64url")}`;
}

export function hashApiKey(key: string): string {
  // The one-shot digest: every request hashes its key, and a Hash object per call cost more than the digest.
  return crypto.hash("sha256", key, "hex");
}

export function keyPrefix(key: string): string {
  const match = KEY_PATTERN.exec(key);
  if (!match) throw new Error("not an API key");
  return `svc_${match[1]}_${match[2].slice(0, VISIBLE_TOKEN_CHARS)}`;
}

/** Returns null for anything that is not shaped like a key of this service. */
export function parseApiKey(key: string): ParsedKey | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  return { environment: match[1] as Environment, hash: hashApiKey(key) };
}

/** Constant-time equality of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
