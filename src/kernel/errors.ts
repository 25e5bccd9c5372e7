// Domain errors thrown by services and middleware, and the one mapping from an
// error to an RFC 9457 problem document.
import { PROBLEM_TYPES, type ProblemSlug } from "../../generated/problem-types.ts";

export const PROBLEM_BASE = "https://course-equivalency.org/problems/";

export interface FieldError {
  pointer: string;
  message: string;
}

/** RFC 6901: a member name as one segment of a JSON pointer. */
export function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  requestId?: string;
  errors?: FieldError[];
  existingId?: string;
  allowed?: string[];
  institutionId?: string;
  conflictingEquivalencyIds?: string[];
}

export { PROBLEM_TYPES, type ProblemSlug };

/** An error that is answered to the client as a problem document. */
export class ProblemError extends Error {
  readonly status: number;
  readonly title: string;
  /** Extra members of the problem document (errors, existingId, …). */
  readonly extensions: Partial<ProblemDocument>;
  /** Response headers that belong to this problem (Allow, Retry-After, …). */
  readonly headers: Record<string, string>;

  constructor(
    readonly slug: ProblemSlug,
    detail: string,
    options: { extensions?: Partial<ProblemDocument>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = new.target.name;
    this.status = PROBLEM_TYPES[slug].status;
    this.title = PROBLEM_TYPES[slug].title;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }

  toProblem(requestId: string): ProblemDocument {
    return {
      type: PROBLEM_BASE + this.slug,
      title: this.title,
      status: this.status,
      detail: this.message,
      requestId,
      ...this.extensions,
    };
  }
}

export class ValidationError extends ProblemError {
  constructor(
    detail: string,
    readonly errors: FieldError[],
  ) {
    super("validation-failed", detail, { extensions: { errors } });
  }

  static single(pointer: string, message: string): ValidationError {
    return new ValidationError(message, [{ pointer, message }]);
  }

  /** One problem for several offending values: the detail names the value when there is one. */
  static of(errors: FieldError[], detailForMany = `${errors.length} values are not valid.`): ValidationError {
    return new ValidationError(
      errors.length === 1 ? `${errors[0].pointer}: ${errors[0].message}` : detailForMany,
      errors,
    );
  }
}

export class MalformedRequestError extends ProblemError {
  constructor(detail: string) {
    super("malformed-request", detail);
  }
}

/** A list's `after` cursor that is malformed, altered or foreign (another list's, organization's, environment's or filters'). */
export class InvalidCursorError extends ProblemError {
  constructor(
    message: string,
    readonly pointer = "/query/after",
  ) {
    super("invalid-cursor", `${pointer}: ${message}`, {
      extensions: { errors: [{ pointer, message }] },
    });
  }
}

export class AuthenticationError extends ProblemError {
  constructor(detail: string, wwwAuthenticate: string) {
    super("unauthenticated", detail, { headers: { "WWW-Authenticate": wwwAuthenticate } });
  }
}

export class ForbiddenError extends ProblemError {
  constructor(detail: string) {
    super("forbidden", detail);
  }
}

/** A write about an institution that the caller's organization does not steward. */
export class NotStewardError extends ProblemError {
  constructor(
    readonly institutionIds: string[],
    context: { organization: string; environment: string },
    errors: FieldError[] = [],
  ) {
    const named =
      institutionIds.length === 1
        ? institutionIds[0]
        : `${institutionIds.join(", ")} (${institutionIds.length} institutions)`;
    super(
      "not-steward",
      `The organization ${context.organization} does not steward ${named} in the ${context.environment} environment; ` +
        "an administrator grants stewardship with `orgs grant`. Nothing was written.",
      { extensions: { institutionId: institutionIds[0], ...(errors.length ? { errors } : {}) } },
    );
  }
}

/** A sign-in that cannot go ahead (bad, used or expired link; disabled user); `reason` is stable for pages and tests. */
export class SignInRefusedError extends ProblemError {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super("unauthenticated", detail);
  }
}

export class NotFoundError extends ProblemError {
  constructor(detail: string) {
    super("not-found", detail);
  }
}

/** A code of a course (its own or a cross-listed one) that another course of the institution has. */
export class CourseCodeTakenError extends ProblemError {
  constructor(existingId: string, errors: FieldError[], code: string, institutionId: string) {
    super(
      "course-code-taken",
      `${code} is already a code of another course of ${institutionId}: ${existingId}. A code belongs to one course of an institution.`,
      { extensions: { existingId, errors } },
    );
  }
}

export class ConflictError extends ProblemError {
  constructor(detail: string, existingId?: string) {
    super("conflict", detail, { extensions: existingId ? { existingId } : {} });
  }
}

/**
 * An accepted rule beside another accepted one of the same target institution, source set,
 * priority and overlapping dates: `ambiguous-rule` when the outcomes differ, `duplicate-rule`
 * when they are the same.
 */
export class RuleOverlapError extends ProblemError {
  constructor(
    readonly ambiguous: boolean,
    readonly conflictingEquivalencyIds: string[],
    where: { targetInstitutionId: string; priority: number },
  ) {
    const ids = conflictingEquivalencyIds.join(", ");
    const base = `Another accepted rule of ${where.targetInstitutionId} for the same source courses (a source course set of one is a set of the other), priority ${where.priority} and overlapping dates`;
    super(
      ambiguous ? "ambiguous-rule" : "duplicate-rule",
      ambiguous
        ? `${base} gives a different outcome: ${ids}. Make one of them conflict, change its dates or give it another priority.`
        : `${base} gives the same outcome: ${ids}.`,
      { extensions: { conflictingEquivalencyIds } },
    );
  }
}

export class InvalidTransitionError extends ProblemError {
  constructor(from: string, to: string, allowed: readonly string[]) {
    const options = allowed.length
      ? `allowed from ${from}: ${allowed.join(", ")}`
      : `no transition is allowed from ${from}`;
    super("invalid-transition", `The status transition ${from} -> ${to} is not allowed (${options}).`);
  }
}

export class PreconditionFailedError extends ProblemError {
  constructor(detail: string) {
    super("precondition-failed", detail);
  }
}

/** A feed cursor (or `since`) from before the events that retention removed: resynchronise from an export. */
export class CursorExpiredError extends ProblemError {
  constructor(retentionDays: number) {
    super(
      "cursor-expired",
      `Events after this position were removed (the feed keeps them ${retentionDays} days). Resynchronise from an export (GET /exports), then read the feed from then on.`,
    );
  }
}

/** The organization holds as many event streams in this process as allowed. */
export class TooManyStreamsError extends ProblemError {
  constructor(limit: number) {
    super(
      "too-many-streams",
      `The organization already holds ${limit} event streams (the limit per API process); close one, or poll GET /events.`,
      { headers: { "Retry-After": "5" } },
    );
  }
}

export class NotImplementedError extends ProblemError {
  constructor(operationId: string) {
    super("not-implemented", `The operation ${operationId} is described by the contract but not implemented yet.`);
  }
}

/** Seconds a client is asked to wait while the database is not reachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** The database server cannot be reached or went away: Prisma's codes, driver-adapter kinds, SQLSTATEs, socket errors. */
const UNREACHABLE_CODES = new Set([
  "P1001",
  "P1002",
  "P1017",
  "P2024",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
]);
const UNREACHABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const UNREACHABLE_MESSAGE =
  /Connection terminated|Can't reach database server|Server has closed the connection|Client has encountered a connection error|the database system is (starting up|shutting down)|terminating connection due to administrator command|timeout exceeded when trying to connect/i;

/** True when an error (or any error it wraps) says the database is unreachable rather than that the request failed. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 5) return false;
  const e = error as { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === "string" && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith("08"))) return true;
  if (typeof e.kind === "string" && UNREACHABLE_KINDS.has(e.kind)) return true;
  if (typeof e.message === "string" && UNREACHABLE_MESSAGE.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** Turns anything thrown into a problem; unknown errors become a bare 500. */
export function toProblemError(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (isDatabaseUnavailable(error)) {
    return new ProblemError(
      "service-unavailable",
      "The database is not reachable at the moment; retry in a few seconds.",
      { headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) } },
    );
  }
  const status = (error as { status?: unknown; expose?: unknown })?.status;
  // Koa and its body parsers throw http-errors; only their 4xx are safe to show.
  if (typeof status === "number" && status === 413) {
    return new ProblemError("payload-too-large", "The request body is larger than the service accepts.");
  }
  if (typeof status === "number" && status === 415) {
    return new ProblemError("unsupported-media-type", "The request body must be application/json.");
  }
  return new ProblemError(
    "internal-error",
    "The service failed to answer this request. Quote the request id when reporting it.",
  );
}

// Named not-found errors
type EnvironmentName = import("../../generated/prisma/client.ts").Environment;
export const notFound = {
  institution: (id: string, environment: EnvironmentName) =>
    new NotFoundError(`No institution with id "${id}" in the ${environment} environment.`),
  course: (id: string, environment: EnvironmentName) =>
    new NotFoundError(`No course with id "${id}" in the ${environment} environment.`),
  equivalency: (id: string, environment: EnvironmentName) =>
    new NotFoundError(`No equivalency with id "${id}" in the ${environment} environment.`),
  equivalencyVersion: (id: string, version: number, currentVersion: number) =>
    new NotFoundError(`Equivalency ${id} has no version ${version}; its current version is ${currentVersion}.`),
  dataset: (id: string, environment: EnvironmentName) =>
    new NotFoundError(`No dataset version with id "${id}" in the ${environment} environment.`),
  apiKey: (id: string) => new NotFoundError(`No API key with id "${id}".`),
  organizationSlug: (slug: string) => new NotFoundError(`No organization has the slug "${slug}".`),
  oauthClient: (id: string) => new NotFoundError(`No OAuth client with id "${id}".`),
  webhook: (id: string) => new NotFoundError(`No webhook endpoint with id "${id}".`),
  event: (id: string, environment: EnvironmentName) =>
    new NotFoundError(`No event with id "${id}" in the ${environment} environment (events are kept at least 30 days).`),
  user: (id: string) => new NotFoundError(`No member with id "${id}".`),
  webhookDelivery: (id: string, webhookId: string) =>
    new NotFoundError(`No delivery with id "${id}" for webhook endpoint "${webhookId}".`),
};
