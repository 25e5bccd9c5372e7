// Reads a JSON request body with a size limit, answering the client's mistakes
// with the right problem: 415 for another media type, 413 over the limit, 400
// for text that is not JSON, nests deeper than the limit or holds a number
// beyond the range of a double.
import type { Context } from "koa";
import getRawBody from "raw-body";
import { MalformedRequestError, ProblemError, ValidationError, escapePointer } from "../kernel/errors.ts";
import { decodeUtf8Strict, notUtf8Message } from "../kernel/utf8.ts";
import { MAX_JSON_DEPTH, tooDeepAt } from "./json-depth.ts";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

export function hasBody(ctx: Context): boolean {
  const length = ctx.get("content-length");
  return (length !== "" && length !== "0") || ctx.get("transfer-encoding") !== "";
}

/** 415 unless the body's media type is the one the operation reads. */
function assertMediaType(ctx: Context, accepted: RegExp, name: string): void {
  const mediaType = ctx.get("content-type").split(";")[0].trim();
  if (accepted.test(mediaType)) return;
  throw new ProblemError(
    "unsupported-media-type",
    mediaType
      ? `Request bodies must be ${name}, not ${mediaType}.`
      : `Request bodies must be sent with Content-Type: ${name}.`,
  );
}

/** The body as UTF-8 text (or, with `bytes`, as it came), within the limit (413 beyond it). */
async function readText(ctx: Context, limitBytes: number): Promise<string>;
async function readText(ctx: Context, limitBytes: number, bytes: "bytes"): Promise<Buffer>;
async function readText(ctx: Context, limitBytes: number, bytes?: "bytes"): Promise<string | Buffer> {
  try {
    return await getRawBody(ctx.req, {
      limit: limitBytes,
      ...(bytes ? {} : { encoding: "utf8" }),
      length: ctx.get("content-length") || undefined,
    });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") {
      throw new ProblemError("payload-too-large", `The request body is larger than the limit of ${limitBytes} bytes.`);
    }
    throw new MalformedRequestError(`The request body could not be read: ${(error as Error).message}.`);
  }
}

/**
 * The text of a CSV body (an import file); undefined when there is none. UTF-8 only: a `charset`
 * other than utf-8 is a 415, bytes that are not UTF-8 a 400 naming the first bad byte's offset.
 */
export async function readCsvBody(ctx: Context, limitBytes: number): Promise<string | undefined> {
  if (!hasBody(ctx)) return undefined;
  assertMediaType(ctx, /^text\/csv$/i, "text/csv");
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(ctx.get("content-type"))?.[1];
  if (charset !== undefined && !/^(utf-?8|us-ascii)$/i.test(charset))
    throw new ProblemError(
      "unsupported-media-type",
      `Import files must be UTF-8, not ${charset}: convert the file (e.g. iconv -f ${charset} -t utf-8) and send it as text/csv or text/csv; charset=utf-8.`,
    );
  const decoded = decodeUtf8Strict(await readText(ctx, limitBytes, "bytes"));
  if ("invalidAt" in decoded) throw ValidationError.single("", notUtf8Message("The file", decoded));
  return decoded.text.trim() === "" ? undefined : decoded.text;
}

export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  assertMediaType(ctx, JSON_TYPE, "application/json");
  const text = await readText(ctx, limitBytes);
  if (text.trim() === "") return undefined;
  const tooDeep = tooDeepAt(text);
  if (tooDeep !== null)
    throw ValidationError.of([
      { pointer: tooDeep, message: `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new MalformedRequestError(`The request body is not valid JSON: ${(error as Error).message}.`);
  }
  const infinite = infiniteNumberAt(body);
  if (infinite !== null)
    throw ValidationError.of([
      { pointer: infinite, message: "is a number too large to represent (beyond ±1.7976931348623157e308)" },
    ]);
  return body;
}

/**
 * JSON.parse reads 1e400 as Infinity, which would pass a range check meant for
 * integers and be stored as null in free-form JSON: the pointer of the first
 * such number, or null. The depth limit bounds the recursion.
 */
function infiniteNumberAt(value: unknown, pointer = ""): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : pointer;
  if (value === null || typeof value !== "object") return null;
  for (const [name, member] of Object.entries(value)) {
    const found = infiniteNumberAt(member, `${pointer}/${escapePointer(name)}`);
    if (found !== null) return found;
  }
  return null;
}
