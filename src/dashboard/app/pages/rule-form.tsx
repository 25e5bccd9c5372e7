// Writing a rule: a new one (POST /equivalencies) with its source courses (1 to 10, all required)
// found by code or title, the target institution by name, its kind, targets (course or code, with
// credits), minimum grade, effective dates and priority; or the changeable fields of an existing one (PATCH with
// If-Match): its target course (found at the target institution) or code, the deciding body and
// the policy basis, with a change note.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { problemText } from "../api.ts";
import { useDashboard } from "../context.ts";
import { CoursePicker, InstitutionPicker } from "../names.tsx";
import { navigate } from "../router.ts";
import { Link, PageTitle } from "../ui.tsx";

type Rule = components["schemas"]["Equivalency"];
type Status = components["schemas"]["EquivalencyStatus"];
type Kind = components["schemas"]["RuleKind"];
type Grade = components["schemas"]["LetterGrade"];
type Create = components["schemas"]["EquivalencyCreate"];
const MAX_ITEMS = 10;
const KINDS: Kind[] = ["equivalent", "elective", "general_education", "no_credit"];
const GRADES: Grade[] = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "P"];

interface TargetDraft {
  courseId: string;
  code: string;
  credits: string;
}
const emptyTarget = (): TargetDraft => ({ courseId: "", code: "", credits: "" });

interface Outcome {
  targetCourseId: string;
  targetCode: string;
  decidedBy: string;
  policyBasis: string;
}

function outcomeOf(rule?: Rule): Outcome {
  return {
    targetCourseId: rule?.targetCourseId ?? "",
    targetCode: rule?.targetCourseId ? "" : (rule?.targetCode ?? ""),
    decidedBy: rule?.decidedBy ?? "",
    policyBasis: rule?.policyBasis ?? "",
  };
}

/** The fields a new and an existing rule share: what it gives at the target institution, who decided, on what basis. */
function OutcomeFields({
  targetInstitutionId,
  value,
  onChange,
}: {
  targetInstitutionId: string;
  value: Outcome;
  onChange: (next: (current: Outcome) => Outcome) => void;
}) {
  return (
    <>
      <CoursePicker
        id="r-target-course"
        label="Target course (at the target institution)"
        institutionId={targetInstitutionId || undefined}
        value={value.targetCourseId}
        onChange={(id) => onChange((current) => ({ ...current, targetCourseId: id }))}
      />
      <label for="r-target-code">Or a target code (when the course has no record)</label>
      <input
        id="r-target-code"
        maxLength={50}
        placeholder="MATH 1XX"
        disabled={Boolean(value.targetCourseId)}
        value={value.targetCode}
        onInput={(e) => onChange((current) => ({ ...current, targetCode: e.currentTarget.value }))}
      />
      <label for="r-decided-by">Decided by (optional)</label>
      <input
        id="r-decided-by"
        maxLength={200}
        value={value.decidedBy}
        onInput={(e) => onChange((current) => ({ ...current, decidedBy: e.currentTarget.value }))}
      />
      <label for="r-policy">Policy basis (optional)</label>
      <input
        id="r-policy"
        maxLength={500}
        value={value.policyBasis}
        onInput={(e) => onChange((current) => ({ ...current, policyBasis: e.currentTarget.value }))}
      />
    </>
  );
}

interface FailureText {
  message: string;
  existingId?: string;
  conflictingIds?: string[];
}

/** A problem's text; a duplicate (409 with `existingId`) links to the rule that exists, an
 * ambiguous-rule or duplicate-rule refusal to the rules named by `conflictingEquivalencyIds`. */
function failureOf(error: unknown): FailureText {
  const problem = error as { existingId?: string; conflictingEquivalencyIds?: string[] } | null;
  const existingId = problem?.existingId;
  const conflictingIds = problem?.conflictingEquivalencyIds ?? [];
  return {
    message: problemText(error),
    ...(existingId ? { existingId } : {}),
    ...(conflictingIds.length > 0 ? { conflictingIds } : {}),
  };
}

function Failure({ failure }: { failure: FailureText | null }) {
  if (!failure) return null;
  return (
    <div class="error" role="alert">
      <p>{failure.message}</p>
      {failure.existingId && (
        <p>
          <Link to={`/equivalencies/${failure.existingId}`}>Open the rule that exists</Link>
        </p>
      )}
      {failure.conflictingIds && (
        <ul>
          {failure.conflictingIds.map((id) => (
            <li key={id}>
              <Link to={`/equivalencies/${id}`} title={id}>
                Open the conflicting rule {id}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A list of up to ten items, each removable, with a button that adds one. */
function Repeated<T>({
  items,
  onChange,
  blank,
  min,
  addLabel,
  removeLabel,
  render,
}: {
  items: T[];
  onChange: (next: T[]) => void;
  blank: () => T;
  min: number;
  addLabel: string;
  removeLabel: (index: number) => string;
  render: (item: T, index: number, update: (next: T) => void) => ComponentChildren;
}) {
  return (
    <>
      {items.map((item, index) => (
        <fieldset key={index} class="stack">
          {render(item, index, (next) => onChange(items.map((current, i) => (i === index ? next : current))))}
          <div class="actions">
            <button
              type="button"
              class="secondary"
              onClick={() => onChange(items.filter((_, i) => i !== index))}
              disabled={items.length <= min}
            >
              {removeLabel(index)}
            </button>
          </div>
        </fieldset>
      ))}
      {items.length < MAX_ITEMS && (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => onChange([...items, blank()])}>
            {addLabel}
          </button>
        </div>
      )}
    </>
  );
}

/** The body of a new rule from the form's drafts (empty fields omitted, the API's defaults apply). */
function createBody(form: NewRuleDraft): Create {
  const targets =
    form.kind === "no_credit"
      ? []
      : form.targets
          .filter((target) => target.courseId || target.code.trim())
          .map((target) => ({
            ...(target.courseId ? { courseId: target.courseId } : { code: target.code.trim() }),
            ...(target.credits.trim() ? { credits: Number(target.credits) } : {}),
          }));
  const text = (value: string) => value.trim() || undefined;
  return {
    sourceCourseIds: form.sourceCourseIds.filter(Boolean),
    targetInstitutionId: form.targetInstitutionId,
    status: form.status,
    kind: form.kind,
    targets,
    ...(form.kind === "general_education" && text(form.area) ? { generalEducationArea: form.area.trim() } : {}),
    ...(form.minimumGrade ? { minimumGrade: form.minimumGrade } : {}),
    ...(form.effectiveFrom ? { effectiveFrom: form.effectiveFrom } : {}),
    ...(form.effectiveUntil ? { effectiveUntil: form.effectiveUntil } : {}),
    ...(form.priority.trim() ? { priority: Number(form.priority) } : {}),
    ...(text(form.decidedBy) ? { decidedBy: form.decidedBy.trim() } : {}),
    ...(text(form.policyBasis) ? { policyBasis: form.policyBasis.trim() } : {}),
  };
}

interface NewRuleDraft {
  sourceCourseIds: string[];
  targetInstitutionId: string;
  status: Status;
  kind: Kind;
  area: string;
  targets: TargetDraft[];
  minimumGrade: Grade | "";
  effectiveFrom: string;
  effectiveUntil: string;
  priority: string;
  decidedBy: string;
  policyBasis: string;
}

export function NewRule() {
  const { api } = useDashboard();
  // The Requested rules page opens this form with `?sourceCourseIds=a,b&targetInstitutionId=…`.
  const [form, setForm] = useState<NewRuleDraft>(() => {
    const query = new URLSearchParams(location.search);
    const sources = (query.get("sourceCourseIds") ?? "").split(",").filter(Boolean).slice(0, MAX_ITEMS);
    return {
      sourceCourseIds: sources.length > 0 ? sources : [""],
      targetInstitutionId: query.get("targetInstitutionId") ?? "",
      status: "pending",
      kind: "equivalent",
      area: "",
      targets: [emptyTarget()],
      minimumGrade: "",
      effectiveFrom: "",
      effectiveUntil: "",
      priority: "0",
      decidedBy: "",
      policyBasis: "",
    };
  });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<FailureText | null>(null);
  const set = <K extends keyof NewRuleDraft>(field: K, value: NewRuleDraft[K]) =>
    setForm((current) => ({ ...current, [field]: value }));
  /** An input bound to one text field of the draft: a date, or free text of at most `maxLength`. */
  const text = (
    field: "effectiveFrom" | "effectiveUntil" | "decidedBy" | "policyBasis",
    label: string,
    maxLength?: number,
  ) => {
    const bound = {
      id: `r-${field}`,
      value: form[field],
      onInput: (e: { currentTarget: HTMLInputElement }) => set(field, e.currentTarget.value),
    };
    return (
      <>
        <label for={bound.id}>{label}</label>
        {maxLength === undefined ? <input type="date" {...bound} /> : <input maxLength={maxLength} {...bound} />}
      </>
    );
  };
  const create = async (event: Event) => {
    event.preventDefault();
    if (!form.sourceCourseIds.some(Boolean) || !form.targetInstitutionId) {
      setFailure({ message: "Choose a source course and a target institution from the matches." });
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const result = await api.raw.POST("/equivalencies", { body: createBody(form) });
      if (result.error || !result.data) {
        setFailure(failureOf(result.error));
        return;
      }
      navigate(`/equivalencies/${result.data.data.id}`);
    } catch (caught) {
      setFailure(failureOf(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p class="crumbs">
        <Link to="/equivalencies">Equivalencies</Link> /
      </p>
      <PageTitle>New rule</PageTitle>
      <p>
        A rule of the target institution: a student who completed every source course (with the minimum grade, while the
        rule is in force) receives its targets there. Only a steward of the target institution may write it.
      </p>
      <form class="stack" onSubmit={create} aria-label="New rule">
        <Repeated
          items={form.sourceCourseIds}
          onChange={(next) => set("sourceCourseIds", next)}
          blank={() => ""}
          min={1}
          addLabel="Add a source course"
          removeLabel={(index) => `Remove source course ${index + 1}`}
          render={(id, index, update) => (
            <CoursePicker
              id={`r-source-${index}`}
              label={index === 0 ? "Source course" : `Source course ${index + 1} (also required)`}
              value={id}
              onChange={update}
            />
          )}
        />
        <InstitutionPicker
          id="r-target-institution"
          label="Target institution"
          value={form.targetInstitutionId}
          onChange={(id) => {
            // A refusal was about the institution chosen before; its courses are not the new one's.
            setFailure(null);
            setForm((current) => ({
              ...current,
              targetInstitutionId: id,
              targets: current.targets.map((target) => ({ ...target, courseId: "" })),
            }));
          }}
        />
        <label for="r-kind">Kind</label>
        <select id="r-kind" value={form.kind} onChange={(e) => set("kind", e.currentTarget.value as Kind)}>
          {KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kind.replace("_", " ")}
            </option>
          ))}
        </select>
        {form.kind === "general_education" && (
          <>
            <label for="r-area">General education area</label>
            <input
              id="r-area"
              required
              maxLength={50}
              placeholder="IGETC 5A"
              value={form.area}
              onInput={(e) => set("area", e.currentTarget.value)}
            />
          </>
        )}
        {form.kind === "no_credit" ? (
          <p class="muted">A no-credit rule gives nothing at the target institution: it has no targets.</p>
        ) : (
          <Repeated
            items={form.targets}
            onChange={(next) => set("targets", next)}
            blank={emptyTarget}
            min={0}
            addLabel="Add a target"
            removeLabel={(index) => `Remove target ${index + 1}`}
            render={(target, index, update) => (
              <>
                <CoursePicker
                  id={`r-target-${index}-course`}
                  label={`Target ${index + 1}: course at the target institution`}
                  institutionId={form.targetInstitutionId || undefined}
                  value={target.courseId}
                  onChange={(courseId) => update({ ...target, courseId })}
                />
                <label
                  for={`r-target-${index}-code`}
                >{`Target ${index + 1}: or a code (when the course has no record)`}</label>
                <input
                  id={`r-target-${index}-code`}
                  maxLength={50}
                  placeholder="MATH 1XX"
                  disabled={Boolean(target.courseId)}
                  value={target.code}
                  onInput={(e) => update({ ...target, code: e.currentTarget.value })}
                />
                <label for={`r-target-${index}-credits`}>{`Target ${index + 1}: credits (optional)`}</label>
                <input
                  id={`r-target-${index}-credits`}
                  type="number"
                  min={0}
                  max={100}
                  step="any"
                  value={target.credits}
                  onInput={(e) => update({ ...target, credits: e.currentTarget.value })}
                />
              </>
            )}
          />
        )}
        <label for="r-grade">Minimum grade</label>
        <select
          id="r-grade"
          value={form.minimumGrade}
          onChange={(e) => set("minimumGrade", e.currentTarget.value as Grade | "")}
        >
          <option value="">any passing grade</option>
          {GRADES.map((grade) => (
            <option key={grade} value={grade}>
              {grade === "P" ? "P (pass)" : `${grade} or better`}
            </option>
          ))}
        </select>
        {text("effectiveFrom", "Effective from (optional)")}
        {text("effectiveUntil", "Effective until (optional)")}
        <label for="r-priority">Priority (orders rules that deliberately overlap)</label>
        <input
          id="r-priority"
          type="number"
          min={-1000}
          max={1000}
          step={1}
          value={form.priority}
          onInput={(e) => set("priority", e.currentTarget.value)}
        />
        <label for="r-status">Status</label>
        <select id="r-status" value={form.status} onChange={(e) => set("status", e.currentTarget.value as Status)}>
          <option value="pending">pending</option>
          <option value="accepted">accepted</option>
          <option value="conflict">conflict</option>
        </select>
        {text("decidedBy", "Decided by (optional)", 200)}
        {text("policyBasis", "Policy basis (optional)", 500)}
        <div class="actions">
          <button type="submit" disabled={busy}>
            Create rule
          </button>
        </div>
        <Failure failure={failure} />
      </form>
    </>
  );
}

/** The changeable fields of an existing rule, sent with If-Match and a change note. */
export function EditRule({ rule, etag, onSaved }: { rule: Rule; etag: string; onSaved: (message: string) => void }) {
  const { api } = useDashboard();
  const [outcome, setOutcome] = useState(() => outcomeOf(rule));
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<FailureText | null>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const targetCode = outcome.targetCourseId ? undefined : outcome.targetCode.trim() || null;
      const result = await api.raw.PATCH("/equivalencies/{id}", {
        params: { path: { id: rule.id }, header: { "If-Match": etag } },
        body: {
          targetCourseId: outcome.targetCourseId || null,
          ...(targetCode !== undefined ? { targetCode } : {}),
          decidedBy: outcome.decidedBy.trim() || null,
          policyBasis: outcome.policyBasis.trim() || null,
          ...(note.trim() ? { note: note.trim() } : {}),
        },
      });
      if (result.response.status === 412) {
        setFailure({
          message: "Someone changed this rule after you opened it, so it was not saved. Reload, then edit again.",
        });
        return;
      }
      if (result.error || !result.data) {
        setFailure(failureOf(result.error));
        return;
      }
      onSaved(`Rule saved (version ${result.data.data.version}).`);
    } catch (caught) {
      setFailure(failureOf(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack" onSubmit={save} aria-label="Edit the rule">
      <OutcomeFields targetInstitutionId={rule.targetInstitutionId} value={outcome} onChange={setOutcome} />
      <label for="r-note">Change note</label>
      <input id="r-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Save rule
        </button>
      </div>
      <Failure failure={failure} />
    </form>
  );
}
