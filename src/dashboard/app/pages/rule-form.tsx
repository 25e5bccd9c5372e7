// Writing a rule: a new one (POST /equivalencies) with the source course found by code or title
// and the target institution by name, or the changeable fields of an existing one (PATCH with
// If-Match): its target course (found at the target institution) or code, the deciding body and
// the policy basis, with a change note.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { problemText } from "../api.ts";
import { useDashboard } from "../context.ts";
import { CoursePicker, InstitutionPicker } from "../names.tsx";
import { navigate } from "../router.ts";
import { Link, PageTitle } from "../ui.tsx";

type Rule = components["schemas"]["Equivalency"];
type Status = components["schemas"]["EquivalencyStatus"];

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

/** A problem's text; a duplicate (409 with `existingId`) links to the rule that exists. */
function failureOf(error: unknown): { message: string; existingId?: string } {
  const existingId = (error as { existingId?: string } | null)?.existingId;
  return { message: problemText(error), ...(existingId ? { existingId } : {}) };
}

function Failure({ failure }: { failure: { message: string; existingId?: string } | null }) {
  if (!failure) return null;
  return (
    <div class="error" role="alert">
      <p>{failure.message}</p>
      {failure.existingId && (
        <p>
          <Link to={`/equivalencies/${failure.existingId}`}>Open the rule that exists</Link>
        </p>
      )}
    </div>
  );
}

export function NewRule() {
  const { api } = useDashboard();
  const [sourceCourseId, setSourceCourseId] = useState("");
  const [targetInstitutionId, setTargetInstitutionId] = useState("");
  const [status, setStatus] = useState<Status>("pending");
  const [outcome, setOutcome] = useState(outcomeOf());
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ message: string; existingId?: string } | null>(null);
  const create = async (event: Event) => {
    event.preventDefault();
    if (!sourceCourseId || !targetInstitutionId) {
      setFailure({ message: "Choose a source course and a target institution from the matches." });
      return;
    }
    setBusy(true);
    setFailure(null);
    try {
      const result = await api.raw.POST("/equivalencies", {
        body: {
          sourceCourseId,
          targetInstitutionId,
          status,
          ...(outcome.targetCourseId ? { targetCourseId: outcome.targetCourseId } : {}),
          ...(outcome.targetCode.trim() && !outcome.targetCourseId ? { targetCode: outcome.targetCode.trim() } : {}),
          ...(outcome.decidedBy.trim() ? { decidedBy: outcome.decidedBy.trim() } : {}),
          ...(outcome.policyBasis.trim() ? { policyBasis: outcome.policyBasis.trim() } : {}),
        },
      });
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
        A rule of the target institution: the source course transfers there as the target course (or code). Only a
        steward of the target institution may write it.
      </p>
      <form class="stack" onSubmit={create} aria-label="New rule">
        <CoursePicker id="r-source" label="Source course" value={sourceCourseId} onChange={setSourceCourseId} />
        <InstitutionPicker
          id="r-target-institution"
          label="Target institution"
          value={targetInstitutionId}
          onChange={(id) => {
            // A refusal was about the institution chosen before.
            setFailure(null);
            setTargetInstitutionId(id);
            setOutcome((current) => ({ ...current, targetCourseId: "" }));
          }}
        />
        <OutcomeFields targetInstitutionId={targetInstitutionId} value={outcome} onChange={setOutcome} />
        <label for="r-status">Status</label>
        <select id="r-status" value={status} onChange={(e) => setStatus(e.currentTarget.value as Status)}>
          <option value="pending">pending</option>
          <option value="accepted">accepted</option>
          <option value="conflict">conflict</option>
        </select>
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
  const [failure, setFailure] = useState<{ message: string; existingId?: string } | null>(null);
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
