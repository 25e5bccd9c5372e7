// Overview: who is signed in, the organization, and what it stewards in this environment.
import { useDashboard } from "../context.ts";
import { StewardedInstitutions, useStewardship } from "../stewardship.tsx";
import { Link, PageTitle, Show } from "../ui.tsx";

export function Overview() {
  const { session, environment, isAdmin, canWrite } = useDashboard();
  const stewardship = useStewardship();
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <p>
        Signed in as <strong>{session.user.email}</strong> ({session.user.role}) in{" "}
        <strong>{session.organization.name}</strong>, working in the <strong>{environment}</strong> environment.
      </p>
      <Show value={stewardship}>
        {(data) => (
          <section aria-labelledby="stewardship">
            <h2 id="stewardship">Stewardship</h2>
            {data.allInstitutions ? (
              <p>Your organization stewards every institution of this environment.</p>
            ) : data.institutionIds.length === 0 ? (
              <p class="empty">Your organization stewards no institution in this environment yet.</p>
            ) : (
              <>
                <p>
                  Your organization stewards these institutions: it writes their courses and decides the rules they
                  receive.
                </p>
                <StewardedInstitutions ids={data.institutionIds} />
              </>
            )}
          </section>
        )}
      </Show>
      <h2>Where to go</h2>
      <ul class="links">
        {canWrite && (
          <li>
            <Link to="/review">Review queue</Link>: the pending and conflict rules your institutions receive, oldest
            first.
          </li>
        )}
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
