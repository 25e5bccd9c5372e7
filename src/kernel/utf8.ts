// Strict UTF-8: a file that is not UTF-8 (Latin-1, Windows-1252, a truncated sequence) is
// refused with the offset of its first bad byte, never decoded with replacement characters.
import { isUtf8 } from "node:buffer";

/** The byte offset of the first byte that does not belong to a well-formed UTF-8 sequence, or null. */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number | null {
  if (isUtf8(bytes)) return null;
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    let length: number;
    let min: number;
    if (lead < 0x80) {
      i += 1;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) [length, min] = [2, 0x80];
    else if (lead >= 0xe0 && lead <= 0xef) [length, min] = [3, 0x800];
    else if (lead >= 0xf0 && lead <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    if (i + length > bytes.length) return i;
    let code = lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if ((next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return null;
}

/** The text of UTF-8 bytes, or the offset of the first byte that is not UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): { text: string } | { invalidAt: number; byte: number } {
  const invalidAt = firstInvalidUtf8Byte(bytes);
  if (invalidAt !== null) return { invalidAt, byte: bytes[invalidAt] };
  return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8") };
}

/** The message for bytes that are not UTF-8. */
export function notUtf8Message(what: string, invalid: { invalidAt: number; byte: number }): string {
  const hex = invalid.byte.toString(16).toUpperCase().padStart(2, "0");
  return `${what} is not UTF-8: byte ${invalid.invalidAt.toLocaleString("en-US")} (0x${hex}, counted from 0) does not begin or continue a UTF-8 character; save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)`;
}
