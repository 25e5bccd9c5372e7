// The dashboard: the signed-in shell (navigation, live/sandbox switch, sign-out) and its pages.
import "./styles.css";
import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { type Api, createApi } from "./api.ts";
import { DashboardContext, type Dashboard } from "./context.ts";
import { match, navigate, onLinkClick, usePath } from "./router.ts";
import { type Environment, loadSession, type Session, signOut, TokenSource } from "./session.ts";
import { ErrorMessage, Link, Loading } from "./ui.tsx";
import { hasStewardship, loadStewardship } from "./stewardship.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { Overview } from "./pages/overview.tsx";
import { Keys } from "./pages/keys.tsx";
import { OAuthClients } from "./pages/oauth-clients.tsx";
import { Webhooks, WebhookDetail } from "./pages/webhooks.tsx";
import { Equivalencies, EquivalencyDetail } from "./pages/equivalencies.tsx";
import { Courses, Institutions } from "./pages/catalog.tsx";
import { CourseDetail } from "./pages/course.tsx";
import { ReviewQueue } from "./pages/review.tsx";
import { ImportRules } from "./pages/import-rules.tsx";
import { NewRule } from "./pages/rule-form.tsx";
import { Datasets, DatasetDetail } from "./pages/datasets.tsx";
import { Members } from "./pages/members.tsx";
import { AuditLog } from "./pages/audit.tsx";
import { SsoConnections } from "./pages/sso.tsx";
import { Evaluate, RequestedRules } from "./pages/evaluate.tsx";

interface Route {
  path: string;
  title: string;
  admin?: boolean;
  /** Only for roles that write (contributor, admin). */
  writer?: boolean;
  nav?: boolean;
  render: (params: Record<string, string>) => preact.JSX.Element;
}

const ROUTES: Route[] = [
  { path: "/", title: "Overview", render: () => <Overview /> },
  { path: "/review", title: "Review queue", writer: true, render: () => <ReviewQueue /> },
  { path: "/equivalencies", title: "Equivalencies", render: () => <Equivalencies /> },
  { path: "/import-rules", title: "Import rules", writer: true, render: () => <ImportRules /> },
  { path: "/equivalencies/new", title: "New rule", writer: true, nav: false, render: () => <NewRule /> },
  { path: "/equivalencies/:id", title: "Equivalency", nav: false, render: (p) => <EquivalencyDetail id={p.id} /> },
  { path: "/courses", title: "Courses", render: () => <Courses /> },
  { path: "/courses/:id", title: "Course", nav: false, render: (p) => <CourseDetail id={p.id} /> },
  { path: "/institutions", title: "Institutions", render: () => <Institutions /> },
  { path: "/evaluate", title: "Evaluate", render: () => <Evaluate /> },
  { path: "/requested-rules", title: "Requested rules", render: () => <RequestedRules /> },
  { path: "/datasets", title: "Datasets", render: () => <Datasets /> },
  { path: "/datasets/:id", title: "Dataset", nav: false, render: (p) => <DatasetDetail id={p.id} /> },
  { path: "/keys", title: "API keys", admin: true, render: () => <Keys /> },
  { path: "/oauth-clients", title: "OAuth clients", admin: true, render: () => <OAuthClients /> },
  { path: "/webhooks", title: "Webhooks", admin: true, render: () => <Webhooks /> },
  { path: "/webhooks/:id", title: "Webhook", admin: true, nav: false, render: (p) => <WebhookDetail id={p.id} /> },
  { path: "/members", title: "Members", admin: true, render: () => <Members /> },
  { path: "/audit", title: "Audit log", admin: true, render: () => <AuditLog /> },
  { path: "/sso", title: "Single sign-on", admin: true, render: () => <SsoConnections /> },
];

const ENVIRONMENT_KEY = "dashboard.environment";
const ENVIRONMENTS: Environment[] = ["live", "sandbox"];
const ENVIRONMENT_NAMES: Record<Environment, string> = { live: "Live", sandbox: "Sandbox" };

/** The environment chosen last time in this browser, or null when none was. */
function storedEnvironment(): Environment | null {
  const stored = localStorage.getItem(ENVIRONMENT_KEY);
  return stored === "live" || stored === "sandbox" ? stored : null;
}

/** The environments where the organization stewards institutions (where its work is). */
async function environmentsWithData(apis: Record<Environment, Api>): Promise<Environment[]> {
  const found = await Promise.all(
    ENVIRONMENTS.map(async (environment) => hasStewardship(await loadStewardship(apis[environment]))),
  );
  return ENVIRONMENTS.filter((_, index) => found[index]);
}

/** Says where the organization's institutions are when the current environment has none of them. */
function DataElsewhere({
  environment,
  dataIn,
  onSwitch,
}: {
  environment: Environment;
  dataIn: Environment[];
  onSwitch: (environment: Environment) => void;
}) {
  if (dataIn.includes(environment)) return null;
  const other = dataIn[0];
  return (
    <div class="notice elsewhere" role="status">
      {other ? (
        <p>
          Your organization stewards no institution in {ENVIRONMENT_NAMES[environment]}; its institutions are in{" "}
          {ENVIRONMENT_NAMES[other]}.{" "}
          <button type="button" class="secondary" onClick={() => onSwitch(other)}>
            Switch to {ENVIRONMENT_NAMES[other]}
          </button>
        </p>
      ) : (
        <p>
          Your organization stewards no institution yet, in Live or Sandbox: you can read every record, and an
          administrator of the service grants stewardship with the command-line tool (<code>orgs grant</code>).
        </p>
      )}
    </div>
  );
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const path = usePath();
  const apis = useMemo<Record<Environment, Api>>(
    () => ({
      live: createApi(new TokenSource(session, "live")),
      sandbox: createApi(new TokenSource(session, "sandbox")),
    }),
    [session],
  );
  const [chosen, setChosen] = useState<Environment | null>(storedEnvironment);
  const [dataIn, setDataIn] = useState<Environment[] | null>(null);
  useEffect(() => {
    environmentsWithData(apis).then(setDataIn, () => setDataIn(ENVIRONMENTS));
  }, [apis]);
  // Without a choice made in this browser, the dashboard opens where the organization's data is.
  const environment: Environment | null = chosen ?? (dataIn ? (dataIn[0] ?? "live") : null);
  const dashboard = useMemo<Dashboard | null>(() => {
    if (!environment) return null;
    const role = session.user.role;
    return { session, environment, api: apis[environment], isAdmin: role === "admin", canWrite: role !== "viewer" };
  }, [session, environment, apis]);
  const switchEnvironment = (next: Environment) => {
    localStorage.setItem(ENVIRONMENT_KEY, next);
    setChosen(next);
  };
  if (!dashboard || !environment) return <Loading what="Opening the dashboard" />;
  const routes = ROUTES.filter((route) => (!route.admin || dashboard.isAdmin) && (!route.writer || dashboard.canWrite));
  let page: preact.JSX.Element | null = null;
  for (const route of routes) {
    const params = match(route.path, path);
    if (params) {
      page = route.render(params);
      break;
    }
  }
  const active = (route: Route) => (route.path === "/" ? path === "/" : path.startsWith(route.path));
  return (
    <DashboardContext.Provider value={dashboard}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class={`top ${environment}`}>
        <span class="brand">{session.organization.name}</span>
        <fieldset class="environment">
          <legend class="sr-only">Environment</legend>
          {ENVIRONMENTS.map((value) => (
            <label key={value} class={environment === value ? "on" : ""}>
              <input
                type="radio"
                name="environment"
                value={value}
                checked={environment === value}
                onChange={() => switchEnvironment(value)}
              />
              {ENVIRONMENT_NAMES[value]}
            </label>
          ))}
        </fieldset>
        {environment === "sandbox" && <span class="sandbox-note">Sandbox data: changes here never reach live</span>}
        <span class="who">
          {session.user.name ?? session.user.email} <span class="muted">({session.user.role})</span>
        </span>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await signOut(session);
            onSignedOut();
          }}
        >
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav class="side" aria-label="Dashboard">
          <ul>
            {routes
              .filter((route) => route.nav !== false)
              .map((route) => (
                <li key={route.path}>
                  <Link to={route.path} {...(active(route) ? { "aria-current": "page" } : {})}>
                    {route.title}
                  </Link>
                </li>
              ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1} key={`${environment}${path}`}>
          {dataIn && <DataElsewhere environment={environment} dataIn={dataIn} onSwitch={switchEnvironment} />}
          {page ?? (
            <>
              <h1>Not found</h1>
              <p>
                There is no page at this address{dashboard.isAdmin ? "" : " for your role"}.{" "}
                <Link to="/">Back to the overview</Link>.
              </p>
            </>
          )}
        </main>
      </div>
    </DashboardContext.Provider>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    loadSession().then(setSession, (caught: Error) => {
      setError(caught.message);
    });
  useEffect(() => {
    void load();
  }, []);
  if (error)
    return (
      <main id="main">
        <ErrorMessage
          message={error}
          onRetry={() => {
            setError(null);
            void load();
          }}
        />
      </main>
    );
  if (session === undefined) return <Loading what="Loading the dashboard" />;
  if (session === null) return <SignIn />;
  return (
    <Shell
      session={session}
      onSignedOut={() => {
        setSession(null);
        navigate("/", true);
      }}
    />
  );
}

document.addEventListener("click", onLinkClick);
render(<App />, document.getElementById("app")!);
