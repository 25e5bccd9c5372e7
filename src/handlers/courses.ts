// Courses: listing, reading with the institution embedded, and batch upsert.
import { getCourse as findCourse, listCourses as findCourses, upsertCourses as upsert } from "../services/courses.ts";
import { requestFingerprint, withIdempotency } from "../services/idempotency.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import type { OperationHandler } from "./types.ts";

export const listCourses: OperationHandler<"listCourses"> = async (request, { credential, services }) => {
  const page = pageParams(request.query);
  const { institution, cip, q } = request.query;
  const { items, total } = await findCourses(services.database.prisma, credential.environment, { institution, cip, q }, page);
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const getCourse: OperationHandler<"getCourse"> = async (request, { credential, services }) => ({
  status: 200,
  body: { data: await findCourse(services.database.prisma, credential.environment, request.params.id) },
});

export const upsertCourses: OperationHandler<"upsertCourses"> = async (request, { credential, services }) => {
  const db = services.database.prisma;
  const dryRun = request.query.dryRun === true;
  const single = !Array.isArray(request.body);
  const items = Array.isArray(request.body) ? request.body : [request.body];
  const scope = {
    credentialId: credential.id,
    key: request.headers["idempotency-key"],
    operationId: "upsertCourses",
    fingerprint: requestFingerprint("upsertCourses", { dryRun }, request.body),
  };
  return withIdempotency(db, scope, async () => {
    const result = await upsert(db, credential, items, { dryRun, single });
    return dryRun ? { status: 200 as const, body: { ...result, dryRun: true } } : { status: 201 as const, body: result };
  });
};
