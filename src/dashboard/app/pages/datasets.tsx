// Datasets: publish a version of the organization's equivalencies, read its row-level issues.
import { useState } from "preact/hooks";
import { useDashboard } from "../context.ts";
import { Badge, Empty, ErrorMessage, Link, ok, PageTitle, Show, useAction, useLoad, When, DataTable } from "../ui.tsx";
import { navigate } from "../router.ts";
import { CopyId, CourseName } from "../names.tsx";
import { NamedText } from "../named-text.tsx";
import { RuleName } from "../rule-words.tsx";

const LIMIT = 25;

export function Datasets() {
  const { api, canWrite, environment } = useDashboard();
  const [offset, setOffset] = useState(0);
  const [label, setLabel] = useState("");
  const [recordCount, setRecordCount] = useState("");
  const action = useAction();
  const list = useLoad(
    async () => ok(await api.raw.GET("/datasets", { params: { query: { limit: LIMIT, offset } } })),
    [api, offset],
  );
  const publish = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const body = { label: label.trim(), ...(recordCount ? { recordCount: Number(recordCount) } : {}) };
      const result = ok(await api.raw.POST("/datasets", { body }));
      navigate(`/datasets/${result.data.id}`);
    });
  };
  return (
    <>
      <PageTitle>Datasets</PageTitle>
      {canWrite && (
        <form class="inline" onSubmit={publish} aria-label="Publish a dataset">
          <label for="ds-label">Label</label>
          <input
            id="ds-label"
            required
            value={label}
            placeholder="Fall 2026"
            onInput={(e) => setLabel(e.currentTarget.value)}
          />
          <label for="ds-count">Expected record count (optional)</label>
          <input
            id="ds-count"
            type="number"
            min={0}
            value={recordCount}
            onInput={(e) => setRecordCount(e.currentTarget.value)}
          />
          <button type="submit" disabled={action.busy}>
            Publish
          </button>
        </form>
      )}
      {action.error && <ErrorMessage message={action.error} />}
      <Show value={list}>
        {({ data, pagination }) =>
          data.length === 0 ? (
            <Empty>No dataset published yet in {environment}.</Empty>
          ) : (
            <DataTable
              caption="Dataset versions"
              columns={["Sequence", "Label", "Records", "Issues", "Published"]}
              rows={data}
              row={(ds) => (
                <tr key={ds.id}>
                  <td>{ds.sequence}</td>
                  <td>
                    <Link to={`/datasets/${ds.id}`}>{ds.label}</Link>
                  </td>
                  <td>{ds.snapshotRecordCount}</td>
                  <td>
                    {ds.issueCount === 0 ? <Badge tone="good">none</Badge> : <Badge tone="warn">{ds.issueCount}</Badge>}
                  </td>
                  <td>
                    <When at={ds.createdAt} />
                  </td>
                </tr>
              )}
              page={{ total: pagination.total, limit: LIMIT, offset, onChange: setOffset }}
            />
          )
        }
      </Show>
    </>
  );
}

/** The record an issue is about: a rule or a course by name, anything else by a copy button. */
function IssueRecord({ id }: { id: string | null | undefined }) {
  if (!id) return <>–</>;
  if (id.startsWith("eq_"))
    return (
      <Link to={`/equivalencies/${id}`}>
        <RuleName id={id} />
      </Link>
    );
  if (id.startsWith("crs_")) return <CourseName id={id} />;
  return <CopyId id={id} label="the record's id" />;
}

export function DatasetDetail({ id }: { id: string }) {
  const { api } = useDashboard();
  const dataset = useLoad(
    async () => ok(await api.raw.GET("/datasets/{id}", { params: { path: { id } } })).data,
    [api, id],
  );
  return (
    <>
      <p class="crumbs">
        <Link to="/datasets">Datasets</Link> /
      </p>
      <Show value={dataset}>
        {(ds) => (
          <>
            <PageTitle>
              Dataset {ds.sequence}: {ds.label}
            </PageTitle>
            <p>
              {ds.snapshotRecordCount} records · published <When at={ds.createdAt} />
              {ds.recordCount !== null && ds.recordCount !== ds.snapshotRecordCount && (
                <> · {ds.recordCount} were expected</>
              )}
            </p>
            <h2>Row-level issues</h2>
            {ds.issues.length === 0 ? (
              <Empty>No issues: every row passed validation.</Empty>
            ) : (
              <DataTable
                caption="Issues"
                columns={["Row", "Record", "Field", "Severity", "Code", "Message"]}
                rows={ds.issues}
                row={(issue, index) => (
                  <tr key={index}>
                    <td>{issue.row ?? "–"}</td>
                    <td>
                      <IssueRecord id={issue.recordId} />
                    </td>
                    <td class="mono">{issue.field ?? "–"}</td>
                    <td>
                      <Badge tone={issue.severity === "error" ? "bad" : "warn"}>{issue.severity}</Badge>
                    </td>
                    <td class="mono">{issue.code}</td>
                    <td>
                      <NamedText text={issue.message} />
                    </td>
                  </tr>
                )}
              />
            )}
          </>
        )}
      </Show>
    </>
  );
}
