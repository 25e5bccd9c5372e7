// "Will my courses transfer?": the Evaluate page (a pasted list of courses against a target
// institution's rules, with the reasons of each result) and the Requested rules page (the courses
// evaluations found no rule for, by demand, each with a link to write the rule).
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
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
 * The pasted list: one course a line, `institution, code, grade, date` separated by commas or
 * tabs (as a spreadsheet copies them); grade and date may be left out. A course id alone works too.
 */
export function parseCourses(text: string): { courses: Course[]; problems: string[] } {
  const courses: Course[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    const [first = "", code = "", grade = "", completedOn = ""] = line.split(/\t|,/).map((cell) => cell.trim());
    const course: Course = first.startsWith("crs_") && !code ? { courseId: first } : { institutionId: first, code };
    if (!("courseId" in course) && (!first || !code))
      problems.push(`Line ${index + 1}: give an institution id and a code.`);
    if (grade) {
      if (GRADES.has(grade.toUpperCase())) course.grade = grade.toUpperCase() as Course["grade"];
      else problems.push(`Line ${index + 1}: "${grade}" is not a grade (A+ … D-, F, P, NP, W, I).`);
    }
    if (completedOn) {
      if (/^\d{4}-\d{2}-\d{2}$/.test(completedOn)) course.completedOn = completedOn;
      else problems.push(`Line ${index + 1}: write the date as YYYY-MM-DD.`);
    }
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
        {totals.matchedCourses} of {totals.courses} courses count at {evaluation.targetInstitutionId}:{" "}
        {totals.awardedCredits} {totals.creditUnit} units awarded
        {totals.unconvertedCredits.map((part) => ` and ${part.credits} ${part.creditUnit.replace("_", " ")}s`).join("")}
        .
      </p>
      <DataTable
        caption="Evaluation results"
        columns={["Course", "Grade", "Outcome", "Counts as", "Credits", "Why"]}
        rows={evaluation.results}
        row={(result) => (
          <tr key={result.courseId}>
            <td>
              <span class="mono">{result.code}</span> {result.title}
            </td>
            <td>{result.grade ?? "—"}</td>
            <td>
              <Badge tone={MET.has(result.outcome) ? "good" : "bad"}>{result.outcome.replaceAll("_", " ")}</Badge>
            </td>
            <td>
              {result.targets.map((target) => target.code ?? target.title).join(" + ") ||
                result.generalEducationArea ||
                "—"}
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
    if (!target.trim()) problems.unshift("Give the target institution's id.");
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
        Will these courses transfer? Paste one course a line: institution id, course code, grade and completion date,
        separated by commas or tabs (grade and date may be left out). Nothing about the student is stored.
      </p>
      <form class="stack" aria-label="Evaluate courses" onSubmit={submit}>
        <div>
          <label for="ev-target">Target institution id</label>
          <input
            id="ev-target"
            placeholder="inst_110635"
            value={target}
            onInput={(e) => setTarget(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="ev-courses">Courses</label>
          <textarea
            id="ev-courses"
            rows={6}
            placeholder={"inst_122977, BIO 101, B, 2025-06-12\ninst_122977, CHEM 1A, C, 2025-06-12"}
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
          <label for="rq-target">Target institution id</label>
          <input
            id="rq-target"
            placeholder="inst_110635"
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
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
              columns={["Source course", "Institution", "Requests", "Last asked", { label: "Actions", hidden: true }]}
              rows={page.data}
              row={(item) => (
                <tr key={item.sourceCourseId}>
                  <td>
                    <span class="mono">{item.sourceCourse?.code ?? item.sourceCourseId}</span>{" "}
                    {item.sourceCourse?.title}
                  </td>
                  <td class="mono">{item.sourceCourse?.institutionId ?? "—"}</td>
                  <td>{item.requests}</td>
                  <td>
                    <When at={item.lastRequestedAt} />
                  </td>
                  <td>
                    {canWrite && (
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
