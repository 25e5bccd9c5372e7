// The dashboard: the signed-in shell (navigation, live/sandbox switch, sign-out) and its pages.
import "./styles.css";
import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { createApi } from "./api.ts";
import { DashboardContext, type Dashboard } from "./context.ts";
import { match, navigate, onLinkClick, usePath } from "./router.ts";
import { type Environment, loadSession, type Session, signOut, TokenSource } from "./session.ts";
import { ErrorMessage, Link, Loading } from "./ui.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { Overview } from "./pages/overview.tsx";
import { Keys } from "./pages/keys.tsx";
import { OAuthClients } from "./pages/oauth-clients.tsx";
import { Webhooks, WebhookDetail } from "./pages/webhooks.tsx";
import { Equivalencies, EquivalencyDetail } from "./pages/equivalencies.tsx";
import { Courses, Institutions } from "./pages/catalog.tsx";
import { Datasets, DatasetDetail } from "./pages/datasets.tsx";
import { Members } from "./pages/members.tsx";
import { AuditLog } from "./pages/audit.tsx";
import { SsoConnections } from "./pages/sso.tsx";

interface Route {
  path: string;
  title: string;
  admin?: boolean;
  nav?: boolean;
  render: (params: Record<string, string>) => preact.JSX.Element;
}

const ROUTES: Route[] = [
  { path: "/", title: "Overview", render: () => <Overview /> },
  { path: "/equivalencies", title: "Equivalencies", render: () => <Equivalencies /> },
  { path: "/equivalencies/:id", title: "Equivalency", nav: false, render: (p) => <EquivalencyDetail id={p.id} /> },
  { path: "/courses", title: "Courses", render: () => <Courses /> },
  { path: "/institutions", title: "Institutions", render: () => <Institutions /> },
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

function storedEnvironment(): Environment {
  return localStorage.getItem(ENVIRONMENT_KEY) === "sandbox" ? "sandbox" : "live";
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const path = usePath();
  const [environment, setEnvironment] = useState<Environment>(storedEnvironment);
  const dashboard = useMemo<Dashboard>(() => {
    const api = createApi(new TokenSource(session, environment));
    const role = session.user.role;
    return { session, environment, api, isAdmin: role === "admin", canWrite: role !== "viewer" };
  }, [session, environment]);
  const switchEnvironment = (next: Environment) => {
    localStorage.setItem(ENVIRONMENT_KEY, next);
    setEnvironment(next);
  };
  const routes = ROUTES.filter((route) => !route.admin || dashboard.isAdmin);
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
          {(["live", "sandbox"] as const).map((value) => (
            <label key={value} class={environment === value ? "on" : ""}>
              <input
                type="radio"
                name="environment"
                value={value}
                checked={environment === value}
                onChange={() => switchEnvironment(value)}
              />
              {value === "live" ? "Live" : "Sandbox"}
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
