// The fields of an articulation rule as a form edits them (kind, general education area, targets
// with credits, minimum grade, effective dates, priority, status, deciding body, policy basis),
// shared by New rule and Edit rule (rule-form.tsx), and the request bodies made from them.
import type { ComponentChildren } from "preact";
import type { components } from "../../../../generated/api-types.ts";
import { problemText } from "../api.ts";
import { CoursePicker } from "../names.tsx";
import { NamedText } from "../named-text.tsx";
import { RuleName } from "../rule-words.tsx";
import { Link } from "../ui.tsx";

export type Rule = components["schemas"]["Equivalency"];
type Status = components["schemas"]["EquivalencyStatus"];
type Kind = components["schemas"]["RuleKind"];
type Grade = components["schemas"]["LetterGrade"];
type Create = components["schemas"]["EquivalencyCreate"];
type Update = components["schemas"]["EquivalencyUpdate"];
type Choice = components["schemas"]["TargetChoice"];
export const MAX_ITEMS = 10;
const KINDS: Kind[] = ["equivalent", "elective", "general_education", "no_credit"];
const GRADES: Grade[] = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "P"];

interface TargetDraft {
  courseId: string;
  code: string;
  credits: string;
}
const emptyTarget = (): TargetDraft => ({ courseId: "", code: "", credits: "" });

export interface RuleDraft {
  sourceCourseIds: string[];
  /** Further sets of source courses, any one of which satisfies the rule as well as the first. */
  alternatives: string[][];
  targetChoice: Choice;
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

/** A new rule's draft: pending, equivalent, one empty target. */
export function newDraft(sourceCourseIds: string[], targetInstitutionId: string): RuleDraft {
  return {
    sourceCourseIds,
    alternatives: [],
    targetChoice: "all",
    targetInstitutionId,
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
}

/** The rule's source courses (a 1.0 answer names only the first). */
export function sourcesOf(rule: Rule): string[] {
  return rule.sourceCourseIds ?? [rule.sourceCourseId];
}

/** A stored rule's draft: every field as stored. */
export function draftOf(rule: Rule): RuleDraft {
  return {
    sourceCourseIds: sourcesOf(rule),
    alternatives: (rule.sourceCourseSets ?? []).slice(1),
    targetChoice: rule.targetChoice ?? "all",
    targetInstitutionId: rule.targetInstitutionId,
    status: rule.status,
    kind: rule.kind ?? "equivalent",
    area: rule.generalEducationArea ?? "",
    targets: (rule.targets ?? []).map((target) => ({
      courseId: target.courseId ?? "",
      code: target.courseId ? "" : (target.code ?? ""),
      credits: target.credits === null ? "" : String(target.credits),
    })),
    minimumGrade: rule.minimumGrade ?? "",
    effectiveFrom: rule.effectiveFrom ?? "",
    effectiveUntil: rule.effectiveUntil ?? "",
    priority: String(rule.priority),
    decidedBy: rule.decidedBy ?? "",
    policyBasis: rule.policyBasis ?? "",
  };
}

function targetsOf(form: RuleDraft) {
  if (form.kind === "no_credit") return [];
  return form.targets
    .filter((target) => target.courseId || target.code.trim())
    .map((target) => ({
      ...(target.courseId ? { courseId: target.courseId } : { code: target.code.trim() }),
      ...(target.credits.trim() ? { credits: Number(target.credits) } : {}),
    }));
}

/** The alternative sets that name at least one course, emptied pickers left out. */
function alternativesOf(form: RuleDraft): string[][] {
  return form.alternatives.map((set) => set.filter(Boolean)).filter((set) => set.length > 0);
}

/** Choosing among targets needs two of them; with fewer the API's default (all) applies. */
function choiceOf(form: RuleDraft): Choice {
  return form.kind !== "no_credit" && targetsOf(form).length > 1 ? form.targetChoice : "all";
}

/** The body of a new rule from the form's drafts (empty fields omitted, the API's defaults apply). */
export function createBody(form: RuleDraft): Create {
  const text = (value: string) => value.trim() || undefined;
  const first = form.sourceCourseIds.filter(Boolean);
  const alternatives = alternativesOf(form);
  return {
    ...(alternatives.length > 0 ? { sourceCourseSets: [first, ...alternatives] } : { sourceCourseIds: first }),
    ...(choiceOf(form) === "one_of" ? { targetChoice: "one_of" as const } : {}),
    targetInstitutionId: form.targetInstitutionId,
    status: form.status,
    kind: form.kind,
    targets: targetsOf(form),
    ...(form.kind === "general_education" && text(form.area) ? { generalEducationArea: form.area.trim() } : {}),
    ...(form.minimumGrade ? { minimumGrade: form.minimumGrade } : {}),
    ...(form.effectiveFrom ? { effectiveFrom: form.effectiveFrom } : {}),
    ...(form.effectiveUntil ? { effectiveUntil: form.effectiveUntil } : {}),
    ...(form.priority.trim() ? { priority: Number(form.priority) } : {}),
    ...(text(form.decidedBy) ? { decidedBy: form.decidedBy.trim() } : {}),
    ...(text(form.policyBasis) ? { policyBasis: form.policyBasis.trim() } : {}),
  };
}

/** Every changeable field of a stored rule from the form (an emptied field is cleared), with the change note. */
export function updateBody(form: RuleDraft, note: string): Update {
  return {
    status: form.status,
    sourceCourseSets: [form.sourceCourseIds, ...alternativesOf(form)],
    targetChoice: choiceOf(form),
    kind: form.kind,
    targets: targetsOf(form),
    generalEducationArea: form.kind === "general_education" ? form.area.trim() || null : null,
    minimumGrade: form.minimumGrade || null,
    effectiveFrom: form.effectiveFrom || null,
    effectiveUntil: form.effectiveUntil || null,
    priority: Number(form.priority.trim() || "0"),
    decidedBy: form.decidedBy.trim() || null,
    policyBasis: form.policyBasis.trim() || null,
    ...(note.trim() ? { note: note.trim() } : {}),
  };
}

export interface FailureText {
  message: string;
  existingId?: string;
  conflictingIds?: string[];
}

/** A problem's text; a duplicate (409 with `existingId`) links to the rule that exists, an
 * ambiguous-rule or duplicate-rule refusal to the rules named by `conflictingEquivalencyIds`. */
export function failureOf(error: unknown): FailureText {
  const problem = error as { existingId?: string; conflictingEquivalencyIds?: string[] } | null;
  const existingId = problem?.existingId;
  const conflictingIds = problem?.conflictingEquivalencyIds ?? [];
  return {
    message: problemText(error),
    ...(existingId ? { existingId } : {}),
    ...(conflictingIds.length > 0 ? { conflictingIds } : {}),
  };
}

export function Failure({ failure }: { failure: FailureText | null }) {
  if (!failure) return null;
  return (
    <div class="error" role="alert">
      <p>
        <NamedText text={failure.message} />
      </p>
      {failure.existingId && (
        <p>
          <Link to={`/equivalencies/${failure.existingId}`}>Open the rule that exists</Link>
        </p>
      )}
      {failure.conflictingIds && (
        <ul>
          {failure.conflictingIds.map((id) => (
            <li key={id}>
              <Link to={`/equivalencies/${id}`}>
                Open the conflicting rule <RuleName id={id} />
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Repeated<T>({
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

/** The rule's fields after its source courses and target institution. */
export function RuleFields({
  form,
  set,
}: {
  form: RuleDraft;
  set: <K extends keyof RuleDraft>(field: K, value: RuleDraft[K]) => void;
}) {
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
  return (
    <>
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
      {form.kind !== "no_credit" && form.targets.length > 1 && (
        <>
          <label for="r-choice">The student receives</label>
          <select
            id="r-choice"
            value={form.targetChoice}
            onChange={(e) => set("targetChoice", e.currentTarget.value as Choice)}
          >
            <option value="all">every target</option>
            <option value="one_of">one of the targets, chosen by their program</option>
          </select>
        </>
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
    </>
  );
}

/**
 * The alternative source course sets after the first: "MATH 7 or MATH 7H", "(BIOL 400 + BIOL 410)
 * or (BIOL 400 + BIOL 415)". Each set is all required; any one complete set satisfies the rule.
 */
export function AlternativeSets({
  sets,
  onChange,
  institutionId,
}: {
  sets: string[][];
  onChange: (next: string[][]) => void;
  institutionId?: string;
}) {
  return (
    <>
      <p class="muted">
        Or instead: another set of courses that satisfies the rule as well (for an honours twin, or another lab). A
        student who completed any one set receives the rule's targets once.
      </p>
      <Repeated
        items={sets}
        onChange={onChange}
        blank={() => [""]}
        min={0}
        addLabel="Add an alternative set"
        removeLabel={(index) => `Remove alternative ${index + 1}`}
        render={(set, setIndex, updateSet) => (
          <Repeated
            items={set}
            onChange={updateSet}
            blank={() => ""}
            min={1}
            addLabel={`Add a course to alternative ${setIndex + 1}`}
            removeLabel={(index) => `Remove course ${index + 1} of alternative ${setIndex + 1}`}
            render={(id, index, update) => (
              <CoursePicker
                id={`r-alt-${setIndex}-${index}`}
                label={
                  index === 0
                    ? `Or alternative ${setIndex + 1}: course`
                    : `Alternative ${setIndex + 1}: course ${index + 1} (also required)`
                }
                institutionId={institutionId}
                value={id}
                onChange={update}
              />
            )}
          />
        )}
      />
    </>
  );
}
