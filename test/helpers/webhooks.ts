// Webhook endpoints for tests, inserted directly (what POST /webhooks stores: the secret sealed).
import type { Db } from "../../src/db/database.ts";
import type { Environment } from "../../src/services/types.ts";
import { newId } from "../../src/kernel/ids.ts";
import { newWebhookSecret, secretPrefix } from "../../src/webhooks/signing.ts";
import type { SecretBox } from "../../src/kernel/secret-box.ts";
import { webhookSecretContext } from "../../src/repositories/secrets.ts";

export interface TestEndpoint {
  id: string;
  secret: string;
}

export async function insertEndpoint(
  db: Db,
  secrets: SecretBox,
  values: {
    organizationId: string;
    url: string;
    events: string[];
    environment?: Environment;
    status?: "enabled" | "disabled";
  },
): Promise<TestEndpoint> {
  const secret = newWebhookSecret();
  const id = newId("wh");
  const endpoint = await db.webhookEndpoint.create({
    data: {
      id,
      environment: values.environment ?? "live",
      organizationId: values.organizationId,
      url: values.url,
      events: values.events,
      status: values.status ?? "enabled",
      secret: secrets.seal(secret, webhookSecretContext(id)),
      secretPrefix: secretPrefix(secret),
    },
  });
  return { id: endpoint.id, secret };
}

/** What the database holds for an endpoint, its secrets opened. */
export async function storedSecrets(
  db: Db,
  secrets: SecretBox,
  id: string,
): Promise<{ secret: string; previousSecret: string | null }> {
  const endpoint = await db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
  const open = (value: string | null) => (value === null ? null : secrets.open(value, webhookSecretContext(id)));
  return { secret: open(endpoint.secret)!, previousSecret: open(endpoint.previousSecret) };
}

/** A secret sealed for an endpoint, as the service stores it. */
export function sealFor(secrets: SecretBox, id: string, secret: string): string {
  return secrets.seal(secret, webhookSecretContext(id));
}
