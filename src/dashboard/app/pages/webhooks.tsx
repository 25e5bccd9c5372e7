// Webhooks: register (the secret shown once), edit subscriptions, rotate the secret, send a
// test event, and each endpoint's delivery log: payload, signature header, response code,
// timing, attempt; re-send one delivery, or every failed one since a time.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
import { CopyId } from "../names.tsx";
import {
  Badge,
  Empty,
  ErrorMessage,
  Link,
  ok,
  PageTitle,
  Pager,
  SecretOnce,
  Show,
  useAction,
  useLoad,
  When,
  DataTable,
} from "../ui.tsx";

type EventType = components["schemas"]["EventType"];
type Delivery = components["schemas"]["WebhookDelivery"];
const EVENT_TYPES: EventType[] = ["equivalency.created", "equivalency.updated", "course.updated", "dataset.published"];
const LIMIT = 25;

function EventChoices({
  value,
  onChange,
  idPrefix,
}: {
  value: EventType[];
  onChange: (v: EventType[]) => void;
  idPrefix: string;
}) {
  return (
    <fieldset class="choices">
      <legend>Events</legend>
      {EVENT_TYPES.map((type) => (
        <label key={type} for={`${idPrefix}-${type}`} class="check">
          <input
            id={`${idPrefix}-${type}`}
            type="checkbox"
            checked={value.includes(type)}
            onChange={(e) =>
              onChange(e.currentTarget.checked ? [...value, type] : value.filter((existing) => existing !== type))
            }
          />
          <span class="mono">{type}</span>
        </label>
      ))}
    </fieldset>
  );
}

export function Webhooks() {
  const { api, environment } = useDashboard();
  const [offset, setOffset] = useState(0);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<EventType[]>(["equivalency.created", "equivalency.updated"]);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const action = useAction();
  const list = useLoad(
    async () => ok(await api.raw.GET("/webhooks", { params: { query: { limit: LIMIT, offset } } })),
    [api, offset],
  );
  const register = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      if (events.length === 0) throw new Error("Choose at least one event.");
      const body = { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}) };
      const result = ok(await api.raw.POST("/webhooks", { body }));
      setCreated({ id: result.data.id, secret: result.data.secret });
      setUrl("");
      setDescription("");
      list.reload();
    });
  };
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p>Endpoints receive signed events about your organization's {environment} records.</p>
      <form class="stack" onSubmit={register} aria-label="Register an endpoint">
        <h2>Register an endpoint</h2>
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          placeholder="https://example.edu/hooks/transfer"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <label for="webhook-description">Description (optional)</label>
        <input id="webhook-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <EventChoices value={events} onChange={setEvents} idPrefix="new" />
        <div>
          <button type="submit" disabled={action.busy}>
            Register endpoint
          </button>
        </div>
      </form>
      {action.error && <ErrorMessage message={action.error} />}
      {created && (
        <>
          <SecretOnce label="Signing secret" value={created.secret} onDone={() => setCreated(null)} />
          <p>
            <Link to={`/webhooks/${created.id}`}>Open the new endpoint</Link>
          </p>
        </>
      )}
      <h2>Endpoints</h2>
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No endpoints yet in {environment}.</Empty>
          ) : (
            <DataTable
              caption="Webhook endpoints"
              columns={["URL", "Events", "Status", "Secret", "Created"]}
              rows={data}
              row={(hook) => (
                <tr key={hook.id}>
                  <td>
                    <Link to={`/webhooks/${hook.id}`}>{hook.url}</Link>
                    {hook.description && <div class="muted">{hook.description}</div>}
                  </td>
                  <td>{hook.events.join(", ")}</td>
                  <td>
                    <Badge tone={hook.status === "enabled" ? "good" : "bad"}>{hook.status}</Badge>
                  </td>
                  <td class="mono">{hook.secretPrefix}…</td>
                  <td>
                    <When at={hook.createdAt} />
                  </td>
                </tr>
              )}
              page={{ total: pagination.total, limit: LIMIT, offset, onChange: setOffset }}
            />
          )
        }
      </Show>
    </>
  );
}

function deliveryTone(status: Delivery["status"]) {
  return status === "succeeded" ? "good" : status === "failed" ? "bad" : "warn";
}

function pretty(body: string) {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function DeliveryRow({ delivery, onResend, busy }: { delivery: Delivery; onResend: () => void; busy: boolean }) {
  return (
    <li class="delivery">
      <details>
        <summary>
          <Badge tone={deliveryTone(delivery.status)}>{delivery.status}</Badge>{" "}
          <span class="mono">{delivery.eventType}</span> · attempt {delivery.attempt} ·{" "}
          {delivery.responseStatus ?? "no response"} · {delivery.durationMs ?? "–"} ms ·{" "}
          <When at={delivery.attemptedAt ?? delivery.createdAt} />
        </summary>
        <dl class="facts">
          <dt>Delivery</dt>
          <dd>
            <CopyId id={delivery.id} label="the delivery id" />
          </dd>
          <dt>Event</dt>
          <dd>
            <CopyId id={delivery.eventId} label="the event id" />
          </dd>
          <dt>Attempt</dt>
          <dd>{delivery.attempt}</dd>
          <dt>Response code</dt>
          <dd>
            {delivery.responseStatus ?? <span class="muted">none{delivery.error ? ` (${delivery.error})` : ""}</span>}
          </dd>
          <dt>Duration</dt>
          <dd>{delivery.durationMs === null ? "–" : `${delivery.durationMs} ms`}</dd>
          <dt>Next retry</dt>
          <dd>
            <When at={delivery.nextRetryAt} />
          </dd>
          <dt>Signature header</dt>
          <dd class="mono wrap">{delivery.signature ?? "–"}</dd>
          {delivery.responseExcerpt ? (
            <>
              <dt>Response excerpt</dt>
              <dd>
                <pre>{delivery.responseExcerpt}</pre>
              </dd>
            </>
          ) : null}
        </dl>
        <h4>Payload</h4>
        <pre class="payload">{pretty(delivery.requestBody)}</pre>
        <button type="button" class="secondary" disabled={busy} onClick={onResend}>
          Re-send this delivery
        </button>
      </details>
    </li>
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const { api } = useDashboard();
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [edit, setEdit] = useState<{ url: string; description: string; events: EventType[]; enabled: boolean } | null>(
    null,
  );
  const [statusFilter, setStatusFilter] = useState<"" | Delivery["status"]>("");
  const [offset, setOffset] = useState(0);
  // A day ago, as the local time a datetime-local field shows.
  const [since, setSince] = useState(() =>
    new Date(Date.now() - 24 * 3600_000 - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16),
  );
  const hook = useLoad(async () => {
    const data = ok(await api.raw.GET("/webhooks/{id}", { params: { path: { id } } })).data;
    setEdit({
      url: data.url,
      description: data.description ?? "",
      events: data.events,
      enabled: data.status === "enabled",
    });
    return data;
  }, [api, id]);
  const deliveries = useLoad(
    async () =>
      ok(
        await api.raw.GET("/webhooks/{id}/deliveries", {
          params: { path: { id }, query: { limit: LIMIT, offset, ...(statusFilter ? { status: statusFilter } : {}) } },
        }),
      ),
    [api, id, offset, statusFilter],
  );
  const save = (event: Event) => {
    event.preventDefault();
    if (!edit) return;
    void action.run(async () => {
      ok(
        await api.raw.PATCH("/webhooks/{id}", {
          params: { path: { id } },
          body: {
            url: edit.url.trim(),
            events: edit.events,
            description: edit.description.trim() || null,
            status: edit.enabled ? "enabled" : "disabled",
          },
        }),
      );
      setNotice("Endpoint saved.");
      hook.reload();
    });
  };
  const rotate = () =>
    action.run(async () => {
      const result = ok(await api.raw.POST("/webhooks/{id}/rotate-secret", { params: { path: { id } } }));
      setSecret(result.data.secret);
      setNotice("Secret rotated. The previous secret keeps signing for a short overlap; see its expiry above.");
      hook.reload();
    });
  const sendTest = () =>
    action.run(async () => {
      const result = ok(await api.raw.POST("/webhooks/{id}/test", { params: { path: { id } } }));
      const d = result.data;
      setNotice(
        `Test event sent: ${d.status}, response ${d.responseStatus ?? "none"}${d.durationMs === null ? "" : ` in ${d.durationMs} ms`}.`,
      );
      deliveries.reload();
    });
  const resend = (deliveryId: string) =>
    action.run(async () => {
      const result = ok(
        await api.raw.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
          params: { path: { id, deliveryId } },
        }),
      );
      setNotice(`Re-send queued as attempt ${result.data.attempt}; refresh to see how the receiver answered.`);
      deliveries.reload();
    });
  const resendFailed = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const result = ok(
        await api.raw.POST("/webhooks/{id}/deliveries/redeliver-failed", {
          params: { path: { id } },
          body: { since: new Date(since).toISOString() },
        }),
      );
      setNotice(`${result.count} failed ${result.count === 1 ? "delivery" : "deliveries"} queued to be re-sent.`);
      deliveries.reload();
    });
  };
  return (
    <Show value={hook}>
      {(data) => (
        <>
          <p class="crumbs">
            <Link to="/webhooks">Webhooks</Link> /
          </p>
          <PageTitle>{data.url}</PageTitle>
          <p>
            <Badge tone={data.status === "enabled" ? "good" : "bad"}>{data.status}</Badge>{" "}
            {data.disabledReason && <span>{data.disabledReason}</span>} Secret{" "}
            <span class="mono">{data.secretPrefix}…</span>
            {data.previousSecretExpiresAt && (
              <>
                {" "}
                · previous secret valid until <When at={data.previousSecretExpiresAt} />
              </>
            )}
          </p>
          {notice && (
            <p class="notice" role="status">
              {notice}
            </p>
          )}
          {action.error && <ErrorMessage message={action.error} />}
          {secret && <SecretOnce label="New signing secret" value={secret} onDone={() => setSecret(null)} />}
          <div class="actions">
            <button type="button" disabled={action.busy} onClick={sendTest}>
              Send a test event
            </button>
            <button type="button" class="secondary" disabled={action.busy} onClick={rotate}>
              Rotate the secret
            </button>
          </div>
          {edit && (
            <form class="stack" onSubmit={save} aria-label="Edit the endpoint">
              <h2>Settings</h2>
              <label for="edit-url">URL</label>
              <input
                id="edit-url"
                type="url"
                required
                value={edit.url}
                onInput={(e) => setEdit({ ...edit, url: e.currentTarget.value })}
              />
              <label for="edit-description">Description</label>
              <input
                id="edit-description"
                value={edit.description}
                onInput={(e) => setEdit({ ...edit, description: e.currentTarget.value })}
              />
              <EventChoices value={edit.events} onChange={(events) => setEdit({ ...edit, events })} idPrefix="edit" />
              <label class="check">
                <input
                  type="checkbox"
                  checked={edit.enabled}
                  onChange={(e) => setEdit({ ...edit, enabled: e.currentTarget.checked })}
                />{" "}
                Enabled
              </label>
              <div>
                <button type="submit" disabled={action.busy}>
                  Save changes
                </button>
              </div>
            </form>
          )}
          <h2>Deliveries</h2>
          <div class="toolbar">
            <label for="delivery-status">Status</label>
            <select
              id="delivery-status"
              value={statusFilter}
              onChange={(e) => {
                setOffset(0);
                setStatusFilter(e.currentTarget.value as typeof statusFilter);
              }}
            >
              <option value="">all</option>
              <option value="pending">pending</option>
              <option value="succeeded">succeeded</option>
              <option value="failed">failed</option>
            </select>
            <button type="button" class="secondary" onClick={deliveries.reload}>
              Refresh
            </button>
          </div>
          <form class="inline" onSubmit={resendFailed} aria-label="Re-send failed deliveries">
            <label for="failed-since">Re-send every failed delivery since</label>
            <input
              id="failed-since"
              type="datetime-local"
              required
              value={since}
              onInput={(e) => setSince(e.currentTarget.value)}
            />
            <button type="submit" class="secondary" disabled={action.busy}>
              Re-send failed
            </button>
          </form>
          <Show value={deliveries}>
            {({ data: rows, pagination }) =>
              rows.length === 0 ? (
                <Empty>No deliveries{statusFilter ? ` with status ${statusFilter}` : ""} yet. Send a test event.</Empty>
              ) : (
                <>
                  <ul class="deliveries">
                    {rows.map((delivery) => (
                      <DeliveryRow
                        key={delivery.id}
                        delivery={delivery}
                        busy={action.busy}
                        onResend={() => resend(delivery.id)}
                      />
                    ))}
                  </ul>
                  <Pager total={pagination.total} limit={LIMIT} offset={offset} onChange={setOffset} />
                </>
              )
            }
          </Show>
        </>
      )}
    </Show>
  );
}
