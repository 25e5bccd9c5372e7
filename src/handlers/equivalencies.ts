// Equivalencies: decisions with provenance and an immutable version history.
import * as equivalencies from "../services/equivalencies.ts";
import { getVersion, listVersions } from "../services/equivalency-versions.ts";
import { requestFingerprint, withIdempotency } from "../services/idempotency.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import { API_ROOT } from "../api.ts";
import type { OperationHandler } from "./types.ts";

export const listEquivalencies: OperationHandler<"listEquivalencies"> = async (request, { credential, services }) => {
  const page = pageParams(request.query);
  const { sourceCourse, targetInstitution, status, provenance, expand } = request.query;
  const { items, total } = await equivalencies.listEquivalencies(
    services.database.prisma,
    credential.environment,
    { sourceCourse, targetInstitution, status, provenance },
    page,
    expand === "course",
  );
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const getEquivalency: OperationHandler<"getEquivalency"> = async (request, { credential, services }) => {
  const { view, etag } = await equivalencies.getEquivalency(services.database.prisma, credential.environment, request.params.id);
  return { status: 200, body: { data: view }, headers: { ETag: etag } };
};

export const createEquivalency: OperationHandler<"createEquivalency"> = async (request, { credential, services }) => {
  const db = services.database.prisma;
  const dryRun = request.query.dryRun === true;
  const scope = {
    credentialId: credential.id,
    key: request.headers["idempotency-key"],
    operationId: "createEquivalency",
    fingerprint: requestFingerprint("createEquivalency", { dryRun }, request.body),
  };
  return withIdempotency(db, scope, async () => {
    const outcome = await equivalencies.createEquivalency(db, credential, request.body, { dryRun });
    if (outcome.kind === "preview") return { status: 200 as const, body: { data: outcome.preview, dryRun: true as const } };
    return {
      status: 201 as const,
      body: { data: outcome.view },
      headers: { ETag: outcome.etag, Location: `${API_ROOT}/equivalencies/${outcome.view.id}` },
    };
  });
};

export const updateEquivalency: OperationHandler<"updateEquivalency"> = async (request, { credential, services }) => {
  const { view, etag } = await equivalencies.updateEquivalency(
    services.database.prisma,
    credential,
    request.params.id,
    request.body,
    request.headers["if-match"],
  );
  return { status: 200, body: { data: view }, headers: { ETag: etag } };
};

export const listEquivalencyVersions: OperationHandler<"listEquivalencyVersions"> = async (request, { credential, services }) => ({
  status: 200,
  body: { data: await listVersions(services.database.prisma, credential.environment, request.params.id) },
});

export const getEquivalencyVersion: OperationHandler<"getEquivalencyVersion"> = async (request, { credential, services }) => ({
  status: 200,
  body: { data: await getVersion(services.database.prisma, credential.environment, request.params.id, request.params.version) },
});
