// API keys: create (the key shown once), list with prefix and last use, revoke.
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

export function Keys() {
  const { api, environment } = useDashboard();
  const [offset, setOffset] = useState(0);
  const [name, setName] = useState("");
  const [writeScope, setWriteScope] = useState(true);
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  const keys = useLoad(
    async () => ok(await api.raw.GET("/keys", { params: { query: { limit: LIMIT, offset } } })),
    [api, offset],
  );
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const scopes: ("read:public" | "write:contribute")[] = writeScope
        ? ["read:public", "write:contribute"]
        : ["read:public"];
      const result = ok(await api.raw.POST("/keys", { body: { name: name.trim(), environment, scopes } }));
      setCreated(result.data.key);
      setName("");
      keys.reload();
    });
  };
  const revoke = (id: string, label: string) =>
    action.run(async () => {
      if (!confirm(`Revoke ${label}? Programs using it stop working at once.`)) return;
      const result = await api.raw.DELETE("/keys/{id}", { params: { path: { id } } });
      if (!result.response.ok) ok(result as never);
      keys.reload();
    });
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p>Keys let programs call the API as your organization in the {environment} environment.</p>
      <form class="inline" onSubmit={create} aria-label="Create a key">
        <label for="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label class="check">
          <input type="checkbox" checked={writeScope} onChange={(e) => setWriteScope(e.currentTarget.checked)} /> May
          write (write:contribute)
        </label>
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
      </form>
      {action.error && <ErrorMessage message={action.error} />}
      {created && <SecretOnce label="New API key" value={created} onDone={() => setCreated(null)} />}
      <Show value={keys}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No keys yet in {environment}. Create one above.</Empty>
          ) : (
            <DataTable
              caption="API keys"
              columns={["Name", "Prefix", "Scopes", "Created", "Last used", { label: "Actions", hidden: true }]}
              rows={data}
              row={(key) => (
                <CredentialRow
                  key={key.id}
                  name={key.name}
                  identifier={`${key.prefix}…`}
                  scopes={key.scopes}
                  createdAt={key.createdAt}
                  lastUsedAt={key.lastUsedAt}
                  revokedAt={key.revokedAt}
                  busy={action.busy}
                  onRevoke={() => revoke(key.id, key.name ?? key.prefix)}
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
