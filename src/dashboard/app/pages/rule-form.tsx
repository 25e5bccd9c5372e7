// Writing a rule: a new one (POST /equivalencies) with its source courses (1 to 10, all required)
// found by code or title, and alternative sets of courses that satisfy it as well, the target institution by name, and the rule's fields (rule-fields.tsx);
// or every changeable field of an existing one (PATCH with If-Match and a change note). The
// source courses and the target institution are a rule's identity: a rule of other courses is a
// new rule.
import { useState } from "preact/hooks";
import { useDashboard } from "../context.ts";
import { CourseName, CoursePicker, InstitutionName, InstitutionPicker } from "../names.tsx";
import { navigate } from "../router.ts";
import { Link, PageTitle } from "../ui.tsx";
import {
  AlternativeSets,
  createBody,
  draftOf,
  Failure,
  failureOf,
  type FailureText,
  MAX_ITEMS,
  newDraft,
  Repeated,
  type Rule,
  type RuleDraft,
  RuleFields,
  sourcesOf,
  updateBody,
} from "./rule-fields.tsx";

export function NewRule() {
  const { api } = useDashboard();
  // The Requested rules page opens this form with `?sourceCourseIds=a,b&targetInstitutionId=…`.
  const [form, setForm] = useState<RuleDraft>(() => {
    const query = new URLSearchParams(location.search);
    const sources = (query.get("sourceCourseIds") ?? "").split(",").filter(Boolean).slice(0, MAX_ITEMS);
    return newDraft(sources.length > 0 ? sources : [""], query.get("targetInstitutionId") ?? "");
  });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<FailureText | null>(null);
  const set = <K extends keyof RuleDraft>(field: K, value: RuleDraft[K]) =>
    setForm((current) => ({ ...current, [field]: value }));
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
        <AlternativeSets sets={form.alternatives} onChange={(next) => set("alternatives", next)} />
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
        <RuleFields form={form} set={set} />
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

/** Every changeable field of an existing rule, sent with If-Match and a change note. */
export function EditRule({ rule, etag, onSaved }: { rule: Rule; etag: string; onSaved: (message: string) => void }) {
  const { api } = useDashboard();
  const [form, setForm] = useState(() => draftOf(rule));
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<FailureText | null>(null);
  const set = <K extends keyof RuleDraft>(field: K, value: RuleDraft[K]) =>
    setForm((current) => ({ ...current, [field]: value }));
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const result = await api.raw.PATCH("/equivalencies/{id}", {
        params: { path: { id: rule.id }, header: { "If-Match": etag } },
        body: updateBody(form, note),
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
  const newWithSources = `/equivalencies/new?sourceCourseIds=${sourcesOf(rule).join(",")}&targetInstitutionId=${rule.targetInstitutionId}`;
  return (
    <form class="stack" onSubmit={save} aria-label="Edit the rule">
      <p>
        {form.alternatives.length > 0 ? "First set of source courses" : "Source courses"} (all required):{" "}
        {sourcesOf(rule).map((id, index) => (
          <span key={id}>
            {index > 0 ? " + " : ""}
            <CourseName id={id} />
          </span>
        ))}
        ; target institution: <InstitutionName id={rule.targetInstitutionId} />. These identify the rule: for other
        courses, <Link to={newWithSources}>write a new rule</Link>.
      </p>
      <AlternativeSets sets={form.alternatives} onChange={(next) => set("alternatives", next)} />
      <RuleFields form={form} set={set} />
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
