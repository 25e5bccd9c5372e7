// Single sign-on connections (admin), read-only: they are configured with `npm run cli -- sso …`.
import { useDashboard } from "../context.ts";
import { Empty, ok, PageTitle, Show, useLoad, When } from "../ui.tsx";

export function SsoConnections() {
  const { api } = useDashboard();
  const list = useLoad(
    async () => ok(await api.raw.GET("/sso-connections", { params: { query: { limit: 100 } } })).data,
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
                  const map = c.roleMap;
                  return (
                    <tr key={c.id}>
                      <td>{c.protocol.toUpperCase()}</td>
                      <td>{c.domain}</td>
                      <td class="mono">
                        {c.issuer}
                        {c.clientId && <div class="muted">client {c.clientId}</div>}
                        {c.ssoUrl && <div class="muted">{c.ssoUrl}</div>}
                      </td>
                      <td>
                        {map && Object.keys(map).length
                          ? Object.entries(map)
                              .map(([from, to]) => `${from} → ${to}`)
                              .join(", ")
                          : "everyone: viewer"}
                        {c.roleClaim && <div class="muted">from {c.roleClaim}</div>}
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
