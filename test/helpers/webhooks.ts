// Webhook endpoints for tests, inserted directly (what POST /webhooks stores).
import type { Db } from "../../src/db/database.ts";
import type { Environment } from "../../src/services/types.ts";
import { newId } from "../../src/ids.ts";
import { newWebhookSecret } from "../../src/webhooks/signing.ts";

export interface TestEndpoint {
  id: string;
  secret: string;
}

export async function insertEndpoint(
  db: Db,
  values: { organizationId: string; url: string; events: string[]; environment?: Environment; status?: "enabled" | "disabled" },
): Promise<TestEndpoint> {
  const secret = newWebhookSecret();
  const endpoint = await db.webhookEndpoint.create({
    data: {
      id: newId("wh"),
      environment: values.environment ?? "live",
      organizationId: values.organizationId,
      url: values.url,
      events: values.events,
      status: values.status ?? "enabled",
      secret,
    },
  });
  return { id: endpoint.id, secret };
}
