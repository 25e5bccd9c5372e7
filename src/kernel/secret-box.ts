// Secrets at rest: values the service must be able to read back (webhook
// signing secrets, the token-signing private key, later SSO client secrets)
// are stored sealed with AES-256-GCM, never in the clear. A sealed value names
// the key that sealed it, so keys can be rotated: the current key seals, older
// keys still open what they sealed until everything is re-sealed.
//
//   v1:<key id>:<iv>:<tag>:<ciphertext>     (iv, tag and ciphertext in base64url)
//
// The key id is derived from the key itself (nothing to configure, and a wrong
// key is recognised instead of failing as a corrupt value). Each value is bound
// to a context (its purpose and record, e.g. "webhook-secret:wh_…") as
// additional authenticated data, so a sealed value copied to another record
// or column does not open.
import crypto from "node:crypto";

const VERSION = "v1";
const CIPHER = "aes-256-gcm";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const SEALED = /^v1:([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22}):([A-Za-z0-9_-]*)$/;

/** A 32-byte key written as 64 hex digits, or as base64 / base64url (padding optional). */
export function parseSecretsKey(text: string): Buffer | null {
  const raw = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) return null;
  const key = Buffer.from(raw.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return key.length === KEY_BYTES ? key : null;
}

/** A new random key, base64url-encoded (what the key file and `secrets generate-key` hold). */
export function generateSecretsKey(): string {
  return crypto.randomBytes(KEY_BYTES).toString("base64url");
}

/** The id stored with every value the key seals: a keyed digest, so it reveals nothing of the key. */
export function secretsKeyId(key: Buffer): string {
  return crypto.createHmac("sha256", key).update("course-equivalency secrets key id").digest("base64url").slice(0, 8);
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretBoxError";
  }
}

export class SecretBox {
  /** The id of the key that seals. */
  readonly keyId: string;
  private readonly keys = new Map<string, Buffer>();

  /** `current` seals and opens; `previous` keys only open what they sealed. */
  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== KEY_BYTES) throw new SecretBoxError(`a secrets key must be ${KEY_BYTES} bytes`);
    }
    this.keyId = secretsKeyId(current);
    this.keys.set(this.keyId, current);
    for (const key of previous) if (!this.keys.has(secretsKeyId(key))) this.keys.set(secretsKeyId(key), key);
  }

  /** Every key id this box can open. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  seal(plaintext: string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv(CIPHER, this.keys.get(this.keyId)!, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      this.keyId,
      iv.toString("base64url"),
      tag.toString("base64url"),
      ciphertext.toString("base64url"),
    ].join(":");
  }

  open(sealed: string, context: string): string {
    const parts = SEALED.exec(sealed);
    if (!parts) throw new SecretBoxError("the stored value is not a sealed secret (v1:<key id>:…)");
    const [, keyId, iv, tag, ciphertext] = parts;
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`the stored secret is sealed under key id ${keyId}, which is not configured`);
    try {
      const decipher = crypto.createDecipheriv(CIPHER, key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretBoxError(
        `the stored secret for ${context} does not open under key id ${keyId} (altered, or moved from another record)`,
      );
    }
  }

  /** A key for another purpose (signing list cursors, …), derived from the current key: it changes when the key is rotated. */
  derive(purpose: string): Buffer {
    return crypto.createHmac("sha256", this.keys.get(this.keyId)!).update(`course-equivalency ${purpose}`).digest();
  }

  /** Whether a stored value must be (re-)sealed: it is in the clear, or sealed under a key other than the current one. */
  needsSealing(stored: string): boolean {
    return sealedKeyId(stored) !== this.keyId;
  }
}

/** The key id a stored value is sealed under, or null for a value in the clear. */
export function sealedKeyId(stored: string): string | null {
  return SEALED.exec(stored)?.[1] ?? null;
}
