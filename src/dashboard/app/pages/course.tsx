// A course's page: its record, the rules it is a source course of, and (for a steward of its
// institution) an edit form that re-upserts it (POST /courses with the same institution and code).
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { useDashboard } from "../context.ts";
import { CopyId, courseLabel, forgetCourse, InstitutionName } from "../names.tsx";
import { stewards, useStewardship } from "../stewardship.tsx";
import { Badge, DataTable, Empty, ErrorMessage, Link, ok, PageTitle, Show, useAction, useLoad, When } from "../ui.tsx";
import { RuleSummary, statusTone } from "./equivalencies.tsx";

type Course = components["schemas"]["Course"];
type CourseUpsert = components["schemas"]["CourseUpsert"];
type CreditUnit = components["schemas"]["CreditUnit"];
const LEVELS: Course["level"][] = ["lower", "upper"];
/** The units of `credits` (CreditUnit), as a registrar names them. */
export const CREDIT_UNITS: Record<CreditUnit, string> = {
  semester: "semester units",
  quarter: "quarter units",
  clock_hour: "clock hours",
  ceu: "CEUs",
};
const RULES_LIMIT = 50;

/** The form's fields, as text, from a course. */
function draftOf(course: Course) {
  return {
    title: course.title,
    credits: String(course.credits),
    creditUnit: course.creditUnit ?? "semester",
    level: course.level,
    description: course.description ?? "",
    cipCode: course.cipCode ?? "",
    crossListedCodes: (course.crossListedCodes ?? []).join(", "),
  };
}

/** "DATA C8, INFO C8" or one a line: the codes as typed, blanks dropped. */
export function codesOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((code) => code.trim())
    .filter(Boolean);
}

function CourseForm({ course, onSaved }: { course: Course; onSaved: (message: string) => void }) {
  const { api } = useDashboard();
  const [draft, setDraft] = useState(() => draftOf(course));
  const action = useAction();
  const set = (field: keyof ReturnType<typeof draftOf>) => (event: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [field]: event.currentTarget.value });
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      // An upsert takes no If-Match: the course is read again first, so a change made since the
      // form opened is not overwritten unseen (a change in the moment between is still possible).
      const now = ok(await api.raw.GET("/courses/{id}", { params: { path: { id: course.id } } })).data;
      if (now.version !== course.version)
        throw new Error(
          `Someone changed this course since you opened it (now version ${now.version}): reload the page to see it, then edit again.`,
        );
      // An upsert replaces the record: every field is sent, the unchanged ones as they are.
      const body: CourseUpsert = {
        institutionId: course.institutionId,
        code: course.code,
        title: draft.title.trim(),
        credits: Number(draft.credits),
        // Sent always: an upsert without it would store `semester` and silently convert the course.
        creditUnit: draft.creditUnit,
        level: draft.level,
        description: draft.description.trim() || null,
        cipCode: draft.cipCode.trim() || null,
        crossListedCodes: codesOf(draft.crossListedCodes),
      };
      const result = ok(await api.raw.POST("/courses", { body }));
      onSaved(`Saved: ${course.code} is now at version ${result.data[0].version}.`);
    });
  };
  return (
    <form class="stack" onSubmit={save} aria-label="Edit the course">
      <p class="muted">
        The code and institution identify the course and are not edited here; saving replaces the other fields and sends{" "}
        <code>course.updated</code>.
      </p>
      <label for="c-title">Title</label>
      <input id="c-title" required maxLength={300} value={draft.title} onInput={set("title")} />
      <label for="c-credits">Credits</label>
      <input
        id="c-credits"
        type="number"
        required
        min={0}
        max={100}
        step="any"
        value={draft.credits}
        onInput={set("credits")}
      />
      <label for="c-unit">Credit unit</label>
      <select id="c-unit" value={draft.creditUnit} onChange={set("creditUnit")}>
        {(Object.keys(CREDIT_UNITS) as CreditUnit[]).map((unit) => (
          <option key={unit} value={unit}>
            {CREDIT_UNITS[unit]}
          </option>
        ))}
      </select>
      <label for="c-level">Level</label>
      <select id="c-level" value={draft.level} onChange={set("level")}>
        {LEVELS.map((level) => (
          <option key={level} value={level}>
            {level} division
          </option>
        ))}
      </select>
      <label for="c-cip">CIP 2020 code (optional)</label>
      <input
        id="c-cip"
        placeholder="27.0101"
        pattern="\d{2}\.\d{4}"
        title="Six digits like 27.0101"
        value={draft.cipCode}
        onInput={set("cipCode")}
      />
      <label for="c-cross-listed">
        Cross-listed codes (optional: the same course under other departments' codes, separated by commas)
      </label>
      <input
        id="c-cross-listed"
        placeholder="DATA C8, INFO C8, STAT C8"
        value={draft.crossListedCodes}
        onInput={set("crossListedCodes")}
      />
      <label for="c-description">Description (optional)</label>
      <textarea id="c-description" rows={4} maxLength={5000} value={draft.description} onInput={set("description")} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Save course
        </button>
      </div>
      {action.error && <ErrorMessage message={action.error} />}
    </form>
  );
}

/** The rules a course is a source course of, oldest first. */
function CourseRules({ courseId }: { courseId: string }) {
  const { api } = useDashboard();
  const [offset, setOffset] = useState(0);
  const rules = useLoad(
    async () =>
      ok(
        await api.raw.GET("/equivalencies", {
          params: { query: { sourceCourse: courseId, expand: "course", limit: RULES_LIMIT, offset } },
        }),
      ),
    [api, courseId, offset],
  );
  return (
    <Show value={rules}>
      {({ data, pagination }) =>
        data.length === 0 ? (
          <Empty>No rule names this course yet.</Empty>
        ) : (
          <DataTable
            caption="Rules this course is part of"
            columns={["Rule", "Receiving institution", "Status", "Updated"]}
            rows={data}
            row={(rule) => (
              <tr key={rule.id}>
                <td>
                  <Link to={`/equivalencies/${rule.id}`} title={rule.id}>
                    <RuleSummary rule={rule} />
                  </Link>
                </td>
                <td>{rule.targetInstitution?.name ?? <InstitutionName id={rule.targetInstitutionId} />}</td>
                <td>
                  <Badge tone={statusTone(rule.status)}>{rule.status}</Badge>
                </td>
                <td>
                  <When at={rule.updatedAt} />
                </td>
              </tr>
            )}
            page={{ total: pagination.total, limit: RULES_LIMIT, offset, onChange: setOffset }}
          />
        )
      }
    </Show>
  );
}

export function CourseDetail({ id }: { id: string }) {
  const { api, canWrite } = useDashboard();
  const [saved, setSaved] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const stewardship = useStewardship();
  const record = useLoad(async () => {
    const course = ok(await api.raw.GET("/courses/{id}", { params: { path: { id } } })).data;
    return course;
  }, [api, id, saved]);
  const mayEdit =
    canWrite &&
    stewardship.state === "ready" &&
    record.state === "ready" &&
    stewards(stewardship.data, record.data.institutionId);
  return (
    <>
      <p class="crumbs">
        <Link to="/courses">Courses</Link> /
      </p>
      <Show value={record}>
        {(course) => (
          <>
            <PageTitle>{courseLabel(course)}</PageTitle>
            <p>
              <InstitutionName id={course.institutionId} /> · <CopyId id={course.id} label="the course id" />
            </p>
            <dl class="facts">
              <dt>Credits</dt>
              <dd>
                {course.credits} {CREDIT_UNITS[course.creditUnit ?? "semester"]}
              </dd>
              <dt>Level</dt>
              <dd>{course.level} division</dd>
              <dt>Cross-listed as</dt>
              <dd>{(course.crossListedCodes ?? []).length > 0 ? (course.crossListedCodes ?? []).join(", ") : "–"}</dd>
              <dt>CIP code</dt>
              <dd>{course.cipCode ?? "–"}</dd>
              <dt>Description</dt>
              <dd>{course.description ?? "–"}</dd>
              <dt>Version</dt>
              <dd>
                {course.version} · updated <When at={course.updatedAt} />
              </dd>
            </dl>
            {saved && (
              <p class="notice" role="status">
                {saved}
              </p>
            )}
            {mayEdit &&
              (editing ? (
                <CourseForm
                  key={course.version}
                  course={course}
                  onSaved={(message) => {
                    // The lookups of other pages must read the new version too.
                    forgetCourse(api, id);
                    setEditing(false);
                    setSaved(message);
                  }}
                />
              ) : (
                <button type="button" onClick={() => setEditing(true)}>
                  Edit course
                </button>
              ))}
            {canWrite && stewardship.state === "ready" && !mayEdit && (
              <p class="muted">Your organization does not steward this course's institution, so it cannot edit it.</p>
            )}
          </>
        )}
      </Show>
      <h2>Rules this course is part of</h2>
      <CourseRules courseId={id} />
    </>
  );
}
