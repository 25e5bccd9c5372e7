// One error class per problem kind of the contract (RFC 9457 problem documents),
// so callers can `catch (e) { if (e instanceof NotFoundError) … }`.
import type { components } from "./api-types.js";

export type Problem = components["schemas"]["Problem"];
export type ProblemFieldError = components["schemas"]["ProblemFieldError"];

const PROBLEM_BASE = "https://course-equivalency.org/problems/";

/** Any answer of the API that is not a success. */
export class ApiError extends Error {
  /** HTTP status of the response. */
  readonly status: number;
  /** URI of the problem type, e.g. `https://course-equivalency.org/problems/not-found`. */
  readonly type: string;
  /** The last segment of `type` (`not-found`, `invalid-transition`, …). */
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  /** The `X-Request-Id` of the response; quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The parsed response body (the problem document, or the raw text when it was not JSON). */
  readonly body: unknown;
  /** The response headers. */
  readonly headers: Headers;

  constructor(status: number, problem: Partial<Problem>, body: unknown, headers: Headers) {
    const type = problem.type ?? "about:blank";
    const title = problem.title ?? `HTTP ${status}`;
    super(problem.detail ? `${title}: ${problem.detail}` : title);
    this.name = new.target.name;
    this.status = status;
    this.type = type;
    this.code = type.startsWith(PROBLEM_BASE) ? type.slice(PROBLEM_BASE.length) : type;
    this.title = title;
    this.detail = problem.detail ?? "";
    this.requestId = problem.requestId ?? headers.get("x-request-id") ?? undefined;
    this.body = body;
    this.headers = headers;
  }
}

/** 400: `validation-failed` (see `errors`) or `malformed-request`. */
export class ValidationError extends ApiError {
  /** Every invalid value, by JSON pointer (`/3/cipCode`, `/query/limit`). */
  readonly errors: ProblemFieldError[];
  constructor(status: number, problem: Partial<Problem>, body: unknown, headers: Headers) {
    super(status, problem, body, headers);
    this.errors = problem.errors ?? [];
  }
}

/** 401: the credential is missing, malformed, unknown, revoked or expired. */
export class AuthenticationError extends ApiError {}

/** 403: the credential lacks the scope or environment the operation needs. */
export class PermissionError extends ApiError {}

/** 403 `not-steward`: the write concerns an institution the caller's organization does not steward. */
export class NotStewardError extends PermissionError {
  /** The (first) institution outside the organization's stewardship. */
  readonly institutionId: string | undefined;
  /** For a body, every item outside stewardship by JSON pointer (`/1/institutionId`). */
  readonly errors: ProblemFieldError[];
  constructor(status: number, problem: Partial<Problem>, body: unknown, headers: Headers) {
    super(status, problem, body, headers);
    this.institutionId = problem.institutionId;
    this.errors = problem.errors ?? [];
  }
}

/** 404: no such record in the caller's environment (or organization). */
export class NotFoundError extends ApiError {}

/** 409: `conflict` (see `existingId`), `invalid-transition` or `idempotency-key-reused`. */
export class ConflictError extends ApiError {
  /** For a duplicate, the id of the record that already exists. */
  readonly existingId: string | undefined;
  constructor(status: number, problem: Partial<Problem>, body: unknown, headers: Headers) {
    super(status, problem, body, headers);
    this.existingId = problem.existingId;
  }
}

/** 412: `If-Match` does not match the record's current `ETag`. */
export class PreconditionFailedError extends ApiError {}

/** 429: a rate-limit bucket is empty (the credential's, its organization's, or the client address's). */
export class RateLimitError extends ApiError {
  /** Seconds to wait before retrying, from `Retry-After`, when the server sent one. */
  readonly retryAfter: number | undefined;
  constructor(status: number, problem: Partial<Problem>, body: unknown, headers: Headers) {
    super(status, problem, body, headers);
    const delay = retryAfterMs(headers.get("retry-after"), Date.now());
    this.retryAfter = delay === undefined ? undefined : Math.ceil(delay / 1000);
  }
}

type ErrorClass = new (status: number, problem: Partial<Problem>, body: unknown, headers: Headers) => ApiError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  412: PreconditionFailedError,
  429: RateLimitError,
};

// @generated begin problem-types (scripts/generate.ts from openapi.yaml; run `npm run generate`)
/** Every problem type of the contract, from `x-problem-types` in openapi.yaml. */
export type ProblemCode =
  | "validation-failed"
  | "invalid-cursor"
  | "malformed-request"
  | "unauthenticated"
  | "forbidden"
  | "not-steward"
  | "not-found"
  | "no-sign-in-connection"
  | "method-not-allowed"
  | "not-acceptable"
  | "conflict"
  | "invalid-transition"
  | "ambiguous-rule"
  | "duplicate-rule"
  | "course-code-taken"
  | "idempotency-key-reused"
  | "cursor-expired"
  | "precondition-failed"
  | "payload-too-large"
  | "unsupported-media-type"
  | "rate-limited"
  | "too-many-exports"
  | "too-many-streams"
  | "request-header-too-large"
  | "internal-error"
  | "identity-provider-unavailable"
  | "not-implemented"
  | "service-unavailable";

/** The error class of each problem type. */
const BY_CODE: Record<ProblemCode, ErrorClass> = {
  "validation-failed": ValidationError,
  "invalid-cursor": ValidationError,
  "malformed-request": ValidationError,
  unauthenticated: AuthenticationError,
  forbidden: PermissionError,
  "not-steward": NotStewardError,
  "not-found": NotFoundError,
  "no-sign-in-connection": NotFoundError,
  "method-not-allowed": ApiError,
  "not-acceptable": ApiError,
  conflict: ConflictError,
  "invalid-transition": ConflictError,
  "ambiguous-rule": ConflictError,
  "duplicate-rule": ConflictError,
  "course-code-taken": ConflictError,
  "idempotency-key-reused": ConflictError,
  "cursor-expired": ApiError,
  "precondition-failed": PreconditionFailedError,
  "payload-too-large": ApiError,
  "unsupported-media-type": ApiError,
  "rate-limited": RateLimitError,
  "too-many-exports": RateLimitError,
  "too-many-streams": RateLimitError,
  "request-header-too-large": ApiError,
  "internal-error": ApiError,
  "identity-provider-unavailable": ApiError,
  "not-implemented": ApiError,
  "service-unavailable": ApiError,
};
// @generated end

/** The typed error for a failed response whose body has already been parsed. */
export function apiErrorFrom(response: Response, body: unknown): ApiError {
  const problem = isObject(body)
    ? (body as Partial<Problem>)
    : { detail: typeof body === "string" ? body.slice(0, 500) : undefined };
  const code = problem.type?.startsWith(PROBLEM_BASE)
    ? (problem.type.slice(PROBLEM_BASE.length) as ProblemCode)
    : undefined;
  const ErrorType = (code && BY_CODE[code]) || BY_STATUS[response.status] || ApiError;
  return new ErrorType(
    response.status,
    { title: response.statusText || undefined, ...problem },
    body,
    response.headers,
  );
}

/** Reads a failed response's body (JSON when it parses, text otherwise) and returns the typed error. */
export async function apiErrorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page, say): keep the text.
  }
  return apiErrorFrom(response, body);
}

/** `Retry-After` (delay-seconds or an HTTP-date) as milliseconds from `nowMs`. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
