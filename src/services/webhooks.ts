// Webhook endpoint management: registration (the only place besides rotation
// where the secret leaves the service), listing, changes, soft deletion and
// secret rotation. Secrets are stored sealed (see auth/secret-box.ts), with
// their prefix beside them for listings. An endpoint belongs to one organization and one environment;
// anything else is "not found".
import type { Prisma, WebhookEndpoint } from "../../generated/prisma/client.ts";
import type { Credential } from "../auth/credential.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import { newId } from "../ids.ts";
import { newWebhookSecret, secretPrefix } from "../webhooks/signing.ts";
import type { SecretBox } from "../auth/secret-box.ts";
import { webhookSecretContext } from "./stored-secrets.ts";
import { assertSafeTarget, UnsafeTargetError, type InterfaceAddresses, type Resolver } from "../webhooks/target-safety.ts";
import { EVENT_TYPES, type EventType } from "./outbox.ts";
import type { Db, Page, PageResult } from "./types.ts";

/** How long the secret replaced by a rotation keeps signing deliveries. */
export const PREVIOUS_SECRET_LIFETIME_MS = 24 * 3_600_000;

export const OWNER_DISABLED_REASON = "Disabled by its owner";


/** Whether private targets are allowed, how hosts are resolved and this host's own addresses (injectable for tests). */
export interface TargetPolicy {
  allowPrivateTargets: boolean;
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

type Caller = Pick<Credential, "organizationId" | "environment">;

export function webhookView(record: WebhookEndpoint, now: Date = new Date()) {
  const previousActive = record.previousSecret !== null && record.previousSecretExpiresAt !== null && record.previousSecretExpiresAt > now;
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

function scopeOf(caller: Caller, id: string) {
  return { id, organizationId: caller.organizationId, environment: caller.environment, deletedAt: null };
}

/** The caller's live endpoint, or 404 (another organization's, environment's or a deleted one included). */
export async function findWebhook(db: Db, caller: Caller, id: string): Promise<WebhookEndpoint> {
  const endpoint = await db.webhookEndpoint.findFirst({ where: scopeOf(caller, id) });
  if (!endpoint) throw new NotFoundError(`No webhook endpoint with id "${id}".`);
  return endpoint;
}

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
    throw ValidationError.single("/events", `events must be a non-empty list of distinct types among ${EVENT_TYPES.join(", ")}`);
  }
  return events as EventType[];
}

export async function createWebhook(
  db: Db,
  secrets: SecretBox,
  caller: Caller,
  input: WebhookCreateInput,
  policy: TargetPolicy,
): Promise<WebhookViewWithSecret> {
  const events = checkedEvents(input.events);
  const url = await checkedUrl(input.url, policy);
  const secret = newWebhookSecret();
  const id = newId("wh");
  const record = await db.webhookEndpoint.create({
    data: {
      id,
      organizationId: caller.organizationId,
      environment: caller.environment,
      url,
      events,
      description: input.description ?? null,
      secret: secrets.seal(secret, webhookSecretContext(id)),
      secretPrefix: secretPrefix(secret),
    },
  });
  return { ...webhookView(record), secret };
}

export async function listWebhooks(db: Db, caller: Caller, page: Page): Promise<PageResult<WebhookView>> {
  const where = { organizationId: caller.organizationId, environment: caller.environment, deletedAt: null };
  const [rows, total] = await Promise.all([
    db.webhookEndpoint.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], skip: page.offset, take: page.limit }),
    db.webhookEndpoint.count({ where }),
  ]);
  const now = new Date();
  return { items: rows.map((row) => webhookView(row, now)), total };
}

export async function getWebhook(db: Db, caller: Caller, id: string): Promise<WebhookView> {
  return webhookView(await findWebhook(db, caller, id));
}

/** Applies changes only while the endpoint is still the caller's and not deleted. */
async function updateVisible(db: Db, caller: Caller, id: string, data: Prisma.WebhookEndpointUpdateManyMutationInput) {
  const { count } = await db.webhookEndpoint.updateMany({ where: scopeOf(caller, id), data });
  if (count === 0) throw new NotFoundError(`No webhook endpoint with id "${id}".`);
  return db.webhookEndpoint.findUniqueOrThrow({ where: { id } });
}

function statusChange(current: WebhookEndpoint, status: WebhookUpdateInput["status"], now: Date) {
  if (status === undefined || status === current.status) return {};
  if (status === "enabled") return { status, disabledReason: null, disabledAt: null, failingSince: null };
  return { status, disabledReason: OWNER_DISABLED_REASON, disabledAt: now };
}

export async function updateWebhook(
  db: Db,
  caller: Caller,
  id: string,
  changes: WebhookUpdateInput,
  policy: TargetPolicy,
  now: Date = new Date(),
): Promise<WebhookView> {
  const current = await findWebhook(db, caller, id);
  const data: Prisma.WebhookEndpointUpdateManyMutationInput = {
    ...(changes.url !== undefined ? { url: await checkedUrl(changes.url, policy) } : {}),
    ...(changes.events !== undefined ? { events: checkedEvents(changes.events) } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...statusChange(current, changes.status, now),
    updatedAt: now,
  };
  return webhookView(await updateVisible(db, caller, id, data), now);
}

/** Soft delete: delivery records keep referring to the endpoint. */
export async function deleteWebhook(db: Db, caller: Caller, id: string, now: Date = new Date()): Promise<void> {
  await updateVisible(db, caller, id, { deletedAt: now, updatedAt: now });
}

/**
 * A new secret; the current one keeps signing for 24 hours. The swap is
 * conditional on the secret read, so two concurrent rotations cannot both
 * report a secret while only one of them is kept.
 */
export async function rotateWebhookSecret(
  db: Db,
  secrets: SecretBox,
  caller: Caller,
  id: string,
  now: Date = new Date(),
): Promise<WebhookViewWithSecret> {
  for (;;) {
    const current = await findWebhook(db, caller, id);
    const secret = newWebhookSecret();
    const { count } = await db.webhookEndpoint.updateMany({
      where: { ...scopeOf(caller, id), secret: current.secret },
      data: {
        secret: secrets.seal(secret, webhookSecretContext(id)),
        secretPrefix: secretPrefix(secret),
        // Still sealed for this endpoint: it moves as it is.
        previousSecret: current.secret,
        previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_LIFETIME_MS),
        updatedAt: now,
      },
    });
    if (count === 1) return { ...webhookView(await db.webhookEndpoint.findUniqueOrThrow({ where: { id } }), now), secret };
  }
}
