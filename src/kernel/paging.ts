// Paging: the page a list is asked for, the page it answers, and list cursors.
//
// A cursor is the sort key of a list's row, sealed so that only the list it
// came from accepts it. A cursor is `<payload>.<tag>`: the payload is the key
// as base64url JSON (a timestamp as {"t": ISO text}), the tag an HMAC-SHA256
// (truncated to 128 bits) over the list's scope and the payload, keyed with a
// key derived from the secrets key. The scope names the list (its path), the
// organization, the environment and the filters, so a cursor copied to
// another of them, or altered, is refused. Opaque to clients; no expiry.
import crypto from "node:crypto";
import type { SecretBox } from "./secret-box.ts";
import { InvalidCursorError } from "./errors.ts";

/** A value of a sort key: what a cursor carries (timestamps are milliseconds, as the columns). */
export type KeyValue = string | number | Date;

export interface Page {
  limit: number;
  /** Rows skipped: from the start of the list, or after `after` when it is given. */
  offset: number;
  /** The sort key of the row the page starts after (decoded from a cursor). */
  after?: readonly KeyValue[];
}

export interface PageResult<T> {
  items: T[];
  total: number;
  /** The sort key of the page's last item when more items follow; null on the last page. */
  next: KeyValue[] | null;
}

const TAG_BYTES = 16;
const CURSOR = /^([A-Za-z0-9_-]{1,1000})\.([A-Za-z0-9_-]{22})$/;

type Encoded = string | number | { t: string };

export interface Cursors {
  seal(scope: string, key: readonly KeyValue[]): string;
  /** The key the cursor stands for; InvalidCursorError when it is malformed, altered or of another scope. */
  open(scope: string, cursor: string): KeyValue[];
}

/** Tags of cursors sealed lately: the first page of a busy list seals the same cursor on every request. */
const REMEMBERED_TAGS = 256;

export function createCursors(secrets: SecretBox): Cursors {
  const key = secrets.derive("list cursors");
  const tagOf = (scope: string, payload: string) =>
    crypto.createHmac("sha256", key).update(scope).update("\n").update(payload).digest().subarray(0, TAG_BYTES);
  // The tag is a function of scope and payload alone; an HMAC object per request cost more than the page's links.
  const sealedTags = new Map<string, string>();
  const sealedTagOf = (scope: string, payload: string) => {
    const input = `${scope}\n${payload}`;
    let tag = sealedTags.get(input);
    if (tag === undefined) {
      tag = tagOf(scope, payload).toString("base64url");
      if (sealedTags.size >= REMEMBERED_TAGS) sealedTags.clear();
      sealedTags.set(input, tag);
    }
    return tag;
  };

  return {
    seal(scope, values) {
      const encoded: Encoded[] = values.map((value) => (value instanceof Date ? { t: value.toISOString() } : value));
      const payload = Buffer.from(JSON.stringify(encoded)).toString("base64url");
      return `${payload}.${sealedTagOf(scope, payload)}`;
    },

    open(scope, cursor) {
      const parts = CURSOR.exec(cursor);
      if (!parts) throw new InvalidCursorError("not a cursor of this service");
      const [, payload, tag] = parts;
      if (!crypto.timingSafeEqual(tagOf(scope, payload), Buffer.from(tag, "base64url"))) {
        throw new InvalidCursorError(
          "the cursor was altered, or belongs to another list, organization, environment or filters",
        );
      }
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
      } catch {
        throw new InvalidCursorError("not a cursor of this service");
      }
      if (!Array.isArray(decoded)) throw new InvalidCursorError("not a cursor of this service");
      return decoded.map((value: unknown) => {
        if (typeof value === "string" || typeof value === "number") return value;
        const time = typeof value === "object" && value !== null && typeof (value as { t?: unknown }).t === "string";
        const date = time ? new Date((value as { t: string }).t) : null;
        if (!date || Number.isNaN(date.getTime())) throw new InvalidCursorError("not a cursor of this service");
        return date;
      });
    },
  };
}
