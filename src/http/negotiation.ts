// 406 when the client accepts none of the media types an operation answers with.
import type { Context } from "koa";
import type { Operation } from "openapi-backend";
import { ProblemError } from "../errors.ts";

const PROBLEM_TYPE = "application/problem+json";

export function responseTypes(operation: Operation): string[] {
  const types = new Set<string>();
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!status.startsWith("2")) continue;
    for (const type of Object.keys((response as { content?: object }).content ?? {})) types.add(type);
  }
  return [...types];
}

export function negotiate(ctx: Context, types: string[]): void {
  if (!ctx.get("accept") || types.length === 0) return;
  if (ctx.accepts([...types, PROBLEM_TYPE]) === false) {
    throw new ProblemError(
      "not-acceptable",
      `This operation answers with ${types.join(" or ")}; the Accept header allows none of them.`,
    );
  }
}
