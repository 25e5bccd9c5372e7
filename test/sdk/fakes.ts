// An in-memory server and clock for the SDK's unit tests: every request is
// recorded, answers are scripted, and sleeping only advances the fake time.
import type { Clock } from "../../sdk/src/index.ts";

export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Answer = Response | ((request: Recorded) => Response);

export function fakeServer(answers: Answer[] = []) {
  const requests: Recorded[] = [];
  const queue = [...answers];
  return {
    requests,
    answer: (...more: Answer[]) => queue.push(...more),
    fetch: async (request: Request): Promise<Response> => {
      const recorded = {
        method: request.method,
        url: new URL(request.url),
        headers: request.headers,
        body: await request.text(),
      };
      requests.push(recorded);
      const next = queue.shift();
      if (!next) throw new Error(`No answer scripted for ${request.method} ${request.url}`);
      return typeof next === "function" ? next(recorded) : next;
    },
  };
}

export function fakeClock(start = Date.UTC(2026, 0, 1)): Clock & { slept: number[]; advance(ms: number): void } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function problem(
  status: number,
  slug: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  const body = {
    type: `https://course-equivalency.org/problems/${slug}`,
    title: slug,
    status,
    detail: `a ${slug} problem`,
    requestId: `req_${slug}`,
    ...extra,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/problem+json", "X-Request-Id": `req_${slug}`, ...headers },
  });
}
