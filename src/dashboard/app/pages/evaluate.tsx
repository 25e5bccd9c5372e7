// "Will my courses transfer?": the Evaluate page (a pasted list of courses against a target
// institution's rules, with the reasons of each result) and the Requested rules page (the courses
// evaluations found no rule for, by demand, each with a link to write the rule).
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
import { InstitutionName, InstitutionPicker } from "../names.tsx";
import {
  Badge,
  DataTable,
  Empty,
  ErrorMessage,
  Link,
  ok,
  PageTitle,
  pageInQuery,
  Show,
  useAction,
  useLoad,
  useQuery,
  When,
} from "../ui.tsx";

type Evaluation = components["schemas"]["TransferEvaluation"];
type Course = components["schemas"]["TransferEvaluationCourse"];

const LIMIT = 25;
const GRADES = new Set(["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F", "P", "NP", "W", "I"]);
const MET = new Set(["equivalent", "elective", "general_education", "no_credit"]);

/**
 * The pasted list: one course a line, `institution, code, grade, date, title` separated by commas
 * or tabs (as a spreadsheet copies them); grade, date and title may be left out. A title lets a
 * course the catalog lacks be evaluated (`unknown_course`) instead of refused. An IPEDS unit id
 * or an institution id names the institution; a course id alone works too.
 */
export function parseCourses(text: string): { courses: Course[]; problems: string[] } {
  const courses: Course[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    const [first = "", code = "", grade = "", completedOn = "", ...titleParts] = line
      .split(/\t|,/)
      .map((cell) => cell.trim());
    const title = titleParts.join(", ").trim();
    const course: Course = first.startsWith("crs_") && !code ? { courseId: first } : { institutionId: first, code };
    if (!("courseId" in course) && (!first || !code))
      problems.push(`Line ${index + 1}: give an institution id and a code.`);
    if (grade) {
      // One spelling, in capitals, as the API takes it.
      if (GRADES.has(grade)) course.grade = grade as Course["grade"];
      else
        problems.push(`Line ${index + 1}: "${grade}" is not a grade, written in capitals (A+ … D-, F, P, NP, W, I).`);
    }
    if (completedOn) {
      if (/^\d{4}-\d{2}-\d{2}$/.test(completedOn)) course.completedOn = completedOn;
      else problems.push(`Line ${index + 1}: write the date as YYYY-MM-DD, e.g. 2024-08-15.`);
    }
    if (title && !("courseId" in course)) course.title = title.slice(0, 300);
    courses.push(course);
  });
  if (courses.length === 0) problems.push("Paste at least one course.");
  if (courses.length > 100) problems.push("At most 100 courses at a time.");
  return { courses, problems };
}

function Results({ evaluation }: { evaluation: Evaluation }) {
  const { totals } = evaluation;
  return (
    <section aria-labelledby="results-heading">
      <h2 id="results-heading">Results</h2>
      <p>
        {totals.matchedCourses} of {totals.courses} courses count at{" "}
        <InstitutionName id={evaluation.targetInstitutionId} />: {totals.awardedCredits} {totals.creditUnit} units
        awarded
        {totals.unconvertedCredits.map((part) => ` and ${part.credits} ${part.creditUnit.replace("_", " ")}s`).join("")}
        .
      </p>
      <DataTable
        caption="Evaluation results"
        columns={["Course", "Grade", "Outcome", "Counts as", "Credits", "Why"]}
        rows={evaluation.results}
        row={(result) => (
          <tr key={`${result.courseId}:${result.code}`}>
            <td>
              <span class="mono">{result.code}</span> {result.title}
            </td>
            <td>{result.grade ?? "—"}</td>
            <td>
              <Badge tone={MET.has(result.outcome) ? "good" : "bad"}>{result.outcome.replaceAll("_", " ")}</Badge>
            </td>
            <td>
              {result.targets
                .map((target) => target.code ?? target.title)
                .join(result.targetChoice === "one_of" ? " or " : " + ")}
              {result.targetChoice === "one_of" && " (one of them, by the program)"}
              {(result.targets.length === 0 && result.generalEducationArea) || "—"}
              {result.equivalencyId && (
                <>
                  {" "}
                  (<Link to={`/equivalencies/${result.equivalencyId}`}>rule</Link>)
                </>
              )}
            </td>
            <td>
              {result.awardedCredits === null ? "—" : `${result.awardedCredits} ${result.awardedCreditUnit ?? ""}`}
            </td>
            <td>
              <ul class="reasons">
                {result.reasons.map((reason) => (
                  <li key={reason}>{reason}</li>
                ))}
              </ul>
            </td>
          </tr>
        )}
      />
    </section>
  );
}

export function Evaluate() {
  const { api } = useDashboard();
  const [target, setTarget] = useState("");
  const [asOf, setAsOf] = useState("");
  const [text, setText] = useState("");
  const [evaluation, setEvaluation] = useState<Evaluation | null>(null);
  const { busy, error, setError, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const { courses, problems } = parseCourses(text);
    if (!target.trim()) problems.unshift("Choose the target institution from the matches.");
    if (problems.length) {
      setError(problems.join(" "));
      return;
    }
    void run(async () => {
      setEvaluation(null);
      setEvaluation(
        await api.transferEvaluations.create({
          targetInstitutionId: target.trim(),
          ...(asOf ? { asOf } : {}),
          courses,
        }),
      );
    });
  };
  return (
    <>
      <PageTitle>Evaluate</PageTitle>
      <p>
        Will these courses transfer? Paste one course a line: institution (its id or IPEDS unit id), course code, grade,
        completion date and, for a course the catalog lacks, its title, separated by commas or tabs (grade, date and
        title may be left out). Nothing about the student is stored.
      </p>
      <form class="stack" aria-label="Evaluate courses" onSubmit={submit}>
        <div>
          <InstitutionPicker
            id="ev-target"
            label="Target institution"
            value={target}
            onChange={(id) => setTarget(id)}
          />
        </div>
        <div>
          <label for="ev-courses">Courses</label>
          <textarea
            id="ev-courses"
            rows={6}
            placeholder={
              "113333, MATH 1A, B, 2025-06-12\n113333, MATH 99X, A, 2025-06-12, Special Topics in Mathematics"
            }
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="ev-asof">Date for courses without one (optional)</label>
          <input id="ev-asof" type="date" value={asOf} onInput={(e) => setAsOf(e.currentTarget.value)} />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? "Evaluating…" : "Evaluate"}
        </button>
      </form>
      {error && <ErrorMessage message={error} />}
      {evaluation && <Results evaluation={evaluation} />}
    </>
  );
}

export function RequestedRules() {
  const { api, canWrite } = useDashboard();
  const [query, setQuery] = useQuery();
  const offset = Number(query.get("offset") ?? 0) || 0;
  const target = query.get("targetInstitution") ?? "";
  const [draft, setDraft] = useState(target);
  const list = useLoad(
    async () =>
      target
        ? ok(
            await api.raw.GET("/equivalency-requests", {
              params: { query: { targetInstitution: target, limit: LIMIT, offset } },
            }),
          )
        : null,
    [api, query.toString()],
  );
  return (
    <>
      <PageTitle>Requested rules</PageTitle>
      <p>
        Courses that evaluations asked about and no accepted rule covers, most asked first. Writing an accepted rule for
        a course clears its count.
      </p>
      <form
        class="filters"
        aria-label="Choose the target institution"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ targetInstitution: draft.trim(), offset: undefined });
        }}
      >
        <div>
          <InstitutionPicker id="rq-target" label="Target institution" value={draft} onChange={(id) => setDraft(id)} />
        </div>
        <button type="submit">Show</button>
      </form>
      <Show value={list}>
        {(page) =>
          page === null ? (
            <Empty>Choose a target institution.</Empty>
          ) : page.data.length === 0 ? (
            <Empty>No requests: every course asked about has a rule.</Empty>
          ) : (
            <DataTable
              caption="Requested rules"
              columns={[
                "Source course",
                "Institution",
                "Requests",
                "Requesters",
                "Last asked",
                { label: "Actions", hidden: true },
              ]}
              rows={page.data}
              row={(item) => (
                <tr key={`${item.sourceCourseId}:${item.sourceCourse?.institutionId}:${item.sourceCourse?.code}`}>
                  <td>
                    <span class="mono">{item.sourceCourse?.code ?? item.sourceCourseId}</span>{" "}
                    {item.sourceCourse?.title}
                    {item.inCatalog === false && <span class="muted"> (not in the catalog)</span>}
                  </td>
                  <td>
                    {item.sourceCourse?.institutionId ? <InstitutionName id={item.sourceCourse.institutionId} /> : "—"}
                  </td>
                  <td>{item.requests}</td>
                  <td>{item.distinctRequesters ?? "—"}</td>
                  <td>
                    <When at={item.lastRequestedAt} />
                  </td>
                  <td>
                    {canWrite && item.inCatalog !== false && (
                      <Link
                        to={`/equivalencies/new?${new URLSearchParams({
                          sourceCourseIds: item.sourceCourseId,
                          targetInstitutionId: item.targetInstitutionId,
                        })}`}
                      >
                        Create rule<span class="sr-only"> for {item.sourceCourse?.code ?? item.sourceCourseId}</span>
                      </Link>
                    )}
                  </td>
                </tr>
              )}
              page={pageInQuery(page.pagination.total, LIMIT, offset, setQuery)}
            />
          )
        }
      </Show>
    </>
  );
}
