// "Will my courses transfer?": the student picks courses from the sending college's catalog by code
// or title (or types one it lacks), adds grades and dates if they know them, and reads the answer
// in names and words, with totals.
import { useRef, useState } from "preact/hooks";
import {
  type Course,
  type Environment,
  type Evaluation,
  type EvaluationCourse,
  type EvaluationResult,
  explorerApi,
  type Grade,
  type Institution,
} from "./api.ts";
import { Combobox, type Option } from "./combobox.tsx";
import { credits, day } from "./words.ts";

const GRADES: Grade[] = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F", "P", "NP", "W", "I"];

interface Taken {
  key: string;
  /** The catalog's course, or null for one typed that the catalog lacks. */
  course: Course | null;
  code: string;
  title: string;
  grade: Grade | "";
  completedOn: string;
}

type Pick = { course: Course } | { typed: string };

const OUTCOMES: Record<EvaluationResult["outcome"], { words: string; tone: string }> = {
  equivalent: { words: "Transfers", tone: "good" },
  elective: { words: "Elective credit", tone: "good" },
  general_education: { words: "General education", tone: "good" },
  no_credit: { words: "No credit", tone: "bad" },
  condition_not_met: { words: "Condition not met", tone: "warn" },
  no_rule: { words: "No agreement yet", tone: "neutral" },
  unknown_course: { words: "Not in the catalog", tone: "neutral" },
};

function what(result: EvaluationResult): string {
  const targets = result.targets.map((target) => [target.code, target.title].filter(Boolean).join(" · "));
  switch (result.outcome) {
    case "equivalent":
      return `Counts as ${targets.join(" and ")}`;
    case "elective":
      return targets.length ? `Elective credit: ${targets.join(" and ")}` : "Elective credit";
    case "general_education":
      return `General education${result.generalEducationArea ? `, ${result.generalEducationArea}` : ""}`;
    case "no_credit":
      return "The receiving institution gives no credit for it";
    case "condition_not_met":
      return "A rule exists, but its grade or date condition is not met";
    case "no_rule":
      return "No rule for this course yet: ask the receiving institution";
    case "unknown_course":
      return "Not in the sending college's catalog here";
  }
}

function ResultRow({ result }: { result: EvaluationResult }) {
  const outcome = OUTCOMES[result.outcome];
  const title = result.course.title ? ` · ${result.course.title}` : "";
  return (
    <li class="result">
      <div class="result-head">
        <span class="course">
          <strong>{result.course.code}</strong>
          {title}
        </span>
        <span class={`badge ${outcome.tone}`}>{outcome.words}</span>
      </div>
      <p class="result-what">
        {what(result)}
        {result.awardedCredits !== null && result.awardedCredits > 0 && (
          <strong> · {credits(result.awardedCredits, result.awardedCreditUnit)}</strong>
        )}
        {result.combinedWith.length > 0 && <span class="muted"> (together with {result.combinedWith.join(", ")})</span>}
      </p>
      <details>
        <summary>
          Why<span class="sr-only"> {result.course.code}</span>
        </summary>
        <ul class="reasons">
          {result.reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      </details>
    </li>
  );
}

function Totals({ evaluation }: { evaluation: Evaluation }) {
  const { totals, to } = evaluation;
  const counted = totals.matchedCourses;
  return (
    <p class="totals">
      <strong>
        {counted} of {totals.courses} {totals.courses === 1 ? "course counts" : "courses count"} at {to.name}
      </strong>
      {totals.awardedCredits > 0 && <>, for {credits(totals.awardedCredits, totals.creditUnit)}</>}
      {totals.unconvertedCredits.map((part) => (
        <span key={part.creditUnit}> and {credits(part.credits, part.creditUnit)}</span>
      ))}
      .
    </p>
  );
}

export function WillMyCoursesTransfer({
  environment,
  from,
  to,
}: {
  environment: Environment;
  from: Institution;
  to: Institution;
}) {
  const [taken, setTaken] = useState<Taken[]>([]);
  const [evaluation, setEvaluation] = useState<Evaluation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const resultsHeading = useRef<HTMLHeadingElement>(null);
  const sequence = useRef(0);

  const add = (pick: Pick) => {
    const code = "course" in pick ? pick.course.code : pick.typed.toUpperCase();
    if (taken.some((course) => course.code.toUpperCase() === code.toUpperCase())) return;
    sequence.current += 1;
    const course = "course" in pick ? pick.course : null;
    setTaken([
      ...taken,
      { key: `t${sequence.current}`, course, code, title: course?.title ?? "", grade: "", completedOn: "" },
    ]);
    setEvaluation(null);
  };
  const change = (key: string, fields: Partial<Taken>) => {
    setTaken(taken.map((course) => (course.key === key ? { ...course, ...fields } : course)));
    setEvaluation(null);
  };
  const search = async (text: string): Promise<Option<Pick>[]> =>
    (await explorerApi.courses(environment, from.id, text)).map((course) => ({
      key: course.id,
      label: `${course.code} · ${course.title}`,
      detail: credits(course.credits, course.creditUnit),
      value: { course },
    }));
  const check = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const courses: EvaluationCourse[] = taken.map((course) => ({
        ...(course.course ? { courseId: course.course.id } : { code: course.code }),
        ...(!course.course && course.title.trim() ? { title: course.title.trim() } : {}),
        ...(course.grade ? { grade: course.grade } : {}),
        ...(course.completedOn ? { completedOn: course.completedOn } : {}),
      }));
      setEvaluation(await explorerApi.evaluate(environment, { from: from.id, to: to.id, courses }));
      window.setTimeout(() => resultsHeading.current?.focus(), 0);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="evaluate" aria-labelledby="evaluate-title">
      <h2 id="evaluate-title">Will my courses transfer?</h2>
      <p>
        Add the courses you took at {from.name}. Grades and dates are optional: without a grade, the grade a rule asks
        for is assumed met (and said so).
      </p>
      <Combobox<Pick>
        id="course-search"
        label={`Add a course from ${from.name}`}
        hint="Type a course code or words of its title, e.g. CHEM 1A or chemistry."
        placeholder="Course code or title"
        chosen=""
        clearOnChoose
        search={search}
        extra={(text) =>
          /^[A-Za-z]{1,8}\s*-?\s*\d/.test(text)
            ? {
                key: `typed:${text}`,
                label: `Add “${text.toUpperCase()}” as typed`,
                detail: "not in the catalog",
                value: { typed: text },
              }
            : null
        }
        onChoose={add}
      />
      {taken.length > 0 && (
        <form onSubmit={check}>
          <ul class="taken" aria-label="Your courses">
            {taken.map((course) => (
              <li key={course.key} class="taken-course">
                <fieldset>
                  <legend>
                    <strong>{course.code}</strong>
                    {course.course ? ` · ${course.course.title}` : " · not in the catalog"}
                  </legend>
                  {!course.course && (
                    <div class="field">
                      <label for={`${course.key}-title`}>Title (optional)</label>
                      <input
                        id={`${course.key}-title`}
                        type="text"
                        maxLength={200}
                        value={course.title}
                        onInput={(event) => change(course.key, { title: event.currentTarget.value })}
                      />
                    </div>
                  )}
                  <div class="field">
                    <label for={`${course.key}-grade`}>Grade</label>
                    <select
                      id={`${course.key}-grade`}
                      value={course.grade}
                      onChange={(event) => change(course.key, { grade: event.currentTarget.value as Grade | "" })}
                    >
                      <option value="">Not given</option>
                      {GRADES.map((grade) => (
                        <option key={grade} value={grade}>
                          {grade}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div class="field">
                    <label for={`${course.key}-date`}>Completed on</label>
                    <input
                      id={`${course.key}-date`}
                      type="date"
                      value={course.completedOn}
                      onInput={(event) => change(course.key, { completedOn: event.currentTarget.value })}
                    />
                  </div>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => {
                      setTaken(taken.filter((other) => other.key !== course.key));
                      setEvaluation(null);
                    }}
                  >
                    Remove<span class="sr-only"> {course.code}</span>
                  </button>
                </fieldset>
              </li>
            ))}
          </ul>
          <button type="submit" disabled={busy}>
            {busy ? "Checking…" : `Check ${taken.length === 1 ? "this course" : `these ${taken.length} courses`}`}
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {evaluation && (
        <div class="results">
          <h3 ref={resultsHeading} tabIndex={-1}>
            Your results at {evaluation.to.name}
          </h3>
          <Totals evaluation={evaluation} />
          <ul class="result-list">
            {evaluation.results.map((result) => (
              <ResultRow key={result.course.code} result={result} />
            ))}
          </ul>
          <p class="hint">
            Rules in force{" "}
            {evaluation.asOf
              ? `on ${day(evaluation.asOf)}`
              : "when each course was completed (today when no date is given)"}
            . Only {to.name} decides your transfer credit: confirm with its transfer office.
          </p>
        </div>
      )}
    </section>
  );
}
