// One delivery attempt: claimed under a lease in a short statement, sent with
// no transaction open, then recorded together with the next attempt (if any)
// and the endpoint's health.
import type { WebhookDelivery, WebhookEndpoint } from "../../generated/prisma/client.ts";
import { newId } from "../kernel/ids.ts";
import type { ClaimedDelivery, DeliveriesRepository } from "../repositories/deliveries.ts";
import { signatureHeader } from "./signing.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import { webhookSecretContext } from "../repositories/secrets.ts";
import { sendDelivery, type SentAttempt } from "./sender.ts";
import type { TargetAllowance } from "./target-safety.ts";
import type { SuccessBatch } from "./success-batch.ts";

export const USER_AGENT = "course-equivalency-webhooks/1.0";
const DAY_MS = 86_400_000;

export interface AttemptSettings {
  retrySchedule: number[];
  timeoutMs: number;
  allowPrivateTargets: TargetAllowance;
  disableAfterMs: number;
}

/** Time a claim stays valid: the whole attempt fits in it with room to record the outcome. */
export function leaseDuration(timeoutMs: number): number {
  return 2 * timeoutMs + 1000;
}

type SigningEndpoint = Pick<WebhookEndpoint, "id" | "secret" | "previousSecret" | "previousSecretExpiresAt">;

/** The secrets that sign now, opened: the current one, and the previous one during its grace period. */
export function signingSecrets(endpoint: SigningEndpoint, now: Date, secrets: SecretBox): string[] {
  const previousActive =
    endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  const sealed = previousActive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
  return sealed.map((value) => secrets.open(value, webhookSecretContext(endpoint.id)));
}

/** Signs and sends one delivery body to one endpoint. */
export async function sendSigned(
  delivery: Pick<WebhookDelivery, "id" | "eventId" | "eventType" | "requestBody">,
  endpoint: SigningEndpoint & Pick<WebhookEndpoint, "url">,
  now: Date,
  settings: Pick<AttemptSettings, "timeoutMs" | "allowPrivateTargets">,
  secrets: SecretBox,
): Promise<SentAttempt> {
  const signature = signatureHeader(
    signingSecrets(endpoint, now, secrets),
    Math.floor(now.getTime() / 1000),
    delivery.requestBody,
  );
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
  deliveries: Pick<DeliveriesRepository, "recordAttempt">,
  delivery: ClaimedDelivery,
  sent: SentAttempt,
  owner: string,
  settings: AttemptSettings,
  random: () => number = Math.random,
  successes?: SuccessBatch,
): Promise<Outcome> {
  const { result, attemptedAt } = sent;
  const now = attemptedAt;
  // A success of a healthy endpoint is batched with others; a failure also queues the retry and tracks health, atomically.
  if (result.ok && !delivery.webhook.failingSince && successes) {
    return (await successes.record(delivery.id, sent)) ? "succeeded" : "lost-lease";
  }
  const delay = result.ok ? null : retryDelay(settings.retrySchedule, delivery.attempt, random);
  const nextRetryAt = delay === null ? null : new Date(now.getTime() + delay);
  const recorded = await deliveries.recordAttempt(
    delivery.id,
    owner,
    {
      status: result.ok ? "succeeded" : "failed",
      signature: sent.signature,
      responseStatus: result.responseStatus,
      responseExcerpt: result.responseExcerpt,
      durationMs: result.durationMs,
      error: result.error,
      attemptedAt,
      nextRetryAt,
    },
    nextRetryAt
      ? {
          id: newId("dlv"),
          webhookId: delivery.webhookId,
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          requestBody: delivery.requestBody,
          attempt: delivery.attempt + 1,
        }
      : null,
    {
      endpointId: delivery.webhook.id,
      ok: result.ok,
      wasFailing: delivery.webhook.failingSince !== null,
      now,
      // A run of failures longer than disableAfterMs disables the endpoint.
      disableIfFailingSince: new Date(now.getTime() - settings.disableAfterMs),
      disabledReason: disabledReason(settings.disableAfterMs),
    },
  );
  if (!recorded) return "lost-lease";
  return result.ok ? "succeeded" : nextRetryAt ? "retrying" : "failed";
}
