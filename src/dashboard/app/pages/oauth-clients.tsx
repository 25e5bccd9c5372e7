// OAuth clients: create (the secret shown once), list, revoke.
import { useState } from "preact/hooks";
import { loose } from "../api.ts";
import { useDashboard } from "../context.ts";
import { Badge, Empty, ErrorMessage, ok, PageTitle, SecretOnce, Show, useAction, useLoad, When } from "../ui.tsx";

interface OAuthClient {
  id: string;
  name: string | null;
  clientId?: string;
  environment?: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
}

export function OAuthClients() {
  const { api, environment } = useDashboard();
  const client = loose(api);
  const [name, setName] = useState("");
  const [writeScope, setWriteScope] = useState(false);
  const [created, setCreated] = useState<{ clientId: string; secret: string } | null>(null);
  const action = useAction();
  const list = useLoad(async () => ok(await client.GET<{ data: OAuthClient[] }>("/oauth-clients", {})).data, [api]);
  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const scopes = writeScope ? ["read:public", "write:contribute"] : ["read:public"];
      const result = ok(
        await client.POST<{ data: OAuthClient & { clientSecret?: string; secret?: string } }>("/oauth-clients", {
          body: { name: name.trim(), environment, scopes },
        }),
      ).data;
      setCreated({ clientId: result.clientId ?? result.id, secret: result.clientSecret ?? result.secret ?? "" });
      setName("");
      list.reload();
    });
  };
  const revoke = (id: string, label: string) =>
    action.run(async () => {
      if (!confirm(`Revoke ${label}? Its tokens stop working when they expire.`)) return;
      const result = await client.POST("/oauth-clients/{id}/revoke", { params: { path: { id } } });
      if (!result.response.ok) ok(result);
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
        {(data) =>
          data.length === 0 ? (
            <Empty>No OAuth clients yet.</Empty>
          ) : (
            <table>
              <caption class="sr-only">OAuth clients</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Client id</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((c) => (
                  <tr key={c.id}>
                    <td>{c.name ?? <span class="muted">unnamed</span>}</td>
                    <td class="mono">{c.clientId ?? c.id}</td>
                    <td>{c.scopes.join(", ")}</td>
                    <td>
                      <When at={c.createdAt} />
                    </td>
                    <td>
                      <When at={c.lastUsedAt} />
                    </td>
                    <td>
                      {c.revokedAt ? (
                        <Badge tone="bad">revoked</Badge>
                      ) : (
                        <button
                          type="button"
                          class="danger"
                          disabled={action.busy}
                          onClick={() => revoke(c.id, c.name ?? c.id)}
                        >
                          Revoke<span class="sr-only"> {c.name ?? c.id}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </>
  );
}
