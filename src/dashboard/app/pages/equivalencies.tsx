// Equivalencies: browse with the API's filters, open one, read its version history as a
// timeline (change note, actor, changed fields side by side), change its status with If-Match.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { problemText } from "../api.ts";
import { useDashboard } from "../context.ts";
import { CopyId, CourseName, CoursePicker, DatasetName, InstitutionName, InstitutionPicker } from "../names.tsx";
import { ruleText, setsOf, useMissingCodes } from "../rule-words.tsx";
import { EditRule } from "./rule-form.tsx";
import {
  Badge,
  Empty,
  ErrorMessage,
  Link,
  ok,
  PageTitle,
  Show,
  useAction,
  useLoad,
  useQuery,
  When,
  DataTable,
  pageInQuery,
} from "../ui.tsx";

type Status = components["schemas"]["EquivalencyStatus"];
type Rule = components["schemas"]["Equivalency"];
type Version = components["schemas"]["EquivalencyVersion"];
type Snapshot = components["schemas"]["EquivalencySnapshot"];
type Target = components["schemas"]["RuleTarget"];
const LIMIT = 25;
const STATUSES: Status[] = ["pending", "accepted", "conflict"];
/** The allowed transitions (decisions.md, "Equivalency changes"). */
const NEXT: Record<Status, Status[]> = {
  pending: ["accepted", "conflict"],
  conflict: ["pending", "accepted"],
  accepted: ["conflict"],
};

export function statusTone(status: Status) {
  return status === "accepted" ? "good" : status === "conflict" ? "bad" : "warn";
}

/** A rule in a line, whole: every alternative set of source courses, an arrow, what it gives (by code). */
export function RuleSummary({ rule }: { rule: Rule }) {
  return <>{ruleText(rule, useMissingCodes(rule))}</>;
}

export function Equivalencies() {
  const { api, canWrite } = useDashboard();
  const [query, setQuery] = useQuery();
  const offset = Number(query.get("offset") ?? 0) || 0;
  const filters = {
    status: (query.get("status") ?? "") as Status | "",
    provenance: query.get("provenance") ?? "",
    sourceCourse: query.get("sourceCourse") ?? "",
    targetInstitution: query.get("targetInstitution") ?? "",
  };
  const [draft, setDraft] = useState(filters);
  const list = useLoad(
    async () =>
      ok(
        await api.raw.GET("/equivalencies", {
          params: {
            query: {
              limit: LIMIT,
              offset,
              expand: "course",
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.provenance ? { provenance: filters.provenance as "direct" } : {}),
              ...(filters.sourceCourse ? { sourceCourse: filters.sourceCourse } : {}),
              ...(filters.targetInstitution ? { targetInstitution: filters.targetInstitution } : {}),
            },
          },
        }),
      ),
    [api, query.toString()],
  );
  const apply = (event: Event) => {
    event.preventDefault();
    setQuery({ ...draft, offset: undefined });
  };
  return (
    <>
      <PageTitle>Equivalencies</PageTitle>
      {canWrite && (
        <p>
          <Link to="/equivalencies/new" class="button">
            New rule
          </Link>
        </p>
      )}
      <form class="filters" onSubmit={apply} aria-label="Filter equivalencies">
        <div>
          <label for="f-status">Status</label>
          <select
            id="f-status"
            value={draft.status}
            onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value as Status })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="f-provenance">Provenance</label>
          <select
            id="f-provenance"
            value={draft.provenance}
            onChange={(e) => setDraft({ ...draft, provenance: e.currentTarget.value })}
          >
            <option value="">any</option>
            <option value="channel_a">channel_a</option>
            <option value="channel_b">channel_b</option>
            <option value="direct">direct</option>
          </select>
        </div>
        <CoursePicker
          id="f-source"
          label="Source course"
          value={draft.sourceCourse}
          onChange={(id) => setDraft((current) => ({ ...current, sourceCourse: id }))}
        />
        <InstitutionPicker
          id="f-target"
          label="Target institution"
          value={draft.targetInstitution}
          onChange={(id) => setDraft((current) => ({ ...current, targetInstitution: id }))}
        />
        <button type="submit">Apply filters</button>
      </form>
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No equivalency matches these filters.</Empty>
          ) : (
            <DataTable
              caption="Equivalencies"
              columns={["Rule", "From", "To", "Status", "Version", "Updated"]}
              rows={data}
              row={(eq) => (
                <tr key={eq.id}>
                  <td>
                    <Link to={`/equivalencies/${eq.id}`} title={eq.id}>
                      <RuleSummary rule={eq} />
                    </Link>
                  </td>
                  <td title={eq.sourceCourse?.institutionId}>{eq.sourceCourse?.institution.name ?? "–"}</td>
                  <td title={eq.targetInstitutionId}>
                    {eq.targetInstitution?.name ?? <InstitutionName id={eq.targetInstitutionId} />}
                  </td>
                  <td>
                    <Badge tone={statusTone(eq.status)}>{eq.status}</Badge>
                  </td>
                  <td>{eq.version}</td>
                  <td>
                    <When at={eq.updatedAt} />
                  </td>
                </tr>
              )}
              page={pageInQuery(pagination.total, LIMIT, offset, setQuery)}
            />
          )
        }
      </Show>
    </>
  );
}

/** Courses one after another, joined by `joiner`. */
function courseList(ids: string[], joiner: string) {
  return ids.map((id, index) => (
    <span key={id}>
      {index > 0 && joiner}
      <CourseName id={id} />
    </span>
  ));
}

/** A snapshot's value, records by name: courses, institutions, source course sets, targets and the dataset. */
function show(field: string, value: unknown) {
  if (value === null || value === undefined || value === "") return <span class="muted">empty</span>;
  if (typeof value === "string" && /CourseId$/.test(field)) return <CourseName id={value} />;
  if (typeof value === "string" && /InstitutionId$/.test(field)) return <InstitutionName id={value} />;
  if (typeof value === "string" && field === "datasetVersionId") return <DatasetName id={value} />;
  if (field === "sourceCourseIds" && Array.isArray(value)) return <>{courseList(value as string[], " + ")}</>;
  if (field === "sourceCourseSets" && Array.isArray(value)) {
    const sets = value as string[][];
    return (
      <>
        {sets.map((set, index) => (
          <span key={index}>
            {index > 0 && " or "}
            {sets.length > 1 && set.length > 1 ? <>({courseList(set, " + ")})</> : courseList(set, " + ")}
          </span>
        ))}
      </>
    );
  }
  if (field === "targets" && Array.isArray(value)) {
    const targets = value as Target[];
    if (targets.length === 0) return <span class="muted">none</span>;
    return (
      <>
        {targets.map((target, index) => (
          <span key={index}>
            {index > 0 && ", "}
            {target.courseId ? <CourseName id={target.courseId} /> : (target.code ?? "?")}
            {target.credits !== null && ` (${target.credits} credits)`}
          </span>
        ))}
      </>
    );
  }
  if (typeof value === "object") return <span class="mono">{JSON.stringify(value)}</span>;
  return <span>{String(value)}</span>;
}

/** Who made a version: a member's email or a key's name, the id on hover. */
function Actor({ actor }: { actor: Version["actor"] }) {
  if (!actor) return <>unknown</>;
  const kind = actor.kind === "user" ? "member" : actor.kind.replace("_", " ");
  if (!actor.displayName)
    return (
      <span title={actor.credentialId ?? undefined}>{actor.credentialId ? `an unnamed ${kind}` : "the system"}</span>
    );
  return (
    <span title={actor.credentialId ?? undefined}>
      {actor.displayName} <span class="muted">({kind})</span>
    </span>
  );
}

/** The rule's source courses: one set (all required), or alternatives of which any one complete set satisfies it. */
function SourceSetFacts({ sets }: { sets: string[][] }) {
  const courses = (set: string[]) =>
    set.map((sourceId, index) => (
      <span key={sourceId}>
        {index > 0 && " + "}
        <CourseName id={sourceId} withInstitution={index === set.length - 1} />
      </span>
    ));
  if (sets.length === 1) {
    const only = sets[0] ?? [];
    return (
      <>
        <dt>{only.length > 1 ? "Source courses (all required)" : "Source course"}</dt>
        <dd>{courses(only)}</dd>
      </>
    );
  }
  return (
    <>
      <dt>Source courses (any one of these {sets.length} alternatives, each set all required)</dt>
      <dd>
        <ol class="alternatives">
          {sets.map((set, index) => (
            <li key={index}>{courses(set)}</li>
          ))}
        </ol>
      </dd>
    </>
  );
}

function Timeline({ versions }: { versions: Version[] }) {
  const ordered = [...versions].sort((a, b) => b.version - a.version);
  const byVersion = new Map(versions.map((v) => [v.version, v.state as Snapshot]));
  return (
    <ol class="timeline" aria-label="Version history, newest first">
      {ordered.map((version) => {
        const previous = byVersion.get(version.version - 1);
        const state = version.state as Snapshot;
        return (
          <li key={version.version}>
            <h3>
              Version {version.version}
              {version.current && <Badge tone="good">current</Badge>}
            </h3>
            <p class="muted">
              <When at={version.recordedAt} /> · by <Actor actor={version.actor} />
            </p>
            {version.changeNote ? <blockquote>{version.changeNote}</blockquote> : <p class="muted">No change note.</p>}
            {version.changedFields.length > 0 && (
              <table class="diff">
                <caption class="sr-only">Fields changed in version {version.version}</caption>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Before</th>
                    <th scope="col">After</th>
                  </tr>
                </thead>
                <tbody>
                  {version.changedFields.map((field) => (
                    <tr key={field}>
                      <th scope="row" class="mono">
                        {field}
                      </th>
                      <td class="before">{show(field, previous?.[field as keyof Snapshot])}</td>
                      <td class="after">{show(field, state[field as keyof Snapshot])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        );
      })}
    </ol>
  );
}

export function EquivalencyDetail({ id }: { id: string }) {
  const { api, canWrite } = useDashboard();
  const action = useAction();
  const [conflict, setConflict] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [next, setNext] = useState<Status | "">("");
  const [note, setNote] = useState("");
  const [editing, setEditing] = useState(false);
  const record = useLoad(async () => {
    const result = await api.raw.GET("/equivalencies/{id}", { params: { path: { id } } });
    return { equivalency: ok(result).data, etag: result.response.headers.get("ETag") ?? "" };
  }, [api, id]);
  const history = useLoad(
    async () =>
      ok(await api.raw.GET("/equivalencies/{id}/versions", { params: { path: { id }, query: { limit: 100 } } })),
    [api, id],
  );
  const reloadAll = () => {
    setConflict(null);
    record.reload();
    history.reload();
  };
  const change = (etag: string) => (event: Event) => {
    event.preventDefault();
    if (!next) return;
    void action.run(async () => {
      setConflict(null);
      setSaved(null);
      const result = await api.raw.PATCH("/equivalencies/{id}", {
        params: { path: { id }, header: { "If-Match": etag } },
        body: { status: next, ...(note.trim() ? { note: note.trim() } : {}) },
      });
      if (result.response.status === 412) {
        setConflict(
          "Someone changed this equivalency after you opened it, so your change was not saved. Reload to see the current version, then decide again.",
        );
        return;
      }
      if (result.error) throw new Error(problemText(result.error));
      setSaved(`Status changed to ${next}.`);
      setNext("");
      setNote("");
      record.reload();
      history.reload();
    });
  };
  return (
    <>
      <p class="crumbs">
        <Link to="/equivalencies">Equivalencies</Link> /
      </p>
      <Show value={record}>
        {({ equivalency: eq, etag }) => (
          <>
            <PageTitle>
              Equivalency: <RuleSummary rule={eq} />
            </PageTitle>
            <p>
              <CopyId id={eq.id} label="the equivalency id" />
            </p>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Badge tone={statusTone(eq.status)}>{eq.status}</Badge>
              </dd>
              <SourceSetFacts sets={setsOf(eq)} />
              <dt>Target institution</dt>
              <dd>
                <InstitutionName id={eq.targetInstitutionId} />
              </dd>
              <dt>Kind</dt>
              <dd>
                {(eq.kind ?? "equivalent").replace("_", " ")}
                {eq.generalEducationArea ? ` (${eq.generalEducationArea})` : ""}
              </dd>
              <dt>
                {(eq.targets ?? []).length <= 1
                  ? "Target course"
                  : eq.targetChoice === "one_of"
                    ? "Targets (one of them, chosen by the student's program)"
                    : "Targets (all of them)"}
              </dt>
              <dd>
                {(eq.targets ?? []).length === 0
                  ? (eq.targetCode ?? "–")
                  : (eq.targets ?? []).map((target, index) => (
                      <span key={index}>
                        {index > 0 && (eq.targetChoice === "one_of" ? " or " : " + ")}
                        {target.courseId ? <CourseName id={target.courseId} /> : (target.code ?? "–")}
                        {target.courseId && target.code && <span class="muted"> (named {target.code})</span>}
                        {target.credits !== null && ` (${target.credits} credits)`}
                      </span>
                    ))}
              </dd>
              <dt>Minimum grade</dt>
              <dd>{eq.minimumGrade ? `${eq.minimumGrade} or better` : "any passing grade"}</dd>
              <dt>In force</dt>
              <dd>
                {eq.effectiveFrom || eq.effectiveUntil
                  ? `${eq.effectiveFrom ? `from ${eq.effectiveFrom}` : ""}${eq.effectiveFrom && eq.effectiveUntil ? " " : ""}${eq.effectiveUntil ? `until ${eq.effectiveUntil}` : ""}`
                  : "always"}
              </dd>
              <dt>Priority</dt>
              <dd>{eq.priority ?? 0}</dd>
              <dt>Awarded credits</dt>
              <dd>
                {eq.awardedCredits === null || eq.awardedCredits === undefined
                  ? "–"
                  : `${eq.awardedCredits} ${eq.awardedCreditUnit ?? ""}`.trim()}
              </dd>
              <dt>Decided by</dt>
              <dd>{eq.decidedBy ?? "–"}</dd>
              <dt>Policy basis</dt>
              <dd>{eq.policyBasis ?? "–"}</dd>
              <dt>Version</dt>
              <dd>{eq.version}</dd>
            </dl>
            {canWrite && (
              <form class="inline" onSubmit={change(etag)} aria-label="Change the status">
                <label for="next-status">New status</label>
                <select id="next-status" value={next} onChange={(e) => setNext(e.currentTarget.value as Status)}>
                  <option value="">choose…</option>
                  {NEXT[eq.status].map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
                <label for="change-note">Change note</label>
                <input id="change-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
                <button type="submit" disabled={action.busy || !next}>
                  Change status
                </button>
              </form>
            )}
            {canWrite &&
              (editing ? (
                <EditRule
                  rule={eq}
                  etag={etag}
                  onSaved={(message) => {
                    setEditing(false);
                    setSaved(message);
                    record.reload();
                    history.reload();
                  }}
                />
              ) : (
                <p>
                  <button type="button" class="secondary" onClick={() => setEditing(true)}>
                    Edit rule
                  </button>
                </p>
              ))}
            {conflict && (
              <div class="error conflict" role="alert">
                <p>
                  <strong>Conflict:</strong> {conflict}
                </p>
                <button type="button" class="secondary" onClick={reloadAll}>
                  Reload
                </button>
              </div>
            )}
            {action.error && <ErrorMessage message={action.error} />}
            {saved && (
              <p class="notice" role="status">
                {saved}
              </p>
            )}
          </>
        )}
      </Show>
      <h2>History</h2>
      <Show value={history}>
        {(data) =>
          data.data.versions.length === 0 ? (
            <Empty>No versions recorded.</Empty>
          ) : (
            <Timeline versions={data.data.versions} />
          )
        }
      </Show>
    </>
  );
}
