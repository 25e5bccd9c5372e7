// 406 when the client accepts none of the media types an operation answers with.
import type { Context } from "koa";
import type { Operation } from "openapi-backend";
import { ProblemError } from "../kernel/errors.ts";

const PROBLEM_TYPE = "application/problem+json";

/** Operations are the router's, built once (operation-router.ts): their types are worked out once too. */
const typesOf = new WeakMap<Operation, string[]>();

/** The media types of an operation's 2xx answers. */
export function responseTypes(operation: Operation): string[] {
  let known = typesOf.get(operation);
  if (!known) {
    const types = new Set<string>();
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (!status.startsWith("2")) continue;
      for (const type of Object.keys((response as { content?: object }).content ?? {})) types.add(type);
    }
    known = [...types];
    typesOf.set(operation, known);
  }
  return known;
}

/** Accept headers already judged, per operation's list of types: clients send the same few again and again. */
const judged = new WeakMap<string[], Map<string, boolean>>();
const JUDGED_PER_OPERATION = 64;

export function negotiate(ctx: Context, types: string[]): void {
  const accept = ctx.get("accept");
  if (!accept || types.length === 0) return;
  let answers = judged.get(types);
  if (!answers) {
    answers = new Map();
    judged.set(types, answers);
  }
  let acceptable = answers.get(accept);
  if (acceptable === undefined) {
    acceptable = ctx.accepts([...types, PROBLEM_TYPE]) !== false;
    if (answers.size < JUDGED_PER_OPERATION) answers.set(accept, acceptable);
  }
  if (!acceptable) {
    throw new ProblemError(
      "not-acceptable",
      `This operation answers with ${types.join(" or ")}; the Accept header allows none of them.`,
    );
  }
}
