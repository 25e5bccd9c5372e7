// Webhook endpoint management: registration (the only place besides rotation
// where the secret leaves the service), listing, changes, soft deletion and
// secret rotation. Secrets are stored sealed (see auth/secret-box.ts), with
// their prefix beside them for listings. An endpoint belongs to one organization and one environment;
// anything else is "not found".
import type { Prisma, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Repositories } from "../repositories/index.ts";
import type { Credential } from "../auth/credential.ts";
import { ValidationError, notFound } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { newWebhookSecret, secretPrefix } from "../webhooks/signing.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import { webhookSecretContext } from "../repositories/secrets.ts";
import {
  assertSafeTarget,
  UnsafeTargetError,
  type InterfaceAddresses,
  type Resolver,
  type TargetAllowance,
} from "../webhooks/target-safety.ts";
import { EVENT_TYPES, type EventType } from "../kernel/events.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import type { Page, PageResult } from "./types.ts";

/** How long the secret replaced by a rotation keeps signing deliveries. */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 3_600_000;

export const OWNER_DISABLED_REASON = "Disabled by its owner";

/** Whether private targets are allowed, how hosts are resolved and this host's own addresses (injectable for tests). */
export interface TargetPolicy {
  allowPrivateTargets: TargetAllowance;
  resolve?: Resolver;
  interfaceAddresses?: InterfaceAddresses;
}

export interface WebhookCreateInput {
  url: string;
  events: readonly string[];
  description?: string;
}

export interface WebhookUpdateInput {
  url?: string;
  events?: readonly string[];
  description?: string | null;
  status?: "enabled" | "disabled";
}

/** The credential an endpoint is managed for: only its organization and environment matter. */
type Caller = Pick<Credential, "organizationId" | "environment">;

export function webhookView(record: WebhookEndpoint, now: Date = new Date()) {
  const previousActive =
    record.previousSecret !== null && record.previousSecretExpiresAt !== null && record.previousSecretExpiresAt > now;
  return {
    id: record.id,
    url: record.url,
    events: record.events as EventType[],
    description: record.description,
    status: record.status,
    disabledReason: record.disabledReason,
    secretPrefix: record.secretPrefix,
    environment: record.environment,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    previousSecretExpiresAt: previousActive ? record.previousSecretExpiresAt!.toISOString() : null,
  };
}

export type WebhookView = ReturnType<typeof webhookView>;
export type WebhookViewWithSecret = WebhookView & { secret: string };

/** Returns the URL as the client wrote it, once it is known to be a safe target. */
async function checkedUrl(raw: string, policy: TargetPolicy): Promise<string> {
  try {
    await assertSafeTarget(raw, policy.allowPrivateTargets, policy.resolve, policy.interfaceAddresses);
    return raw;
  } catch (error) {
    if (error instanceof UnsafeTargetError) throw ValidationError.single("/url", `url ${error.message}`);
    throw error;
  }
}

/** The contract validates events already; this keeps callers other than HTTP honest. */
function checkedEvents(events: readonly string[]): EventType[] {
  const unknown = events.filter((event) => !EVENT_TYPES.includes(event as EventType));
  if (events.length === 0 || unknown.length > 0 || new Set(events).size !== events.length) {
    throw ValidationError.single(
      "/events",
      `events must be a non-empty list of distinct types among ${EVENT_TYPES.join(", ")}`,
    );
  }
  return events as EventType[];
}

function statusChange(current: WebhookEndpoint, status: WebhookUpdateInput["status"], now: Date) {
  if (status === undefined || status === current.status) return {};
  if (status === "enabled") return { status, disabledReason: null, disabledAt: null, failingSince: null };
  return { status, disabledReason: OWNER_DISABLED_REASON, disabledAt: now };
}

export interface WebhooksServiceDependencies extends Pick<Repositories, "webhooks" | "transaction"> {
  /** Seals each endpoint's secret at rest. */
  secrets: SecretBox;
  targetPolicy: TargetPolicy;
  now?: () => Date;
}

export function createWebhooksService({
  webhooks,
  transaction,
  secrets,
  targetPolicy,
  now = () => new Date(),
}: WebhooksServiceDependencies) {
  const endpointRecord = (caller: Caller, id: string): ChangedRecord => ({
    organizationId: caller.organizationId,
    environment: caller.environment,
    type: "webhook",
    id,
  });

  /** The caller's live endpoint, or 404 (another organization's, environment's or a deleted one included). */
  async function findWebhook(caller: Caller, id: string): Promise<WebhookEndpoint> {
    const endpoint = await webhooks.findVisible(caller, id);
    if (!endpoint) throw notFound.webhook(id);
    return endpoint;
  }

  /** Applies changes only while the endpoint is still the caller's and not deleted. */
  async function updateVisible(caller: Caller, id: string, data: Prisma.WebhookEndpointUpdateManyMutationInput) {
    return transaction(async (writes) => {
      if (!(await writes.webhooks.updateVisible(caller, id, data))) throw notFound.webhook(id);
      await auditChange(writes, [endpointRecord(caller, id)]);
      return writes.webhooks.findById(id);
    });
  }

  return {
    findWebhook,

    async createWebhook(caller: Caller, input: WebhookCreateInput): Promise<WebhookViewWithSecret> {
      const events = checkedEvents(input.events);
      const url = await checkedUrl(input.url, targetPolicy);
      const secret = newWebhookSecret();
      const id = newId("wh");
      const record = await transaction(async (writes) => {
        const created = await writes.webhooks.create({
          id,
          organizationId: caller.organizationId,
          environment: caller.environment,
          url,
          events,
          description: input.description ?? null,
          secret: secrets.seal(secret, webhookSecretContext(id)),
          secretPrefix: secretPrefix(secret),
        });
        await auditChange(writes, [endpointRecord(caller, id)]);
        return created;
      });
      return { ...webhookView(record), secret };
    },

    async listWebhooks(caller: Caller, page: Page): Promise<PageResult<WebhookView>> {
      const { items, total, next } = await webhooks.listPage(caller, page);
      const at = now();
      return { items: items.map((row) => webhookView(row, at)), total, next };
    },

    async getWebhook(caller: Caller, id: string): Promise<WebhookView> {
      return webhookView(await findWebhook(caller, id), now());
    },

    async updateWebhook(caller: Caller, id: string, changes: WebhookUpdateInput): Promise<WebhookView> {
      const at = now();
      const current = await findWebhook(caller, id);
      const data: Prisma.WebhookEndpointUpdateManyMutationInput = {
        ...(changes.url !== undefined ? { url: await checkedUrl(changes.url, targetPolicy) } : {}),
        ...(changes.events !== undefined ? { events: checkedEvents(changes.events) } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...statusChange(current, changes.status, at),
        updatedAt: at,
      };
      return webhookView(await updateVisible(caller, id, data), at);
    },

    /** Soft delete: delivery records keep referring to the endpoint. */
    async deleteWebhook(caller: Caller, id: string): Promise<void> {
      const at = now();
      await updateVisible(caller, id, { deletedAt: at, updatedAt: at });
    },

    /**
     * A new secret; the current one keeps signing for 24 hours. The swap is
     * conditional on the secret read, so two concurrent rotations cannot both
     * report a secret while only one of them is kept.
     */
    async rotateWebhookSecret(caller: Caller, id: string): Promise<WebhookViewWithSecret> {
      const at = now();
      for (;;) {
        const current = await findWebhook(caller, id);
        const secret = newWebhookSecret();
        const rotated = await transaction(async (writes) => {
          const swapped = await writes.webhooks.replaceSecretIf(caller, id, current.secret, {
            secret: secrets.seal(secret, webhookSecretContext(id)),
            secretPrefix: secretPrefix(secret),
            // Still sealed for this endpoint: it moves as it is.
            previousSecret: current.secret,
            previousSecretExpiresAt: new Date(at.getTime() + PREVIOUS_SECRET_LIFETIME_MS),
            updatedAt: at,
          });
          if (!swapped) return null;
          await auditChange(writes, [endpointRecord(caller, id)]);
          return writes.webhooks.findById(id);
        });
        if (rotated) return { ...webhookView(rotated, at), secret };
      }
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
