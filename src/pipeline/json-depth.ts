// How deeply a JSON text nests, found by one pass over its characters without
// recursion, before JSON.parse builds it: every later step that walks a body
// (validation, the text checks, the database driver) recurses, so a body of a
// megabyte of "[" must be refused before any of them sees it.
import { escapePointer } from "../kernel/errors.ts";

/** The deepest nesting a request body may have: the body itself is level 1. */
export const MAX_JSON_DEPTH = 64;

type Open = { kind: "array"; index: number } | { kind: "object"; key: string; expectingKey: boolean };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The JSON pointer of the first array or object nested deeper than `maxDepth`,
 * or null when none is. Text that is not JSON gives an answer of no meaning;
 * JSON.parse refuses it afterwards.
 */
export function tooDeepAt(text: string, maxDepth = MAX_JSON_DEPTH): string | null {
  const open: Open[] = [];
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      const top = open[open.length - 1];
      if (top?.kind === "object" && top.expectingKey) {
        top.key = memberName(text.slice(at, end + 1));
        top.expectingKey = false;
      }
      at = end;
      continue;
    }
    switch (text[at]) {
      case "[":
      case "{":
        if (open.length === maxDepth) return pointerOf(open);
        open.push(text[at] === "[" ? { kind: "array", index: 0 } : { kind: "object", key: "", expectingKey: true });
        break;
      case "]":
      case "}":
        open.pop();
        break;
      case ",": {
        const top = open[open.length - 1];
        if (top?.kind === "array") top.index += 1;
        else if (top) top.expectingKey = true;
        break;
      }
    }
  }
  return null;
}

/** The index of the quote that closes the string opened at `start` (or the text's end). */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) at += 1;
    else if (code === QUOTE) return at;
  }
  return text.length;
}

function memberName(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

function pointerOf(open: Open[]): string {
  return open.map((entry) => `/${entry.kind === "array" ? entry.index : escapePointer(entry.key)}`).join("");
}
