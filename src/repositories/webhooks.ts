// Webhook endpoints: registration records with their sealed secrets. An endpoint is
// visible to its organization in its environment until it is (softly) deleted.
import type { Executor } from "./executor.ts";
import type { Prisma, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { pageOf, type Page } from "./paging.ts";

/** Whose endpoints a query may see. */
export interface EndpointOwner {
  organizationId: string;
  environment: Environment;
}

function visible(owner: EndpointOwner, id: string) {
  return { id, organizationId: owner.organizationId, environment: owner.environment, deletedAt: null };
}

export function createWebhooksRepository(db: Executor) {
  return {
    create(record: Prisma.WebhookEndpointUncheckedCreateInput): Promise<WebhookEndpoint> {
      return db.webhookEndpoint.create({ data: record });
    },

    findById(id: string): Promise<WebhookEndpoint> {
      return db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    },

    findVisible(owner: EndpointOwner, id: string): Promise<WebhookEndpoint | null> {
      return db.webhookEndpoint.findFirst({ where: visible(owner, id) });
    },

    listPage(owner: EndpointOwner, page: Page) {
      const where = { organizationId: owner.organizationId, environment: owner.environment, deletedAt: null };
      return pageOf(
        page,
        [
          ["createdAt", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) =>
          db.webhookEndpoint.findMany({ where: { AND: [where, after] }, orderBy, skip, take }),
        () => db.webhookEndpoint.count({ where }),
      );
    },

    /** Changes the endpoint only while it is still visible to the owner; answers whether it did. */
    async updateVisible(
      owner: EndpointOwner,
      id: string,
      data: Prisma.WebhookEndpointUpdateManyMutationInput,
    ): Promise<boolean> {
      const { count } = await db.webhookEndpoint.updateMany({ where: visible(owner, id), data });
      return count === 1;
    },

    /** Replaces the secret only if it is still `expectedSecret` (a compare-and-swap); answers whether it did. */
    async replaceSecretIf(
      owner: EndpointOwner,
      id: string,
      expectedSecret: string,
      data: Prisma.WebhookEndpointUpdateManyMutationInput,
    ): Promise<boolean> {
      const { count } = await db.webhookEndpoint.updateMany({
        where: { ...visible(owner, id), secret: expectedSecret },
        data,
      });
      return count === 1;
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
