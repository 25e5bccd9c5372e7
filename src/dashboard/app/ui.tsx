// Shared pieces of every page: loading/error/empty states, paging, secrets shown once, dates.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { problemText } from "./api.ts";
import { NamedText } from "./named-text.tsx";

export { Link } from "./link.tsx";

export type Loaded<T> =
  | { state: "loading"; data?: undefined; error?: undefined }
  | { state: "error"; data?: undefined; error: string }
  | { state: "ready"; data: T; error?: undefined };

/** An API result as openapi-fetch gives it. */
interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Unwraps an openapi-fetch result: its data, or throws its problem's text. */
export function ok<T>(result: Result<T>): T {
  if (result.error !== undefined || result.data === undefined)
    throw new Error(problemText(result.error, `The request failed (${result.response.status}).`));
  return result.data;
}

/** Loads `load()` whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> & { reload: () => void } {
  const [value, setValue] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setValue((previous) => (previous.state === "ready" ? previous : { state: "loading" }));
    load().then(
      (data) => live && setValue({ state: "ready", data }),
      (error) => live && setValue({ state: "error", error: problemText(error) }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...value, reload };
}

/** Runs an action and keeps its pending state and error message. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(problemText(caught));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  );
}

export function ErrorMessage({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>
        <NamedText text={message} />
      </p>
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Renders a Loaded value: a status while loading, the error with a retry, else `children(data)`. */
export function Show<T>({
  value,
  children,
}: {
  value: Loaded<T> & { reload: () => void };
  children: (data: T) => ComponentChildren;
}) {
  if (value.state === "loading") return <Loading />;
  if (value.state === "error") return <ErrorMessage message={value.error} onRetry={value.reload} />;
  return <>{children(value.data)}</>;
}

export function PageTitle({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    document.title = `${heading.current?.textContent ?? "Dashboard"} · Dashboard`;
  }, []);
  return (
    <h1 tabIndex={-1} ref={heading}>
      {children}
    </h1>
  );
}

export function Pager({
  total,
  limit,
  offset,
  onChange,
}: {
  total: number;
  limit: number;
  offset: number;
  onChange: (offset: number) => void;
}) {
  if (total <= limit) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <button
        type="button"
        class="secondary"
        disabled={offset === 0}
        onClick={() => onChange(Math.max(0, offset - limit))}
      >
        Previous
      </button>
      <span>
        {offset + 1}–{last} of {total}
      </span>
      <button type="button" class="secondary" disabled={last >= total} onClick={() => onChange(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

/** A column heading; `hidden` keeps it for screen readers only (the actions column). */
export type Column = string | { label: string; hidden: true };

/**
 * A table of records with a caption for screen readers, one heading per column and one row per
 * record, and the pager below it when `page` is given (lists of the API).
 */
export function DataTable<Row>({
  caption,
  columns,
  rows,
  row,
  page,
}: {
  caption: string;
  columns: Column[];
  rows: Row[];
  row: (record: Row, index: number) => ComponentChildren;
  page?: { total: number; limit: number; offset: number; onChange: (offset: number) => void };
}) {
  return (
    <>
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === "string" ? (
                <th scope="col" key={column}>
                  {column}
                </th>
              ) : (
                <th scope="col" key={column.label}>
                  <span class="sr-only">{column.label}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{rows.map(row)}</tbody>
      </table>
      {page && <Pager {...page} />}
    </>
  );
}

/** A DataTable's `page` whose offset lives in the address (`?offset=`), so Back returns to the page. */
export function pageInQuery(
  total: number,
  limit: number,
  offset: number,
  setQuery: (next: Record<string, string | undefined>) => void,
) {
  return { total, limit, offset, onChange: (next: number) => setQuery({ offset: String(next) }) };
}

/** A secret the API shows only once, with a copy button. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      field.current?.select();
      document.execCommand("copy");
    }
    setCopied(true);
  };
  return (
    <section class="secret" aria-label={label}>
      <p>
        <strong>{label}</strong> — shown only this once. Copy it now and keep it somewhere safe.
      </p>
      <div class="row">
        <input
          ref={field}
          readOnly
          value={value}
          aria-label={label}
          class="mono"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
        {onDone && (
          <button type="button" class="secondary" onClick={onDone}>
            Done
          </button>
        )}
      </div>
      <p class="sr-only" aria-live="polite">
        {copied ? "Copied to the clipboard" : ""}
      </p>
    </section>
  );
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">never</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleString()}
    </time>
  );
}

export function Badge({ children, tone = "neutral" }: { children: ComponentChildren; tone?: string }) {
  return <span class={`badge ${tone}`}>{children}</span>;
}

/** The query string of the current URL, as an object, for filters that survive reloads. */
export function useQuery(): [URLSearchParams, (next: Record<string, string | undefined>) => void] {
  const [query, setQuery] = useState(() => new URLSearchParams(location.search));
  useEffect(() => {
    const update = () => setQuery(new URLSearchParams(location.search));
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  const set = (next: Record<string, string | undefined>) => {
    const params = new URLSearchParams(location.search);
    for (const [key, value] of Object.entries(next)) {
      if (value === undefined || value === "") params.delete(key);
      else params.set(key, value);
    }
    const search = params.toString();
    history.replaceState(null, "", `${location.pathname}${search ? `?${search}` : ""}`);
    setQuery(params);
  };
  return [query, set];
}

/** A credential's last table cell: "revoked", or the button that revokes it, named for screen readers. */
function RevokeCell({
  revokedAt,
  label,
  busy,
  onRevoke,
}: {
  revokedAt: string | null;
  label: string;
  busy: boolean;
  onRevoke: () => void;
}) {
  if (revokedAt) return <Badge tone="bad">revoked</Badge>;
  return (
    <button type="button" class="danger" disabled={busy} onClick={onRevoke}>
      Revoke<span class="sr-only"> {label}</span>
    </button>
  );
}

/** A credential in a list (an API key, an OAuth client): what the two pages show alike. */
export function CredentialRow({
  name,
  identifier,
  scopes,
  createdAt,
  lastUsedAt,
  revokedAt,
  busy,
  onRevoke,
}: {
  name: string | null;
  /** The key's prefix or the client's id: what names it when it has no name. */
  identifier: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  busy: boolean;
  onRevoke: () => void;
}) {
  return (
    <tr>
      <td>{name ?? <span class="muted">unnamed</span>}</td>
      <td class="mono">{identifier}</td>
      <td>{scopes.join(", ")}</td>
      <td>
        <When at={createdAt} />
      </td>
      <td>
        <When at={lastUsedAt} />
      </td>
      <td>
        <RevokeCell revokedAt={revokedAt} label={name ?? identifier} busy={busy} onRevoke={onRevoke} />
      </td>
    </tr>
  );
}
