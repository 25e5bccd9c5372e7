// The public API, called from the browser through the generated SDK (openapi-fetch
// underneath) with the session's short-lived token. `api.raw` answers {data, error, response}.
import { createClient, type CourseEquivalencyClient } from "../../../generated/client/dist/esm/client.js";
import type { TokenSource } from "./session.ts";

export type Api = CourseEquivalencyClient;

export function createApi(tokens: TokenSource): Api {
  const send = async (request: Request, retried = false): Promise<Response> => {
    const attempt = retried ? request : request.clone();
    attempt.headers.set("Authorization", `Bearer ${await tokens.get()}`);
    const response = await fetch(attempt);
    if (response.status === 401 && !retried) {
      tokens.invalidate();
      return send(request, true);
    }
    return response;
  };
  return createClient({
    baseUrl: `${location.origin}/api/v1`,
    // The SDK sends this placeholder; `send` replaces it with the session's current token.
    apiKey: "dashboard-session",
    maxRetries: 1,
    fetch: (request) => send(request),
  });
}

/** A problem body's most useful sentence. */
export function problemText(error: unknown, fallback = "Something went wrong."): string {
  if (!error) return fallback;
  if (typeof error === "string") return error;
  if (error instanceof Error) return error.message;
  const problem = error as { detail?: string; title?: string; errors?: { pointer: string; message: string }[] };
  const details = problem.errors?.map((e) => `${e.pointer || "/"}: ${e.message}`).join("; ");
  return [problem.detail ?? problem.title ?? fallback, details].filter(Boolean).join(" — ");
}
