// Keys: API key management for the calling organization.
import { createApiKeyFor, listApiKeys, revokeApiKey } from "../services/api-keys.ts";
import { listHeaders, pageParams, pagination } from "../http/paging.ts";
import type { OperationHandler } from "./types.ts";

export const listKeys: OperationHandler<"listKeys"> = async (request, { caller: credential, services }) => {
  const page = pageParams(request.query);
  const { items, total } = await listApiKeys(services.adminDependencies.database.prisma, credential.organizationId, credential.environment, page);
  return {
    status: 200,
    body: { data: items, pagination: pagination(page, total, items.length) },
    headers: listHeaders(request.url, page, total),
  };
};

export const createKey: OperationHandler<"createKey"> = async (request, { caller: credential, services }) => {
  const { view, key } = await createApiKeyFor(services.adminDependencies.database.prisma, credential, request.body ?? {});
  return { status: 201, body: { data: { ...view, key } } };
};

export const revokeKey: OperationHandler<"revokeKey"> = async (request, { caller: credential, services }) => {
  const revoked = await revokeApiKey(
    services.adminDependencies.database.prisma,
    { organizationId: credential.organizationId, environment: credential.environment },
    request.params.id,
  );
  services.adminDependencies.authenticator.forget(revoked.id);
  return { status: 204, body: undefined };
};
