// Audit log (admin): every change by any credential or user of the organization, paged.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
import { Empty, ok, PageTitle, Show, useLoad, useQuery, When, DataTable, pageInQuery } from "../ui.tsx";

type AuditEvent = components["schemas"]["AuditEvent"];

const LIMIT = 50;

function who(event: AuditEvent) {
  return (
    <>
      {event.actor.displayName ?? event.actor.id} <span class="muted">({event.actor.kind.replace("_", " ")})</span>
    </>
  );
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
          <label for="a-op">Operation</label>
          <input
            id="a-op"
            placeholder="createKey"
            value={draft.operationId}
            onInput={(e) => setDraft({ ...draft, operationId: e.currentTarget.value })}
          />
        </div>
        <div>
          <label for="a-actor">Actor id</label>
          <input
            id="a-actor"
            value={draft.actorId}
            onInput={(e) => setDraft({ ...draft, actorId: e.currentTarget.value })}
          />
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
              columns={["When", "Who", "What", "Target", "Environment", "Request"]}
              rows={data}
              row={(event) => (
                <tr key={event.id}>
                  <td>
                    <When at={event.createdAt} />
                  </td>
                  <td>{who(event)}</td>
                  <td class="mono">{event.operationId}</td>
                  <td class="mono">
                    {event.target.type ?? ""} {event.target.id ?? ""}
                  </td>
                  <td>{event.environment ?? "–"}</td>
                  <td class="mono">{event.requestId ?? "–"}</td>
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
