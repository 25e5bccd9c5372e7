// createClient: the typed resource helpers and the raw openapi-fetch client,
// both sending through one transport (credential, token renewal, retries).
import createFetchClient, { type Client } from "openapi-fetch";
import type { paths } from "./api-types.js";
import { apiKeyAuthenticator, oauthAuthenticator, type OAuthCredentials } from "./auth.js";
import { resources, type Resources } from "./resources.js";
import { followEvents, type FollowedPage, type FollowOptions } from "./feed.js";
import { createTransport, DEFAULT_RETRY, systemClock, type Clock, type FetchFunction } from "./transport.js";

interface CommonOptions {
  /** The API's base URL, with its prefix: `https://example.org/api/v1`. */
  baseUrl: string;
  /** Retries of a 429 or 503 answer (after the first attempt); 2 by default. */
  maxRetries?: number;
  /** Backoff before the first retry when the server sends no Retry-After, doubled on each retry; 500 ms by default. */
  initialRetryDelayMs?: number;
  /** A Retry-After longer than this ends the retries; 60 s by default. */
  maxRetryDelayMs?: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch to send requests with; `globalThis.fetch` by default. */
  fetch?: FetchFunction;
  /** Time source for token expiry and backoff; the system clock by default. */
  clock?: Clock;
}

export type ClientOptions = CommonOptions &
  ({ apiKey: string; oauth?: undefined } | { oauth: OAuthCredentials; apiKey?: undefined });

export interface CourseEquivalencyClient extends Omit<Resources, "events"> {
  /** The openapi-fetch client: `{ data, error, response }` results, never throws API errors. */
  raw: Client<paths>;
  events: Resources["events"] & {
    /**
     * The change feed's pages from a stored cursor on, forever: apply each page's `data`, then
     * store its `cursor`; once caught up it reads again every `pollIntervalMs` (see sdk/src/feed.ts).
     */
    follow(options?: FollowOptions): AsyncGenerator<FollowedPage, void, undefined>;
  };
}

export function createClient(options: ClientOptions): CourseEquivalencyClient {
  const baseFetch: FetchFunction = options.fetch ?? ((request) => globalThis.fetch(request));
  const clock = options.clock ?? systemClock;
  const authenticator = options.oauth
    ? oauthAuthenticator(options.oauth, options.baseUrl, baseFetch, clock)
    : apiKeyAuthenticator(requireApiKey(options.apiKey));
  const transport = createTransport({
    fetch: baseFetch,
    authenticator,
    clock,
    retry: {
      maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries,
      initialDelayMs: options.initialRetryDelayMs ?? DEFAULT_RETRY.initialDelayMs,
      maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    },
  });
  const raw = createFetchClient<paths>({ baseUrl: options.baseUrl, fetch: transport, headers: options.headers });
  const generated = resources(raw);
  const follow = (followOptions: FollowOptions = {}) =>
    followEvents((query) => raw.GET("/events", { params: { query } }), followOptions);
  return { raw, ...generated, events: { ...generated.events, follow } };
}

function requireApiKey(apiKey: string | undefined): string {
  if (!apiKey) throw new TypeError("createClient needs either apiKey or oauth.");
  return apiKey;
}
