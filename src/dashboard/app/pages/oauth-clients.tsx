// OAuth clients: create (the secret shown once), list, revoke.
import { useState } from "preact/hooks";
import { useDashboard } from "../context.ts";
import {
  CredentialRow,
  Empty,
  ErrorMessage,
  ok,
  PageTitle,
  SecretOnce,
  Show,
  useAction,
  useLoad,
  DataTable,
} from "../ui.tsx";

const LIMIT = 25;

export function OAuthClients() {
  const { api, environment } = useDashboard();
  const [offset, setOffset] = useState(0);
  const [name, setName] = useState("");
  const [writeScope, setWriteScope] = useState(false);
  const [created, setCreated] = useState<{ clientId: string; secret: string } | null>(null);
  const action = useAction();
  const list = useLoad(
    async () => ok(await api.raw.GET("/oauth-clients", { params: { query: { limit: LIMIT, offset } } })),
    [api, offset],
  );
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const scopes: ("read:public" | "write:contribute")[] = writeScope
        ? ["read:public", "write:contribute"]
        : ["read:public"];
      const result = ok(await api.raw.POST("/oauth-clients", { body: { name: name.trim(), scopes } })).data;
      setCreated({ clientId: result.clientId, secret: result.clientSecret });
      setName("");
      list.reload();
    });
  };
  const revoke = (id: string, label: string) =>
    action.run(async () => {
      if (!confirm(`Revoke ${label}? Its tokens stop working when they expire.`)) return;
      const result = await api.raw.DELETE("/oauth-clients/{id}", { params: { path: { id } } });
      if (!result.response.ok) ok(result as never);
      list.reload();
    });
  return (
    <>
      <PageTitle>OAuth clients</PageTitle>
      <p>
        Programs that prefer OAuth 2.0 client credentials exchange a client id and secret for short-lived tokens at{" "}
        <span class="mono">/oauth/token</span>.
      </p>
      <form class="inline" onSubmit={create} aria-label="Create an OAuth client">
        <label for="client-name">Name</label>
        <input id="client-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label class="check">
          <input type="checkbox" checked={writeScope} onChange={(e) => setWriteScope(e.currentTarget.checked)} /> May
          write (write:contribute)
        </label>
        <button type="submit" disabled={action.busy}>
          Create client
        </button>
      </form>
      {action.error && <ErrorMessage message={action.error} />}
      {created && (
        <>
          <p>
            Client id: <span class="mono">{created.clientId}</span>
          </p>
          <SecretOnce label="Client secret" value={created.secret} onDone={() => setCreated(null)} />
        </>
      )}
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No OAuth clients yet in {environment}.</Empty>
          ) : (
            <DataTable
              caption="OAuth clients"
              columns={["Name", "Client id", "Scopes", "Created", "Last used", { label: "Actions", hidden: true }]}
              rows={data}
              row={(c) => (
                <CredentialRow
                  key={c.id}
                  name={c.name}
                  identifier={c.clientId}
                  scopes={c.scopes}
                  createdAt={c.createdAt}
                  lastUsedAt={c.lastUsedAt}
                  revokedAt={c.revokedAt}
                  busy={action.busy}
                  onRevoke={() => revoke(c.id, c.name ?? c.id)}
                />
              )}
              page={{ total: pagination.total, limit: LIMIT, offset, onChange: setOffset }}
            />
          )
        }
      </Show>
    </>
  );
}
