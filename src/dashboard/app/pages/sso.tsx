// Single sign-on connections (admin), read-only: they are configured with `npm run cli -- sso …`.
import { loose } from "../api.ts";
import { useDashboard } from "../context.ts";
import { Empty, ok, PageTitle, Show, useLoad, When } from "../ui.tsx";

interface SsoConnection {
  id: string;
  protocol?: string;
  kind?: string;
  type?: string;
  domain?: string;
  domains?: string[];
  issuer?: string | null;
  entityId?: string | null;
  idpEntityId?: string | null;
  roleMap?: Record<string, string> | null;
  roleMapping?: Record<string, string> | null;
  createdAt?: string;
}

export function SsoConnections() {
  const { api } = useDashboard();
  const list = useLoad(
    async () => ok(await loose(api).GET<{ data: SsoConnection[] }>("/sso-connections", {})).data,
    [api],
  );
  return (
    <>
      <PageTitle>Single sign-on</PageTitle>
      <p>
        People whose email domain matches a connection sign in at their identity provider. Connections are added with{" "}
        <code>npm run cli -- sso add-oidc …</code> or <code>sso add-saml …</code>; secrets are never shown.
      </p>
      <Show value={list}>
        {(data) =>
          data.length === 0 ? (
            <Empty>No connection: members sign in with one-time links from an administrator.</Empty>
          ) : (
            <table>
              <caption class="sr-only">Sign-in connections</caption>
              <thead>
                <tr>
                  <th scope="col">Protocol</th>
                  <th scope="col">Domain</th>
                  <th scope="col">Identity provider</th>
                  <th scope="col">Role mapping</th>
                  <th scope="col">Added</th>
                </tr>
              </thead>
              <tbody>
                {data.map((c) => {
                  const map = c.roleMap ?? c.roleMapping;
                  return (
                    <tr key={c.id}>
                      <td>{(c.protocol ?? c.kind ?? c.type ?? "").toUpperCase()}</td>
                      <td>{c.domain ?? c.domains?.join(", ")}</td>
                      <td class="mono">{c.issuer ?? c.idpEntityId ?? c.entityId ?? "–"}</td>
                      <td>
                        {map && Object.keys(map).length
                          ? Object.entries(map)
                              .map(([from, to]) => `${from} → ${to}`)
                              .join(", ")
                          : "everyone: viewer"}
                      </td>
                      <td>
                        <When at={c.createdAt} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
        }
      </Show>
    </>
  );
}
