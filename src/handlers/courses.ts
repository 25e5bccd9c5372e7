// Courses: listing, reading with the institution embedded, and batch upsert.
import { API_ROOT } from "../kernel/document.ts";
import { listResponse, pageParams } from "./paging.ts";
import { ValidationError, type FieldError } from "../kernel/errors.ts";
import { rejectUnstorableText } from "../kernel/unstorable-text.ts";
import type { OperationHandler, RequestCheck } from "./types.ts";
import type { UpsertResult } from "../services/courses.ts";

export const listCourses: OperationHandler<"listCourses"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  const { institution, cip, q, code, updatedSince } = request.query;
  const filters = { institution, cip, q, code, updatedSince };
  return listResponse(request.url, page, await services.courses.listCourses(caller, filters, page));
};

export const getCourse: OperationHandler<"getCourse"> = async (request, { caller, services }) => ({
  status: 200,
  body: { data: await services.courses.getCourse(caller, request.params.id) },
});

export const upsertCourses: OperationHandler<"upsertCourses"> = async (request, { caller, services }) => {
  const dryRun = request.query.dryRun === true;
  const single = !Array.isArray(request.body);
  const items = Array.isArray(request.body) ? request.body : [request.body];
  const idempotent = {
    key: request.headers["idempotency-key"],
    operationId: "upsertCourses",
    query: { dryRun },
    body: request.body,
  };
  const answer = (result: UpsertResult) =>
    dryRun
      ? { status: 200 as const, body: { ...result, dryRun: true } }
      : {
          status: 201 as const,
          body: result,
          headers: result.data[0]?.id ? { Location: `${API_ROOT}/courses/${result.data[0].id}` } : undefined,
        };
  // The answer to remember commits with the batch (services/idempotency.ts).
  return services.idempotency.withIdempotency(caller, idempotent, async (remember) =>
    answer(
      await services.courses.upsertCourses(caller, items, {
        dryRun,
        single,
        beforeCommit: (transaction, result) => remember(transaction, answer(result)),
      }),
    ),
  );
};

/**
 * A batch whose schema fails is also checked against the catalog (institutions, CIP codes,
 * duplicates) for the items whose fields have the right type: one pass, one problem, every bad item.
 */
export const upsertCoursesCheck: RequestCheck<"upsertCourses"> = async (body, schemaErrors, { caller, services }) => {
  let referenceErrors: FieldError[];
  try {
    // Text PostgreSQL cannot compare never reaches a query: it is reported instead.
    rejectUnstorableText({ params: {}, query: {}, body });
    referenceErrors = await services.courses.referenceErrorsOf(caller, Array.isArray(body) ? body : [body], {
      single: !Array.isArray(body),
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    referenceErrors = error.errors;
  }
  const same = (a: FieldError, b: FieldError) => a.pointer === b.pointer && a.message === b.message;
  return byItem([...schemaErrors, ...referenceErrors.filter((r) => !schemaErrors.some((s) => same(s, r)))]);
};

/** Errors of a batch in item order (`/0/…`, `/1/…`, …), each item's in the order found. */
function byItem(errors: FieldError[]): FieldError[] {
  const item = (e: FieldError) => Number(/^\/(\d+)(?:\/|$)/.exec(e.pointer)?.[1] ?? -1);
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => item(a.e) - item(b.e) || a.i - b.i)
    .map(({ e }) => e);
}
