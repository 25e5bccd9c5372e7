// One delivery attempt: claimed under a lease in a short statement, sent with
// no transaction open, then recorded together with the next attempt (if any)
// and the endpoint's health.
import type { WebhookDelivery, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Db } from "../services/types.ts";
import { newId } from "../ids.ts";
import { columnsOf, recordFromJson } from "../repositories/record-columns.ts";
import { signatureHeader } from "./signing.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import { webhookSecretContext } from "../services/stored-secrets.ts";
import { sendDelivery, type SendResult } from "./sender.ts";
import type { SuccessBatch } from "./success-batch.ts";

export const USER_AGENT = "course-equivalency-webhooks/1.0";
const DAY_MS = 86_400_000;

export type ClaimedDelivery = WebhookDelivery & { webhook: WebhookEndpoint };

export interface AttemptSettings {
  retrySchedule: number[];
  timeoutMs: number;
  allowPrivateTargets: boolean;
  disableAfterMs: number;
}

/** Time a claim stays valid: the whole attempt fits in it with room to record the outcome. */
export function leaseDuration(timeoutMs: number): number {
  return 2 * timeoutMs + 1000;
}

/**
 * Leases up to `limit` due deliveries of enabled endpoints to `owner`. Rows
 * another dispatcher holds (locked, or leased and not expired) are skipped, so
 * no attempt is sent by two dispatchers at once. One statement answers the
 * claimed rows with their endpoints, in due order.
 */
export async function claimDueDeliveries(db: Db, owner: string, now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const rows = await db.$queryRawUnsafe<{ claimed: string }[]>(
    `WITH claimed AS (
       UPDATE webhook_deliveries AS claim SET lease_owner = $1, lease_expires_at = $2::timestamp(3)
       FROM (
         SELECT d.id FROM webhook_deliveries AS d
         WHERE d.status = 'pending' AND d.next_retry_at <= $3::timestamp(3)
           AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $3::timestamp(3))
           AND EXISTS (SELECT FROM webhook_endpoints AS e WHERE e.id = d.webhook_id AND e.status = 'enabled' AND e.deleted_at IS NULL)
         ORDER BY d.next_retry_at, d.id
         LIMIT $4
         FOR UPDATE OF d SKIP LOCKED) AS due
       WHERE claim.id = due.id
       RETURNING claim.*)
     SELECT coalesce(json_agg(json_build_array(row_to_json(c), row_to_json(e)) ORDER BY c.next_retry_at, c.id), '[]')::text AS claimed
     FROM claimed AS c JOIN webhook_endpoints AS e ON e.id = c.webhook_id`,
    owner,
    new Date(now.getTime() + leaseMs).toISOString(),
    now.toISOString(),
    limit,
  );
  const pairs = JSON.parse(rows[0].claimed) as [Record<string, unknown>, Record<string, unknown>][];
  return pairs.map(([delivery, endpoint]) => ({
    ...recordFromJson<WebhookDelivery>(delivery, columnsOf(db, "WebhookDelivery"))!,
    webhook: recordFromJson<WebhookEndpoint>(endpoint, columnsOf(db, "WebhookEndpoint"))!,
  }));
}

/** Gives claimed deliveries back (a stopping dispatcher), so another pass need not wait for the lease to expire. */
export async function releaseDeliveries(db: Db, owner: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.webhookDelivery.updateMany({ where: { id: { in: ids }, leaseOwner: owner, status: "pending" }, data: { leaseOwner: null, leaseExpiresAt: null } });
}

type SigningEndpoint = Pick<WebhookEndpoint, "id" | "secret" | "previousSecret" | "previousSecretExpiresAt">;

/** The secrets that sign now, opened: the current one, and the previous one during its grace period. */
export function signingSecrets(endpoint: SigningEndpoint, now: Date, secrets: SecretBox): string[] {
  const previousActive = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  const sealed = previousActive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
  return sealed.map((value) => secrets.open(value, webhookSecretContext(endpoint.id)));
}

export interface SentAttempt {
  signature: string;
  attemptedAt: Date;
  result: SendResult;
}

/** Signs and sends one delivery body to one endpoint. */
export async function sendSigned(
  delivery: Pick<WebhookDelivery, "id" | "eventId" | "eventType" | "requestBody">,
  endpoint: SigningEndpoint & Pick<WebhookEndpoint, "url">,
  now: Date,
  settings: Pick<AttemptSettings, "timeoutMs" | "allowPrivateTargets">,
  secrets: SecretBox,
): Promise<SentAttempt> {
  const signature = signatureHeader(signingSecrets(endpoint, now, secrets), Math.floor(now.getTime() / 1000), delivery.requestBody);
  const result = await sendDelivery({
    url: endpoint.url,
    body: delivery.requestBody,
    headers: {
      "User-Agent": USER_AGENT,
      "X-SVC-Event": delivery.eventType,
      "X-SVC-Signature": signature,
      "X-SVC-Delivery": delivery.id,
      "X-SVC-Event-Id": delivery.eventId,
    },
    timeoutMs: settings.timeoutMs,
    allowPrivateTargets: settings.allowPrivateTargets,
  });
  return { signature, attemptedAt: now, result };
}

/** ±10 % around the scheduled delay, so endpoints that fail together do not retry together. */
export function retryDelay(schedule: number[], attempt: number, random: () => number = Math.random): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.9 + 0.2 * random()));
}

export function disabledReason(disableAfterMs: number): string {
  const span =
    disableAfterMs % DAY_MS === 0
      ? plural(disableAfterMs / DAY_MS, "day")
      : disableAfterMs % 3_600_000 === 0
        ? plural(disableAfterMs / 3_600_000, "hour")
        : disableAfterMs % 1000 === 0
          ? plural(disableAfterMs / 1000, "second")
          : plural(disableAfterMs, "millisecond");
  return `Deliveries failed for ${span} in a row; re-enable with PATCH status=enabled`;
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

export type Outcome = "succeeded" | "retrying" | "failed" | "lost-lease";

/**
 * Records a sent attempt on its row (only while this dispatcher still holds the
 * lease), queues the next attempt after a failure, and tracks endpoint health.
 */
export async function recordAttempt(
  db: Db,
  delivery: ClaimedDelivery,
  sent: SentAttempt,
  owner: string,
  settings: AttemptSettings,
  random: () => number = Math.random,
  successes?: SuccessBatch,
): Promise<Outcome> {
  const { result, attemptedAt } = sent;
  const now = attemptedAt;
  const delay = result.ok ? null : retryDelay(settings.retrySchedule, delivery.attempt, random);
  const nextRetryAt = delay === null ? null : new Date(now.getTime() + delay);
  const outcome = {
    where: { id: delivery.id, leaseOwner: owner, status: "pending" as const },
    data: {
      status: result.ok ? ("succeeded" as const) : ("failed" as const),
      signature: sent.signature,
      responseStatus: result.responseStatus,
      responseExcerpt: result.responseExcerpt,
      durationMs: result.durationMs,
      error: result.error,
      attemptedAt,
      nextRetryAt,
      leaseOwner: null,
      leaseExpiresAt: null,
    },
  };
  // A success of a healthy endpoint is batched with others; a failure also queues the retry and tracks health, atomically.
  if (result.ok && !delivery.webhook.failingSince && successes) {
    return (await successes.record(delivery.id, sent)) ? "succeeded" : "lost-lease";
  }
  return db.$transaction(async (tx) => {
    const updated = await tx.webhookDelivery.updateMany(outcome);
    if (updated.count === 0) return "lost-lease" as const;
    if (nextRetryAt) {
      await tx.webhookDelivery.create({
        data: {
          id: newId("dlv"),
          webhookId: delivery.webhookId,
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          attempt: delivery.attempt + 1,
          status: "pending",
          requestBody: delivery.requestBody,
          createdAt: now,
          nextRetryAt,
        },
      });
    }
    await trackHealth(tx as unknown as Db, delivery.webhook, result.ok, now, settings.disableAfterMs);
    return result.ok ? ("succeeded" as const) : nextRetryAt ? ("retrying" as const) : ("failed" as const);
  });
}

/** A success ends a run of failures; a run longer than disableAfterMs disables the endpoint. */
async function trackHealth(tx: Db, endpoint: WebhookEndpoint, ok: boolean, now: Date, disableAfterMs: number): Promise<void> {
  if (ok) {
    if (endpoint.failingSince) await tx.webhookEndpoint.updateMany({ where: { id: endpoint.id }, data: { failingSince: null } });
    return;
  }
  await tx.webhookEndpoint.updateMany({ where: { id: endpoint.id, failingSince: null }, data: { failingSince: now } });
  await tx.webhookEndpoint.updateMany({
    where: { id: endpoint.id, status: "enabled", failingSince: { lte: new Date(now.getTime() - disableAfterMs) } },
    data: { status: "disabled", disabledReason: disabledReason(disableAfterMs), disabledAt: now, updatedAt: now },
  });
}
