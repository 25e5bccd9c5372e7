// Reads a JSON request body with a size limit, answering the client's mistakes
// with the right problem: 415 for another media type, 413 over the limit, 400
// for text that is not JSON.
import type { Context } from "koa";
import getRawBody from "raw-body";
import { MalformedRequestError, ProblemError } from "../errors.ts";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;

export function hasBody(ctx: Context): boolean {
  const length = ctx.get("content-length");
  return (length !== "" && length !== "0") || ctx.get("transfer-encoding") !== "";
}

export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  const mediaType = ctx.get("content-type").split(";")[0].trim();
  if (!JSON_TYPE.test(mediaType)) {
    throw new ProblemError(
      "unsupported-media-type",
      mediaType ? `Request bodies must be application/json, not ${mediaType}.` : "Request bodies must be sent with Content-Type: application/json.",
    );
  }
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: limitBytes, encoding: "utf8", length: ctx.get("content-length") || undefined });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") {
      throw new ProblemError("payload-too-large", `The request body is larger than the limit of ${limitBytes} bytes.`);
    }
    throw new MalformedRequestError(`The request body could not be read: ${(error as Error).message}.`);
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedRequestError(`The request body is not valid JSON: ${(error as Error).message}.`);
  }
}
