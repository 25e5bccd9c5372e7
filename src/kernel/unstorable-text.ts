// PostgreSQL can neither store nor compare text holding U+0000 (NUL) or a lone
// surrogate (JSON can escape one, "\ud800"), in text and jsonb columns alike, so
// a request value carrying either is refused with a pointer at it before it
// reaches a query (the schema cannot say this).
import { ValidationError, escapePointer, type FieldError } from "./errors.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function rejectUnstorableText(request: { params: unknown; query: unknown; body: unknown }): void {
  // Almost every request is clean: look first, and build the pointers only for one that is not.
  if (storable(request.params) && storable(request.query) && storable(request.body)) return;
  const errors = [
    ...unstorable(request.params, "/path"),
    ...unstorable(request.query, "/query"),
    ...unstorable(request.body, ""),
  ];
  if (errors.length) throw ValidationError.of(errors);
}

/** Why PostgreSQL could not store the text, or undefined when it can. */
export function unstorableFlaw(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain the character U+0000";
  if (LONE_SURROGATE.test(text)) return "must be well-formed Unicode (it holds a lone surrogate)";
  return undefined;
}

/** Whether every string (and member name) in the value can be stored; allocates nothing. */
function storable(value: unknown): boolean {
  if (typeof value === "string") return unstorableFlaw(value) === undefined;
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!storable(item)) return false;
    return true;
  }
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    if (unstorableFlaw(name) !== undefined || !storable((value as Record<string, unknown>)[name])) return false;
  }
  return true;
}

/** The strings (and member names) that cannot be stored, by pointer. */
function unstorable(value: unknown, pointer: string): FieldError[] {
  if (typeof value === "string") {
    const message = unstorableFlaw(value);
    return message ? [{ pointer, message }] : [];
  }
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([name, member]) => {
    const at = `${pointer}/${escapePointer(name)}`;
    const message = unstorableFlaw(name);
    return message ? [{ pointer: at, message: `its name ${message}` }] : unstorable(member, at);
  });
}
