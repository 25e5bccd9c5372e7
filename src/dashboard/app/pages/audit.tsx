// Audit log (admin): every change by any credential or user of the organization, paged.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import type { Api } from "../api.ts";
import { useDashboard } from "../context.ts";
import { OPERATION_SUMMARIES } from "../../../../generated/operation-summaries.ts";
import { CourseName } from "../names.tsx";
import { RuleName } from "../rule-words.tsx";
import { DataTable, Empty, Link, ok, PageTitle, pageInQuery, Show, useLoad, useQuery, When } from "../ui.tsx";

type AuditEvent = components["schemas"]["AuditEvent"];

const LIMIT = 50;

function who(event: AuditEvent) {
  const kind = event.actor.kind === "user" ? "member" : event.actor.kind.replace("_", " ");
  return (
    <span title={event.actor.id}>
      {event.actor.displayName ?? event.actor.id} <span class="muted">({kind})</span>
    </span>
  );
}

/** What a change was made to: courses and equivalencies by name and linked, the rest by kind (id on hover). */
function Target({ target }: { target: AuditEvent["target"] }) {
  if (!target.id) return <span class="muted">{target.type ?? "–"}</span>;
  if (target.type === "course") return <CourseName id={target.id} />;
  if (target.type === "equivalency")
    return (
      <Link to={`/equivalencies/${target.id}`}>
        <RuleName id={target.id} />
      </Link>
    );
  if (target.type === "dataset")
    return (
      <Link to={`/datasets/${target.id}`} title={target.id}>
        dataset {target.id.slice(-6)}
      </Link>
    );
  return (
    <span title={target.id}>
      {target.type ?? ""} <span class="mono">{target.id.slice(-6)}</span>
    </span>
  );
}

/** Who can be an actor of the organization: its members, keys and OAuth clients, by name. */
async function actorChoices(api: Api): Promise<{ id: string; label: string }[]> {
  const [members, keys, clients] = await Promise.all([
    api.raw.GET("/members", { params: { query: { limit: 100 } } }),
    api.raw.GET("/keys", { params: { query: { limit: 100 } } }),
    api.raw.GET("/oauth-clients", { params: { query: { limit: 100 } } }),
  ]);
  return [
    ...(ok(members).data ?? []).map((m) => ({ id: m.id, label: `${m.email} (member)` })),
    ...(ok(keys).data ?? []).map((k) => ({ id: k.id, label: `${k.name ?? k.prefix} (API key)` })),
    ...(ok(clients).data ?? []).map((c) => ({ id: c.id, label: `${c.name ?? c.clientId} (OAuth client)` })),
  ];
}

export function AuditLog() {
  const { api } = useDashboard();
  const [query, setQuery] = useQuery();
  const offset = Number(query.get("offset") ?? 0) || 0;
  const filters = {
    operationId: query.get("operationId") ?? "",
    actorId: query.get("actorId") ?? "",
    since: query.get("since") ?? "",
  };
  const [draft, setDraft] = useState(filters);
  const actors = useLoad(() => actorChoices(api), [api]);
  const list = useLoad(async () => {
    const since = filters.since ? new Date(filters.since).toISOString() : undefined;
    const query = {
      limit: LIMIT,
      offset,
      ...(filters.operationId ? { operationId: filters.operationId } : {}),
      ...(filters.actorId ? { actorId: filters.actorId } : {}),
      ...(since ? { since } : {}),
    };
    return ok(await api.raw.GET("/audit-events", { params: { query } }));
  }, [api, query.toString()]);
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p>Every change made through the dashboard or the API by any key, OAuth client or member, newest first.</p>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ ...draft, offset: undefined });
        }}
      >
        <div>
          <label for="a-op">What</label>
          <select
            id="a-op"
            value={draft.operationId}
            onChange={(e) => setDraft({ ...draft, operationId: e.currentTarget.value })}
          >
            <option value="">any change</option>
            {Object.entries(OPERATION_SUMMARIES)
              .sort(([, a], [, b]) => a.localeCompare(b))
              .map(([operationId, summary]) => (
                <option key={operationId} value={operationId}>
                  {summary}
                </option>
              ))}
          </select>
        </div>
        <div>
          <label for="a-actor">Who</label>
          <select
            id="a-actor"
            value={draft.actorId}
            onChange={(e) => setDraft({ ...draft, actorId: e.currentTarget.value })}
          >
            <option value="">anyone</option>
            {draft.actorId && !actors.data?.some((actor) => actor.id === draft.actorId) && (
              <option value={draft.actorId}>{draft.actorId}</option>
            )}
            {(actors.data ?? []).map((actor) => (
              <option key={actor.id} value={actor.id}>
                {actor.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="a-since">Since</label>
          <input
            id="a-since"
            type="datetime-local"
            value={draft.since}
            onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })}
          />
        </div>
        <button type="submit">Apply filters</button>
      </form>
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>
              No change recorded
              {filters.operationId || filters.actorId || filters.since ? " matches these filters" : " yet"}.
            </Empty>
          ) : (
            <DataTable
              caption="Audit events"
              columns={["When", "Who", "What", "Record", "Environment"]}
              rows={data}
              row={(event) => (
                <tr key={event.id}>
                  <td title={event.requestId ? `Request ${event.requestId}` : undefined}>
                    <When at={event.createdAt} />
                  </td>
                  <td>{who(event)}</td>
                  <td title={event.operationId}>{OPERATION_SUMMARIES[event.operationId] ?? event.operationId}</td>
                  <td>
                    <Target target={event.target} />
                  </td>
                  <td>{event.environment ?? "–"}</td>
                </tr>
              )}
              page={pageInQuery(pagination.total, LIMIT, offset, setQuery)}
            />
          )
        }
      </Show>
    </>
  );
}
