// The review queue's contradictions: rules of one target institution that share a source course
// set, overlap in time and have the same priority (GET /equivalencies/overlaps), shown side by side
// so a steward compares their outcomes and resolves the group in one click: the chosen rule is
// accepted and every other accepted rule of the group is parked in `conflict` first (the ambiguity
// check refuses to accept a rule beside an accepted contradiction). Each change sends If-Match.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { type Api, problemText } from "../api.ts";
import { useDashboard } from "../context.ts";
import { InstitutionName } from "../names.tsx";
import { codeLookup, outcomeText, useMissingCodes } from "../rule-words.tsx";
import type { Stewardship } from "../stewardship.tsx";
import { Badge, ErrorMessage, Link, ok } from "../ui.tsx";
import { RuleSummary, statusTone } from "./equivalencies.tsx";

type Rule = components["schemas"]["Equivalency"];
export type OverlapGroup = components["schemas"]["EquivalencyOverlapGroup"];

/** The overlap groups of the stewarded institutions that still hold a rule waiting in `conflict`. */
export async function loadGroups(api: Api, stewardship: Stewardship): Promise<OverlapGroup[]> {
  const institutions: (string | undefined)[] = stewardship.allInstitutions ? [undefined] : stewardship.institutionIds;
  const pages = await Promise.all(
    institutions.map(async (targetInstitution) =>
      ok(
        await api.raw.GET("/equivalencies/overlaps", {
          params: { query: { limit: 100, ...(targetInstitution ? { targetInstitution } : {}) } },
        }),
      ),
    ),
  );
  return pages
    .flatMap((page) => page.data)
    .filter((group) => group.equivalencies.some((rule) => rule.status === "conflict"));
}

/** Parks every other accepted rule of the group, then accepts the chosen one; each change with If-Match. */
async function acceptOne(api: Api, chosen: Rule, group: OverlapGroup, note: string): Promise<void> {
  const change = async (rule: Rule, status: "accepted" | "conflict", why: string) => {
    const current = await api.raw.GET("/equivalencies/{id}", { params: { path: { id: rule.id } } });
    const record = ok(current).data;
    if (record.version !== rule.version)
      throw new Error("A rule of this group changed since the queue was read: reload it and decide again.");
    const result = await api.raw.PATCH("/equivalencies/{id}", {
      params: { path: { id: rule.id }, header: { "If-Match": current.response.headers.get("ETag") ?? "" } },
      body: { status, note: note.trim() || why },
    });
    if (result.error) throw new Error(problemText(result.error));
  };
  for (const other of group.equivalencies) {
    if (other.id !== chosen.id && other.status === "accepted")
      await change(other, "conflict", "Parked: another rule of the same courses was accepted.");
  }
  if (chosen.status !== "accepted") await change(chosen, "accepted", "Accepted over the rules it contradicted.");
}

function conditions(rule: Rule): string {
  const grade = rule.minimumGrade ? `${rule.minimumGrade} or better` : "any passing grade";
  const from = rule.effectiveFrom ? `from ${rule.effectiveFrom}` : "";
  const until = rule.effectiveUntil ? `until ${rule.effectiveUntil}` : "";
  const dates = [from, until].filter(Boolean).join(" ") || "always in force";
  return `${grade}; ${dates}`;
}

function RuleCard({
  rule,
  group,
  onDecided,
}: {
  rule: Rule;
  group: OverlapGroup;
  onDecided: (message: string) => void;
}) {
  const { api } = useDashboard();
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const others = group.equivalencies.length - 1;
  const resolve = async () => {
    setBusy(true);
    setError(null);
    try {
      await acceptOne(api, rule, group, note);
      onDecided(`Accepted one rule; ${others === 1 ? "the other waits" : `the ${others} others wait`} in conflict.`);
    } catch (caught) {
      setError(problemText(caught));
    } finally {
      setBusy(false);
    }
  };
  const outcome = outcomeText(rule, codeLookup(rule, useMissingCodes(rule)));
  return (
    <article class="card" aria-label={`Rule giving ${outcome}`}>
      <h4>
        <Link to={`/equivalencies/${rule.id}`} title={rule.id}>
          <RuleSummary rule={rule} />
        </Link>
      </h4>
      <p>
        <Badge tone={statusTone(rule.status)}>{rule.status}</Badge>{" "}
        <span>{(rule.kind ?? "equivalent").replace("_", " ")}</span>
      </p>
      <dl class="facts compact">
        <dt>Gives</dt>
        <dd>{outcome}</dd>
        <dt>Credits</dt>
        <dd>
          {rule.awardedCredits === null || rule.awardedCredits === undefined
            ? "–"
            : `${rule.awardedCredits} ${rule.awardedCreditUnit ?? ""}`}
        </dd>
        <dt>Conditions</dt>
        <dd>{conditions(rule)}</dd>
        <dt>Decided by</dt>
        <dd>{rule.decidedBy ?? "–"}</dd>
      </dl>
      <label class="sr-only" for={`group-note-${rule.id}`}>
        Change note for accepting this rule
      </label>
      <input
        id={`group-note-${rule.id}`}
        placeholder="Change note"
        value={note}
        onInput={(e) => setNote(e.currentTarget.value)}
      />
      <button type="button" disabled={busy} onClick={() => void resolve()}>
        Accept this one, park the others
      </button>
      {error && <ErrorMessage message={error} />}
    </article>
  );
}

export function ContradictionGroups({
  groups,
  onDecided,
}: {
  groups: OverlapGroup[];
  onDecided: (message: string) => void;
}) {
  if (groups.length === 0) return null;
  return (
    <section aria-labelledby="groups-heading">
      <h2 id="groups-heading">Rules that contradict each other</h2>
      <p>
        Each group is rules of one receiving institution for the same courses, in force at the same time and of the same
        priority. Compare them side by side and accept one: the others wait in conflict.
      </p>
      {groups.map((group) => (
        <section
          key={`${group.targetInstitutionId} ${group.sourceCourseIds.join(" ")} ${group.priority}`}
          class="group"
          aria-label={group.ambiguous ? "Contradicting rules" : "Duplicate rules"}
        >
          <h3>
            {group.ambiguous ? "Contradiction" : "Duplicates"} at <InstitutionName id={group.targetInstitutionId} />
          </h3>
          <div class="side-by-side">
            {group.equivalencies.map((rule) => (
              <RuleCard key={`${rule.id}-${rule.version}`} rule={rule} group={group} onDecided={onDecided} />
            ))}
          </div>
        </section>
      ))}
    </section>
  );
}
