// One error class per problem kind of the contract (RFC 9457 problem documents),
// so callers can `catch (e) { if (e instanceof NotFoundError) … }`. The class of each problem type,
// ProblemCode and the members each class reads from its problem documents are generated from
// `x-problem-types` in openapi.yaml (the region at the end; scripts/sdk-errors.ts).
import type { components } from "./api-types.js";

export type Problem = components["schemas"]["Problem"];
export type ProblemFieldError = components["schemas"]["ProblemFieldError"];

const PROBLEM_BASE = "https://course-equivalency.org/problems/";

/** Any answer of the API that is not a success. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the generated interface of the same name types the problem's extension members, which ApiError's constructor sets.
export class ApiError extends Error {
  /** HTTP status of the response. */
  readonly status: number;
  /** URI of the problem type, e.g. `https://course-equivalency.org/problems/not-found`. */
  readonly type: string;
  /**
   * The problem type's code, the last segment of `type` (`not-found`, `ambiguous-rule`, …);
   * undefined when the answer is not one of the contract's problem types (a proxy's error page,
   * `about:blank`, or a type added to the API after this SDK was built: see `type`).
   */
  readonly code: ProblemCode | undefined;
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
    this.code = codeOf(type);
    this.title = title;
    this.detail = problem.detail ?? "";
    this.requestId = problem.requestId ?? headers.get("x-request-id") ?? undefined;
    this.body = body;
    this.headers = headers;
    // The members this problem type adds to its document (ConflictError's conflictingEquivalencyIds, …).
    for (const name of (this.code && EXTENSIONS[this.code]) || [])
      if (problem[name] !== undefined)
        Object.defineProperty(this, name, {
          value: problem[name],
          enumerable: true,
          configurable: true,
          writable: true,
        });
  }
}

/** The code of a problem type of the contract, from its URI. */
function codeOf(type: string | undefined): ProblemCode | undefined {
  const code = type?.startsWith(PROBLEM_BASE) ? type.slice(PROBLEM_BASE.length) : undefined;
  return code !== undefined && Object.hasOwn(BY_CODE, code) ? (code as ProblemCode) : undefined;
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

/** 403 `not-steward`: the write concerns an institution the caller's organization does not steward (`institutionId`). */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the generated interface of the same name types the problem's extension members, which ApiError's constructor sets.
export class NotStewardError extends PermissionError {
  /** For a body, every item outside stewardship by JSON pointer (`/1/institutionId`). */
  readonly errors: ProblemFieldError[];
  constructor(status: number, problem: Partial<Problem>, body: unknown, headers: Headers) {
    super(status, problem, body, headers);
    this.errors = problem.errors ?? [];
  }
}

/** 404: no such record in the caller's environment (or organization). */
export class NotFoundError extends ApiError {}

/**
 * 409: `conflict` (see `existingId`), `ambiguous-rule` and `duplicate-rule` (see
 * `conflictingEquivalencyIds`), `invalid-transition` or `idempotency-key-reused`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the generated interface of the same name types the problem's extension members, which ApiError's constructor sets.
export class ConflictError extends ApiError {}

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

/** The members of `Problem` each problem type adds to its document (`extensions` in x-problem-types). */
const EXTENSIONS: Partial<Record<ProblemCode, readonly (keyof Problem)[]>> = {
  "validation-failed": ["errors"],
  "invalid-cursor": ["errors"],
  "not-steward": ["institutionId", "errors"],
  "method-not-allowed": ["allowed"],
  conflict: ["existingId"],
  "ambiguous-rule": ["conflictingEquivalencyIds"],
  "duplicate-rule": ["conflictingEquivalencyIds"],
  "course-code-taken": ["existingId", "errors"],
};

/** The extension members of NotStewardError's problem types, present when the problem document carries them. */
export interface NotStewardError {
  /** For `not-steward`, the (first) institution the caller's organization does not steward. */
  readonly institutionId?: Problem["institutionId"];
}

/** The extension members of ApiError's problem types, present when the problem document carries them. */
export interface ApiError {
  /** For `method-not-allowed`, the methods the path allows (also in the `Allow` header). */
  readonly allowed?: Problem["allowed"];
}

/** The extension members of ConflictError's problem types, present when the problem document carries them. */
export interface ConflictError {
  /** For a duplicate (`conflict`), the id of the existing record. */
  readonly existingId?: Problem["existingId"];
  /** For `ambiguous-rule` and `duplicate-rule`, the ids of the accepted rules the write would contradict or repeat. */
  readonly conflictingEquivalencyIds?: Problem["conflictingEquivalencyIds"];
  /** For `validation-failed`, every invalid value with its location. */
  readonly errors?: Problem["errors"];
}
// @generated end

/** The typed error for a failed response whose body has already been parsed. */
export function apiErrorFrom(response: Response, body: unknown): ApiError {
  const problem = isObject(body)
    ? (body as Partial<Problem>)
    : { detail: typeof body === "string" ? body.slice(0, 500) : undefined };
  const code = codeOf(problem.type);
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
