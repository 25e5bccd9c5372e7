// Names instead of ids: courses as "CODE — Title", institutions by name, each with its id on
// hover (title attribute) and a copy button where an id is worth copying; and pickers that find a
// course by code or title, or an institution by name, where the API filters by id.
import { useEffect, useRef, useState } from "preact/hooks";
import type { components } from "../../../generated/api-types.ts";
import type { Api } from "./api.ts";
import { useDashboard } from "./context.ts";
import { Link } from "./link.tsx";

type Course = components["schemas"]["Course"];
type Institution = components["schemas"]["Institution"];

/** One lookup per record and API (the API is per environment), shared by every component. */
const lookups = new WeakMap<Api, Map<string, Promise<unknown>>>();

function lookup<T>(api: Api, key: string, load: () => Promise<T>): Promise<T> {
  let cache = lookups.get(api);
  if (!cache) {
    cache = new Map();
    lookups.set(api, cache);
  }
  let found = cache.get(key) as Promise<T> | undefined;
  if (!found) {
    found = load();
    // A failed lookup (a deleted record, a network error) is tried again next time.
    const records = cache;
    found.catch(() => records.delete(key));
    cache.set(key, found);
  }
  return found;
}

/** A record read by id: null when the API answers 404. */
function byId<T>(
  api: Api,
  key: string,
  read: () => Promise<{ data?: { data: T }; response: Response }>,
): Promise<T | null> {
  return lookup(api, key, async () => {
    const result = await read();
    if (result.response.status === 404) return null;
    if (!result.data) throw new Error(`${key}: ${result.response.status}`);
    return result.data.data;
  });
}

export function institutionById(api: Api, id: string): Promise<Institution | null> {
  return byId(api, `inst:${id}`, () => api.raw.GET("/institutions/{id}", { params: { path: { id } } }));
}

export function courseById(api: Api, id: string): Promise<Course | null> {
  return byId(api, `crs:${id}`, () => api.raw.GET("/courses/{id}", { params: { path: { id } } }));
}

export function datasetById(api: Api, id: string): Promise<components["schemas"]["DatasetVersion"] | null> {
  return byId(api, `ds:${id}`, () => api.raw.GET("/datasets/{id}", { params: { path: { id } } }));
}

export function equivalencyById(api: Api, id: string): Promise<components["schemas"]["Equivalency"] | null> {
  return byId(api, `eq:${id}`, () => api.raw.GET("/equivalencies/{id}", { params: { path: { id } } }));
}

/** Forgets a course read before (after it changed), so the next lookup reads it again. */
export function forgetCourse(api: Api, id: string) {
  lookups.get(api)?.delete(`crs:${id}`);
}

/** Remembers a record already read (a list's item), so its name needs no request. */
export function rememberCourse(api: Api, course: Course) {
  lookup(api, `crs:${course.id}`, async () => course);
}
export function rememberInstitution(api: Api, institution: Institution) {
  lookup(api, `inst:${institution.id}`, async () => institution);
}

function useRecord<T>(load: () => Promise<T | null>, deps: unknown[]): T | null | undefined {
  const [record, setRecord] = useState<T | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setRecord(undefined);
    load().then(
      (found) => live && setRecord(found),
      () => live && setRecord(null),
    );
    return () => {
      live = false;
    };
  }, deps);
  return record;
}

/** "CODE — Title"; a cross-listed course shows its codes together: "COMPSCI C8 = DATA C8 — Title". */
export function courseLabel(course: Pick<Course, "code" | "title" | "crossListedCodes">): string {
  return `${[course.code, ...(course.crossListedCodes ?? [])].join(" = ")} — ${course.title}`;
}

/** Stands for a name being read: people meet names, not ids, so the id shows only for a record that is gone. */
export function LoadingName({ id }: { id: string }) {
  return (
    <span class="muted" title={id} aria-busy="true">
      …
    </span>
  );
}

/** An institution by name, its id on hover; the id itself when unknown. */
export function InstitutionName({ id }: { id: string }) {
  const { api } = useDashboard();
  const institution = useRecord(() => institutionById(api, id), [api, id]);
  if (institution === undefined) return <LoadingName id={id} />;
  if (!institution) return <span class="mono">{id}</span>;
  return <span title={id}>{institution.name}</span>;
}

/** A course as "CODE — Title" linking to its page, with its institution's name when `withInstitution`. */
export function CourseName({ id, withInstitution = false }: { id: string; withInstitution?: boolean }) {
  const { api } = useDashboard();
  const course = useRecord(() => courseById(api, id), [api, id]);
  if (course === undefined) return <LoadingName id={id} />;
  if (!course) return <span class="mono">{id}</span>;
  return (
    <span>
      <Link to={`/courses/${course.id}`} title={id}>
        {courseLabel(course)}
      </Link>
      {withInstitution && (
        <>
          {" "}
          <span class="muted">
            at <InstitutionName id={course.institutionId} />
          </span>
        </>
      )}
    </span>
  );
}

/** A dataset version as "Dataset 3: Fall 2026" linking to its page, its id on hover. */
export function DatasetName({ id }: { id: string }) {
  const { api } = useDashboard();
  const dataset = useRecord(() => datasetById(api, id), [api, id]);
  if (dataset === undefined) return <LoadingName id={id} />;
  if (!dataset) return <span class="mono">{id}</span>;
  return (
    <Link to={`/datasets/${id}`} title={id}>
      Dataset {dataset.sequence}: {dataset.label}
    </Link>
  );
}

/** A small button that copies an id (the page shows the name). */
export function CopyId({ id, label }: { id: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      title={id}
      onClick={async () => {
        await navigator.clipboard.writeText(id).catch(() => undefined);
        setCopied(true);
      }}
    >
      {copied ? "Copied" : "Copy id"}
      <span class="sr-only"> {label ?? id}</span>
    </button>
  );
}

interface Choice {
  id: string;
  label: string;
  detail?: string;
}

/**
 * A text field that finds records by what people know (a name, a code, a title) and chooses one:
 * its id is what the API needs. Typing shows up to eight matches as buttons; choosing one fills
 * the field with its name. `value` is the chosen id ("" for none).
 */
function Picker({
  id,
  label,
  value,
  onChange,
  search,
  nameOf,
  placeholder,
  required = false,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (id: string, choice: Choice | null) => void;
  search: (text: string) => Promise<Choice[]>;
  nameOf: (id: string) => Promise<string | null>;
  placeholder?: string;
  required?: boolean;
}) {
  const [text, setText] = useState("");
  const [matches, setMatches] = useState<Choice[] | null>(null);
  const round = useRef(0);
  useEffect(() => {
    let live = true;
    if (value)
      void nameOf(value).then((name) => {
        if (live) setText(name ?? value);
      });
    return () => {
      live = false;
    };
  }, [value]);
  const find = (next: string) => {
    setText(next);
    if (value) onChange("", null);
    const mine = ++round.current;
    if (next.trim().length < 2) {
      setMatches(null);
      return;
    }
    void search(next.trim()).then(
      (found) => mine === round.current && setMatches(found),
      () => mine === round.current && setMatches([]),
    );
  };
  const choose = (choice: Choice) => {
    round.current++;
    setMatches(null);
    setText(choice.label);
    onChange(choice.id, choice);
  };
  return (
    <div class="picker">
      <label for={id}>{label}</label>
      <div class="row">
        <input
          id={id}
          type="search"
          autoComplete="off"
          placeholder={placeholder}
          value={text}
          required={required}
          aria-describedby={`${id}-state`}
          onInput={(e) => find(e.currentTarget.value)}
        />
        {value && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setText("");
              setMatches(null);
              onChange("", null);
            }}
          >
            Clear<span class="sr-only"> {label}</span>
          </button>
        )}
      </div>
      <p id={`${id}-state`} class="hint" aria-live="polite">
        {value ? (
          <span title={value}>Chosen</span>
        ) : matches === null ? (
          ""
        ) : matches.length === 0 ? (
          "No match"
        ) : (
          `${matches.length} match${matches.length === 1 ? "" : "es"}: choose one`
        )}
      </p>
      {!value && matches && matches.length > 0 && (
        <ul class="matches" aria-label={`Matches for ${label}`}>
          {matches.map((match) => (
            <li key={match.id}>
              <button type="button" class="match" title={match.id} onClick={() => choose(match)}>
                {match.label}
                {match.detail && <span class="muted"> · {match.detail}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

type PickerProps = {
  id: string;
  label: string;
  value: string;
  onChange: (id: string) => void;
  required?: boolean;
};

/** Finds an institution by name (or city). */
export function InstitutionPicker(props: PickerProps) {
  const { api } = useDashboard();
  return (
    <Picker
      {...props}
      placeholder="Name, e.g. Santa Monica"
      onChange={(id) => props.onChange(id)}
      nameOf={async (id) => (await institutionById(api, id))?.name ?? null}
      search={async (q) => {
        const result = await api.raw.GET("/institutions", { params: { query: { q, limit: 8 } } });
        return (result.data?.data ?? []).map((institution) => {
          rememberInstitution(api, institution);
          return {
            id: institution.id,
            label: institution.name,
            detail: [institution.city, institution.state].filter(Boolean).join(", "),
          };
        });
      }}
    />
  );
}

/** Finds a course by code or title, within one institution when `institutionId` is given. */
export function CoursePicker(props: PickerProps & { institutionId?: string }) {
  const { api } = useDashboard();
  const { institutionId } = props;
  return (
    <Picker
      {...props}
      placeholder="Code or title, e.g. CHEM 1A"
      onChange={(id) => props.onChange(id)}
      nameOf={async (id) => {
        const course = await courseById(api, id);
        return course ? courseLabel(course) : null;
      }}
      search={async (q) => {
        const query = { q, limit: 8, ...(institutionId ? { institution: institutionId } : {}) };
        const result = await api.raw.GET("/courses", { params: { query } });
        const courses = result.data?.data ?? [];
        const names = await Promise.all(
          courses.map((course) => institutionById(api, course.institutionId).catch(() => null)),
        );
        return courses.map((course, index) => {
          rememberCourse(api, course);
          return { id: course.id, label: courseLabel(course), detail: names[index]?.name ?? course.institutionId };
        });
      }}
    />
  );
}
