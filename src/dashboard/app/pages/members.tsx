// Members (admin): list, change role, disable, invite (a one-time sign-in link); the
// organization's stewarded institutions, read-only.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
import type { Role } from "../session.ts";
import { StewardedInstitutions, useStewardship } from "../stewardship.tsx";
import {
  Badge,
  Empty,
  ErrorMessage,
  ok,
  PageTitle,
  SecretOnce,
  Show,
  useAction,
  useLoad,
  When,
  DataTable,
} from "../ui.tsx";

type Member = components["schemas"]["Member"];
const LIMIT = 50;
const ROLES: Role[] = ["viewer", "contributor", "admin"];

export function Members() {
  const { api, session } = useDashboard();
  const [offset, setOffset] = useState(0);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [invited, setInvited] = useState<{ email: string; url: string } | null>(null);
  const action = useAction();
  const members = useLoad(
    async () => ok(await api.raw.GET("/members", { params: { query: { limit: LIMIT, offset } } })),
    [api, offset],
  );
  const stewardship = useStewardship();
  const invite = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const result = ok(await api.raw.POST("/members", { body: { email: email.trim(), role } })).data;
      setInvited({ email: result.email, url: result.signInUrl });
      setEmail("");
      members.reload();
    });
  };
  const update = (id: string, body: { role?: Role; disabled?: boolean }) =>
    action.run(async () => {
      ok(await api.raw.PATCH("/members/{id}", { params: { path: { id } }, body }));
      members.reload();
    });
  const isDisabled = (m: Member) => m.disabled;
  return (
    <>
      <PageTitle>Members</PageTitle>
      <form class="inline" onSubmit={invite} aria-label="Invite a member">
        <label for="invite-email">Email</label>
        <input id="invite-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" disabled={action.busy}>
          Invite
        </button>
      </form>
      {action.error && <ErrorMessage message={action.error} />}
      {invited && (
        <SecretOnce
          label={`Sign-in link for ${invited.email} (valid 15 minutes, single use)`}
          value={invited.url}
          onDone={() => setInvited(null)}
        />
      )}
      <Show value={members}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No members yet.</Empty>
          ) : (
            <DataTable
              caption="Members"
              columns={["Name", "Email", "Role", "Last sign-in", "State"]}
              rows={data}
              row={(m) => (
                <tr key={m.id}>
                  <td>{m.name ?? <span class="muted">–</span>}</td>
                  <td>{m.email}</td>
                  <td>
                    <label class="sr-only" for={`role-${m.id}`}>
                      Role of {m.email}
                    </label>
                    <select
                      id={`role-${m.id}`}
                      value={m.role}
                      disabled={action.busy || m.id === session.user.id}
                      onChange={(e) => update(m.id, { role: e.currentTarget.value as Role })}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <When at={m.lastSignInAt} />
                  </td>
                  <td>
                    {isDisabled(m) ? <Badge tone="bad">disabled</Badge> : <Badge tone="good">active</Badge>}{" "}
                    {m.id !== session.user.id && (
                      <button
                        type="button"
                        class={isDisabled(m) ? "secondary" : "danger"}
                        disabled={action.busy}
                        onClick={() => update(m.id, { disabled: !isDisabled(m) })}
                      >
                        {isDisabled(m) ? "Enable" : "Disable"}
                        <span class="sr-only"> {m.email}</span>
                      </button>
                    )}
                  </td>
                </tr>
              )}
              page={{ total: pagination.total, limit: LIMIT, offset, onChange: setOffset }}
            />
          )
        }
      </Show>
      <h2>Stewarded institutions</h2>
      <p class="muted">Set by the service's operators; read-only here.</p>
      <Show value={stewardship}>
        {(data) =>
          data.allInstitutions ? (
            <p>Every institution of this environment.</p>
          ) : data.institutionIds.length === 0 ? (
            <Empty>None in this environment.</Empty>
          ) : (
            <StewardedInstitutions ids={data.institutionIds} />
          )
        }
      </Show>
    </>
  );
}
