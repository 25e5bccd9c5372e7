// Import rules: a steward uploads a CSV file of articulation rules (the layout of
// docs/api-guide.md#importing-rules-from-a-csv-file), checks it with a dry run or imports it, and
// reads the counts and the row-level issues (row, column, message) that POST
// /equivalencies/imports answers.
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
import { NamedText } from "../named-text.tsx";
import { DataTable, Empty, ErrorMessage, PageTitle, useAction } from "../ui.tsx";

type ImportResult = components["schemas"]["EquivalencyImportResult"];

const COUNTS: [keyof ImportResult["summary"], string][] = [
  ["received", "Rows received"],
  ["created", "Created"],
  ["updated", "Updated"],
  ["unchanged", "Unchanged"],
  ["conflict", "Stored as conflict"],
  ["rejected", "Rejected"],
];

export function ImportRules() {
  const { api, environment } = useDashboard();
  const [file, setFile] = useState<File | null>(null);
  const [dryRun, setDryRun] = useState(true);
  const [result, setResult] = useState<{ name: string; answer: ImportResult } | null>(null);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    if (!file) return;
    void action.run(async () => {
      setResult(null);
      const answer = await api.equivalencies.importCsv(await file.text(), { dryRun });
      setResult({ name: file.name, answer });
    });
  };
  return (
    <>
      <PageTitle>Import rules</PageTitle>
      <p>
        Load a CSV file of articulation rules into {environment}: one rule a row, source and target courses by
        institution and code (up to ten of each), then kind, minimum grade, dates, priority, status, deciding body and
        policy basis. A dry run checks and counts every row and stores nothing; an import stores the whole file at once.
        A row that contradicts an accepted rule is stored as conflict and waits in the review queue.
      </p>
      <form onSubmit={submit} aria-label="Import a CSV file of rules">
        <p>
          <label for="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            required
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </p>
        <fieldset class="choices">
          <legend>What to do</legend>
          <label class="check">
            <input type="radio" name="import-mode" checked={dryRun} onChange={() => setDryRun(true)} /> Dry run: check
            and count, store nothing
          </label>
          <label class="check">
            <input type="radio" name="import-mode" checked={!dryRun} onChange={() => setDryRun(false)} /> Import: store
            the rules
          </label>
        </fieldset>
        <button type="submit" disabled={action.busy || !file}>
          {action.busy ? "Working…" : dryRun ? "Check the file" : "Import the file"}
        </button>
      </form>
      {action.error && <ErrorMessage message={action.error} />}
      {result && <ImportAnswer name={result.name} answer={result.answer} />}
    </>
  );
}

function ImportAnswer({ name, answer }: { name: string; answer: ImportResult }) {
  return (
    <section aria-labelledby="import-result">
      <h2 id="import-result">
        {answer.dryRun ? "Dry run" : "Imported"}: {name}
      </h2>
      <p role="status">
        {answer.dryRun ? "Checked; nothing was stored." : "Stored."} {answer.summary.received} rows,{" "}
        {answer.issues.length} {answer.issues.length === 1 ? "issue" : "issues"}.
      </p>
      <dl class="facts">
        {COUNTS.map(([key, label]) => (
          <Fragment key={key}>
            <dt>{label}</dt>
            <dd>{answer.summary[key]}</dd>
          </Fragment>
        ))}
      </dl>
      {answer.issues.length === 0 ? (
        <Empty>No issue: every row was read as written.</Empty>
      ) : (
        <DataTable
          caption={`Issues (${answer.issues.length}), by row`}
          columns={["Row", "Column", "Message"]}
          rows={answer.issues}
          row={(issue) => (
            <tr key={`${issue.row}-${issue.column}-${issue.message}`}>
              <td>{issue.row === 0 ? "header" : issue.row}</td>
              <td>{issue.column ?? "—"}</td>
              <td>
                <NamedText text={issue.message} />
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}
