// What the webhook and change-feed benchmarks share: a local receiver that notes when each event
// first arrived, an endpoint of the benchmark's organization subscribed to course.updated, and
// course.updated events committed straight to the outbox.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Database } from "../../src/db/database.ts";
import { newId } from "../../src/kernel/ids.ts";
import type { SecretBox } from "../../src/kernel/secret-box.ts";
import { createOutboxRepository } from "../../src/repositories/outbox.ts";
import { webhookSecretContext } from "../../src/repositories/secrets.ts";
import { newWebhookSecret, secretPrefix } from "../../src/webhooks/signing.ts";

/** When each event first arrived (performance.now()), by event id. */
export type Arrivals = Map<string, number>;

export interface Receiver {
  url: string;
  arrivals: Arrivals;
  close(): Promise<void>;
}

export async function startReceiver(arrivals: Arrivals = new Map()): Promise<Receiver> {
  const server = http.createServer((request, response) => {
    const eventId = String(request.headers["x-svc-event-id"] ?? "");
    if (eventId && !arrivals.has(eventId)) arrivals.set(eventId, performance.now());
    request.resume();
    request.on("end", () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A live endpoint of the organization at `url`, subscribed to course.updated. */
export async function registerEndpoint(
  database: Database,
  organizationId: string,
  url: string,
  secrets: SecretBox,
): Promise<void> {
  const id = newId("wh");
  const secret = newWebhookSecret();
  await database.prisma.webhookEndpoint.create({
    data: {
      id,
      environment: "live",
      organizationId,
      url,
      events: ["course.updated"],
      secret: secrets.seal(secret, webhookSecretContext(id)),
      secretPrefix: secretPrefix(secret),
    },
  });
}

/** Commits `count` course.updated events in one transaction; answers their envelopes. */
export function emitCourseEvents(database: Database, count: number) {
  return database.prisma.$transaction((tx) =>
    createOutboxRepository(tx).recordEvents(
      "live",
      Array.from({ length: count }, (_, i) => ({
        type: "course.updated" as const,
        data: { courseId: `crs_${i}`, version: 2, changedFields: ["title"] },
      })),
    ),
  );
}
