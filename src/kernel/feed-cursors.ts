// Feed cursors: a position of the change feed, encrypted. Positions are numbered across both
// environments (one serialized step numbers every commit), so a position in the clear would tell a
// sandbox reader how many live changes committed meanwhile. A cursor is the position (8 bytes)
// sealed with AES-256-GCM under a key derived from the secrets key, with a fresh nonce each time
// and the feed's scope (organization, environment) as additional data: it reveals nothing, not
// even whether two cursors stand for the same position, and one of another scope or altered does
// not open. List cursors (paging.ts) are signed, not encrypted: their keys are the caller's own rows.
import crypto from "node:crypto";
import { InvalidCursorError } from "./errors.ts";
import type { SecretBox } from "./secret-box.ts";

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_BYTES = 1 + NONCE_BYTES + 8 + TAG_BYTES;
/** base64url of SEALED_BYTES bytes, without a dot (a signed list cursor always has one). */
const SEALED = /^[A-Za-z0-9_-]{50}$/;

export interface FeedCursors {
  seal(scope: string, position: bigint): string;
  /** The position; InvalidCursorError when the text is not a sealed cursor of this scope. */
  open(scope: string, cursor: string): bigint;
  /** Whether the text has the form of a sealed feed cursor (else it may be an earlier signed one). */
  isSealed(cursor: string): boolean;
}

export function createFeedCursors(secrets: SecretBox): FeedCursors {
  const key = secrets.derive("feed cursors");
  return {
    seal(scope, position) {
      const nonce = crypto.randomBytes(NONCE_BYTES);
      const cipher = crypto.createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(scope));
      const plain = Buffer.alloc(8);
      plain.writeBigUInt64BE(position);
      const sealed = Buffer.concat([
        Buffer.of(VERSION),
        nonce,
        cipher.update(plain),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return sealed.toString("base64url");
    },

    open(scope, cursor) {
      const bytes = SEALED.test(cursor) ? Buffer.from(cursor, "base64url") : null;
      if (!bytes || bytes.length !== SEALED_BYTES || bytes[0] !== VERSION)
        throw new InvalidCursorError("not a cursor of the event feed");
      const nonce = bytes.subarray(1, 1 + NONCE_BYTES);
      const tag = bytes.subarray(SEALED_BYTES - TAG_BYTES);
      const decipher = crypto.createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(scope));
      decipher.setAuthTag(tag);
      try {
        const plain = Buffer.concat([
          decipher.update(bytes.subarray(1 + NONCE_BYTES, SEALED_BYTES - TAG_BYTES)),
          decipher.final(),
        ]);
        return plain.readBigUInt64BE();
      } catch {
        throw new InvalidCursorError("the cursor was altered, or belongs to another organization or environment");
      }
    },

    isSealed(cursor) {
      return SEALED.test(cursor);
    },
  };
}
