// Audit log (admin): every change by any credential or user of the organization, paged.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import type { Api } from "../api.ts";
import { useDashboard } from "../context.ts";
import { OPERATION_SUMMARIES } from "../../../../generated/operation-summaries.ts";
import { CourseName, DatasetName } from "../names.tsx";
import { RuleName } from "../rule-words.tsx";
import { DataTable, Empty, Link, ok, PageTitle, pageInQuery, Show, useLoad, useQuery, When } from "../ui.tsx";

type AuditEvent = components["schemas"]["AuditEvent"];

const LIMIT = 50;

function who(event: AuditEvent) {
  const kind = event.actor.kind === "user" ? "member" : event.actor.kind.replace("_", " ");
  if (!event.actor.displayName) return <span title={event.actor.id}>an unnamed {kind}</span>;
  return (
    <span title={event.actor.id}>
      {event.actor.displayName} <span class="muted">({kind})</span>
    </span>
  );
}

/** A kind of record in words. */
const KINDS: Record<string, string> = {
  key: "API key",
  oauth_client: "OAuth client",
  webhook: "webhook endpoint",
  delivery: "webhook delivery",
  member: "member",
};

/**
 * What a change was made to: courses, rules and datasets by name and linked; keys, OAuth clients,
 * members and webhook endpoints by their names (the id on hover); anything else by its kind.
 */
function Target({ target, names }: { target: AuditEvent["target"]; names: ReadonlyMap<string, string> }) {
  if (!target.id) return <span class="muted">{target.type ?? "–"}</span>;
  if (target.type === "course") return <CourseName id={target.id} />;
  if (target.type === "equivalency")
    return (
      <Link to={`/equivalencies/${target.id}`}>
        <RuleName id={target.id} />
      </Link>
    );
  if (target.type === "dataset") return <DatasetName id={target.id} />;
  const kind = KINDS[target.type ?? ""] ?? target.type?.replaceAll("_", " ") ?? "record";
  const name = names.get(target.id);
  return (
    <span title={target.id}>
      {kind}
      {name && <> {name}</>}
    </span>
  );
}

interface Directory {
  /** Who can be an actor of the organization: its members, keys and OAuth clients, by name. */
  actors: { id: string; label: string }[];
  /** The names of the records an audit entry may name by id: those actors and the webhook endpoints. */
  names: Map<string, string>;
}

async function loadDirectory(api: Api): Promise<Directory> {
  const [members, keys, clients, webhooks] = await Promise.all([
    api.raw.GET("/members", { params: { query: { limit: 100 } } }),
    api.raw.GET("/keys", { params: { query: { limit: 100 } } }),
    api.raw.GET("/oauth-clients", { params: { query: { limit: 100 } } }),
    api.raw.GET("/webhooks", { params: { query: { limit: 100 } } }),
  ]);
  const named = [
    ...(ok(members).data ?? []).map((m) => ({ id: m.id, name: m.email, kind: "member" })),
    ...(ok(keys).data ?? []).map((k) => ({ id: k.id, name: k.name ?? k.prefix, kind: "API key" })),
    ...(ok(clients).data ?? []).map((c) => ({ id: c.id, name: c.name ?? c.clientId, kind: "OAuth client" })),
  ];
  return {
    actors: named.map(({ id, name, kind }) => ({ id, label: `${name} (${kind})` })),
    names: new Map([
      ...named.map(({ id, name }) => [id, name] as const),
      ...(ok(webhooks).data ?? []).map((hook) => [hook.id, hook.url] as const),
    ]),
  };
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
  const directory = useLoad(() => loadDirectory(api), [api]);
  const actors = directory.data?.actors;
  const names = directory.data?.names ?? new Map<string, string>();
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
            {draft.actorId && !actors?.some((actor) => actor.id === draft.actorId) && (
              <option value={draft.actorId}>
                {/^(usr|key|oac)_/.test(draft.actorId) ? "a member or credential not listed here" : draft.actorId}
              </option>
            )}
            {(actors ?? []).map((actor) => (
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
                    <Target target={event.target} names={names} />
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
