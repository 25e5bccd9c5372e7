// Equivalencies: decisions with provenance and an immutable version history.
import { listHeaders, listResponse, pageParams, pagination, renderedListResponse } from "./paging.ts";
import { API_ROOT } from "../kernel/document.ts";
import type { OperationHandler } from "./types.ts";
import { canonicalRule, institutionFilter } from "./canonical-input.ts";
import type { CreatedEquivalency } from "../services/equivalencies.ts";

export const listEquivalencies: OperationHandler<"listEquivalencies"> = async (request, { caller, services }) => {
  const page = pageParams(request, { caller, services });
  const { sourceCourse, targetInstitution, status, provenance, kind, asOf, updatedSince, expand } = request.query;
  const filters = {
    sourceCourse,
    targetInstitution: institutionFilter(targetInstitution),
    status,
    provenance,
    kind,
    asOf,
    updatedSince,
  };
  if (expand === "course") {
    return listResponse(
      request.url,
      page,
      await services.equivalencies.listExpandedEquivalencies(caller, filters, page),
    );
  }
  return renderedListResponse(request.url, page, await services.equivalencies.listEquivalencies(caller, filters, page));
};

export const listEquivalencyOverlaps: OperationHandler<"listEquivalencyOverlaps"> = async (
  request,
  { caller, services },
) => {
  const page = pageParams(request, { caller, services });
  const { targetInstitution } = request.query;
  return listResponse(
    request.url,
    page,
    await services.equivalencies.listEquivalencyOverlaps(
      caller,
      { targetInstitution: institutionFilter(targetInstitution) },
      page,
    ),
  );
};

export const importEquivalencies: OperationHandler<"importEquivalencies"> = async (request, { caller, services }) => ({
  status: 200,
  body: await services.equivalencyImport.importEquivalencies(caller, request.body, {
    dryRun: request.query.dryRun === true,
  }),
});

export const getEquivalency: OperationHandler<"getEquivalency"> = async (request, { caller, services }) => {
  const { representation, etag } = await services.equivalencies.getEquivalency(caller, request.params.id);
  return { status: 200, json: `{"data":${representation}}`, headers: { ETag: etag } };
};

export const createEquivalency: OperationHandler<"createEquivalency"> = async (request, { caller, services }) => {
  const dryRun = request.query.dryRun === true;
  const idempotent = {
    key: request.headers["idempotency-key"],
    operationId: "createEquivalency",
    query: { dryRun },
    body: request.body,
  };
  const answer = (created: CreatedEquivalency) => ({
    status: 201 as const,
    body: { data: created.view, dryRun: false as const },
    headers: { ETag: created.etag, Location: `${API_ROOT}/equivalencies/${created.view.id}` },
  });
  // The answer to remember commits with the record (services/idempotency.ts).
  return services.idempotency.withIdempotency(caller, idempotent, async (remember) => {
    const outcome = await services.equivalencies.createEquivalency(caller, canonicalRule(request.body), {
      dryRun,
      beforeCommit: (transaction, created) => remember(transaction, answer(created)),
    });
    if (outcome.kind === "preview")
      return { status: 200 as const, body: { data: outcome.preview, dryRun: true as const } };
    return answer(outcome);
  });
};

export const updateEquivalency: OperationHandler<"updateEquivalency"> = async (request, { caller, services }) => {
  const { view, etag } = await services.equivalencies.updateEquivalency(
    caller,
    request.params.id,
    request.body,
    request.headers["if-match"],
  );
  return { status: 200, body: { data: view }, headers: { ETag: etag } };
};

export const listEquivalencyVersions: OperationHandler<"listEquivalencyVersions"> = async (
  request,
  { caller, services },
) => {
  // The versions page by `after` only: links and the next cursor never carry an offset.
  const page = pageParams(request, { caller, services }, { cursorOnly: true });
  const { current, versions, total, next } = await services.equivalencies.listEquivalencyVersions(
    caller,
    request.params.id,
    page,
  );
  const paging = pagination(page, { total, next }, versions.length);
  return {
    status: 200,
    body: { data: { current, versions }, pagination: paging },
    headers: listHeaders(request.url, page, paging),
  };
};

export const getEquivalencyVersion: OperationHandler<"getEquivalencyVersion"> = async (
  request,
  { caller, services },
) => ({
  status: 200,
  body: { data: await services.equivalencies.getEquivalencyVersion(caller, request.params.id, request.params.version) },
});
