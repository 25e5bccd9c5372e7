// Overview: who is signed in, the organization, and what it stewards in this environment.
import { useDashboard } from "../context.ts";
import { Link, ok, PageTitle, Show, useLoad } from "../ui.tsx";

export function Overview() {
  const { api, session, environment, isAdmin } = useDashboard();
  const me = useLoad(async () => ok(await api.raw.GET("/organizations/me", {})).data, [api]);
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <p>
        Signed in as <strong>{session.user.email}</strong> ({session.user.role}) in{" "}
        <strong>{session.organization.name}</strong>, working in the <strong>{environment}</strong> environment.
      </p>
      <Show value={me}>
        {(data) => (
          <section aria-labelledby="stewardship">
            <h2 id="stewardship">Stewardship</h2>
            {data.stewardship.allInstitutions ? (
              <p>Your organization stewards every institution of this environment.</p>
            ) : data.stewardship.institutionIds.length === 0 ? (
              <p class="empty">Your organization stewards no institution in this environment yet.</p>
            ) : (
              <ul>
                {data.stewardship.institutionIds.map((id) => (
                  <li key={id} class="mono">
                    {id}
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
      </Show>
      <h2>Where to go</h2>
      <ul class="links">
        <li>
          <Link to="/equivalencies">Equivalencies</Link>: browse, read the history, decide.
        </li>
        <li>
          <Link to="/courses">Courses</Link> and <Link to="/institutions">institutions</Link>: browse and search.
        </li>
        <li>
          <Link to="/datasets">Datasets</Link>: publish a version and read its issues.
        </li>
        {isAdmin && (
          <li>
            <Link to="/keys">API keys</Link>, <Link to="/oauth-clients">OAuth clients</Link>,{" "}
            <Link to="/webhooks">webhooks</Link>, <Link to="/members">members</Link> and the{" "}
            <Link to="/audit">audit log</Link>.
          </li>
        )}
      </ul>
    </>
  );
}
