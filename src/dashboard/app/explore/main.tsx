// The public transfer explorer at /explore (no sign-in): choose the college you come from and the
// one you go to by name, read their agreement, and ask whether your courses transfer. The address
// /explore/{from}/{to} (institution ids or IPEDS unit ids) is each pair's permalink; `?env=sandbox`
// reads the sandbox's demonstration data. Reads only the API's public Explorer operations.
import "./explorer.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AgreementView } from "./agreement.tsx";
import { type Agreement, type Environment, type Environments, explorerApi, type Institution } from "./api.ts";
import { Combobox, type Option } from "./combobox.tsx";
import { WillMyCoursesTransfer } from "./evaluate.tsx";
import { place } from "./words.ts";

interface Place {
  from: string | null;
  to: string | null;
  environment: Environment | null;
}

function readLocation(): Place {
  const [, , from, to] = location.pathname.split("/").map(decodeURIComponent);
  const env = new URLSearchParams(location.search).get("env");
  return {
    from: from || null,
    to: to || null,
    environment: env === "sandbox" || env === "live" ? env : null,
  };
}

function hrefOf(from: Institution | null, to: Institution | null, environment: Environment, usual: Environment) {
  const path = from && to ? `/explore/${from.ipedsId}/${to.ipedsId}` : "/explore";
  return environment === usual ? path : `${path}?env=${environment}`;
}

function institutionOptions(environment: Environment) {
  return async (text: string): Promise<Option<Institution>[]> =>
    (await explorerApi.institutions(environment, text)).map((institution) => ({
      key: institution.id,
      label: institution.name,
      detail: place(institution),
      value: institution,
    }));
}

function EnvironmentSwitch({
  value,
  environments,
  onChange,
}: {
  value: Environment;
  environments: Environments | null;
  onChange: (environment: Environment) => void;
}) {
  const liveEmpty = environments?.data.find((e) => e.environment === "live")?.acceptedRules === 0;
  return (
    <fieldset class="environment">
      <legend>Data</legend>
      {(["live", "sandbox"] as const).map((environment) => (
        <label key={environment} class="choice">
          <input
            type="radio"
            name="environment"
            value={environment}
            checked={value === environment}
            onChange={() => onChange(environment)}
          />
          {environment === "live" ? "Live" : "Sandbox (demonstration)"}
        </label>
      ))}
      {value === "sandbox" && (
        <p class="notice">
          {liveEmpty
            ? "Live data holds no transfer rules yet, so the explorer shows the sandbox: "
            : "The sandbox holds "}
          demonstration data, not real agreements.
        </p>
      )}
    </fieldset>
  );
}

function Explorer() {
  const [environments, setEnvironments] = useState<Environments | null>(null);
  const [where, setWhere] = useState<Place>(readLocation);
  const [from, setFrom] = useState<Institution | null>(null);
  const [to, setTo] = useState<Institution | null>(null);
  const [agreement, setAgreement] = useState<Agreement | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    explorerApi.environments().then(setEnvironments, (failure: Error) => setError(failure.message));
    const onPop = () => setWhere(readLocation());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  const usual = environments?.defaultEnvironment ?? "live";
  const environment = where.environment ?? usual;

  useEffect(() => {
    if (!environments || !where.from || !where.to) {
      setAgreement(null);
      return;
    }
    let current = true;
    setError(null);
    explorerApi.agreement(environment, where.from, where.to).then(
      (found) => {
        if (!current) return;
        setAgreement(found);
        setFrom(found.from);
        setTo(found.to);
        document.title = `${found.from.name} → ${found.to.name} · Transfer explorer`;
      },
      (failure: Error) => current && setError(failure.message),
    );
    return () => {
      current = false;
    };
  }, [environments, where.from, where.to, environment]);

  const go = (next: { from: Institution | null; to: Institution | null; environment: Environment }) => {
    const href = hrefOf(next.from, next.to, next.environment, usual);
    history.pushState(null, "", href);
    setWhere(readLocation());
  };
  const choose = (side: "from" | "to") => (institution: Institution) => {
    const next = { from, to, environment, [side]: institution };
    if (side === "from") setFrom(institution);
    else setTo(institution);
    setAgreement(null);
    if (next.from && next.to) go(next);
  };
  const switchEnvironment = (next: Environment) => {
    setFrom(null);
    setTo(null);
    setAgreement(null);
    go({ from: null, to: null, environment: next });
  };

  return (
    <>
      <header class="top">
        <div class="wrap">
          <p class="brand">
            <a href={hrefOf(null, null, environment, usual)}>Transfer explorer</a>
          </p>
          <EnvironmentSwitch value={environment} environments={environments} onChange={switchEnvironment} />
        </div>
      </header>
      <main class="wrap">
        <h1>Will my courses transfer?</h1>
        <p class="lead">
          Choose the college you come from and the one you want to go to. You will see every transfer rule the receiving
          institution has accepted and that is in force today, and you can check your own courses.
        </p>
        <section class="pair" aria-label="Choose the two institutions">
          <Combobox<Institution>
            key={`from-${environment}`}
            id="from"
            label="I am coming from"
            hint="College name or city, e.g. De Anza or Cupertino."
            placeholder="College name or city"
            chosen={from?.name ?? ""}
            search={institutionOptions(environment)}
            onChoose={choose("from")}
          />
          <Combobox<Institution>
            key={`to-${environment}`}
            id="to"
            label="I want to transfer to"
            hint="Name, city or state, e.g. Berkeley CA."
            placeholder="College or university"
            chosen={to?.name ?? ""}
            search={institutionOptions(environment)}
            onChoose={choose("to")}
          />
        </section>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {where.from && where.to && !agreement && !error && <p aria-live="polite">Loading the agreement…</p>}
        {agreement && (
          <>
            <AgreementView agreement={agreement} permalink={hrefOf(agreement.from, agreement.to, environment, usual)} />
            <WillMyCoursesTransfer
              key={`${agreement.from.id}-${agreement.to.id}-${environment}`}
              environment={environment}
              from={agreement.from}
              to={agreement.to}
            />
          </>
        )}
      </main>
      <footer class="wrap foot">
        <p>
          Transfer rules and course records from the Course and Equivalency Repository, licensed{" "}
          <a href="https://creativecommons.org/licenses/by/4.0/" rel="license">
            CC BY 4.0
          </a>
          . Each rule is decided by its receiving institution; confirm your credit with its transfer office.
        </p>
        <p>
          For registrars: <a href="/dashboard">the dashboard</a> · <a href="/docs">the API reference</a>
        </p>
      </footer>
    </>
  );
}

// The boot message is replaced, not kept beside the app (Preact renders into the container's end).
const root = document.getElementById("app")!;
root.textContent = "";
render(<Explorer />, root);
