// Courses: listing, reading with the institution embedded, and batch upsert.
import { API_ROOT } from "../pipeline/contract.ts";
import { listResponse, pageParams } from "./paging.ts";
import type { OperationHandler } from "./types.ts";

export const listCourses: OperationHandler<"listCourses"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  const { institution, cip, q } = request.query;
  return listResponse(request.url, page, await services.courses.listCourses(caller, { institution, cip, q }, page));
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
  return services.idempotency.withIdempotency(caller, idempotent, async () => {
    const result = await services.courses.upsertCourses(caller, items, { dryRun, single });
    return dryRun
      ? { status: 200 as const, body: { ...result, dryRun: true } }
      : {
          status: 201 as const,
          body: result,
          headers: result.data[0]?.id ? { Location: `${API_ROOT}/courses/${result.data[0].id}` } : undefined,
        };
  });
};
