// The review queue: the pending and conflict rules of the institutions the organization stewards
// (the rules it decides, as their target institution), oldest first, each decided in place with a
// change note. A decision re-reads the rule and sends If-Match, so a rule changed since the queue
// was read is not decided blindly.
import { useState } from "preact/hooks";
import type { components } from "../../../../generated/api-types.ts";
import { type Api, problemText } from "../api.ts";
import { useDashboard } from "../context.ts";
import { loadStewardship, type Stewardship } from "../stewardship.tsx";
import { Badge, DataTable, Empty, ErrorMessage, Link, ok, PageTitle, Show, useLoad, When } from "../ui.tsx";
import { InstitutionName } from "../names.tsx";
import { ruleText, useMissingCodes } from "../rule-words.tsx";
import { RuleSummary, statusTone } from "./equivalencies.tsx";
import { ContradictionGroups, loadGroups, type OverlapGroup } from "./review-groups.tsx";

type Rule = components["schemas"]["Equivalency"];
type Status = components["schemas"]["EquivalencyStatus"];
type Decision = {
  status: Status;
  verb: string;
  /** The rule fields the decision changes besides its status. */
  changes?: { kind: "no_credit"; targets: []; generalEducationArea: null; minimumGrade: null };
  /** Asked before the decision is sent. */
  confirm?: string;
};

/** How many of the oldest waiting rules the queue shows at once (decided ones make room for the next). */
export const QUEUE_SIZE = 100;
const WAITING: Status[] = ["pending", "conflict"];

interface Queue {
  rules: Rule[];
  /** Contradictions and duplicates still waiting, shown side by side above the single rules. */
  groups: OverlapGroup[];
  /** Waiting rules in all, of which `rules` are the oldest. */
  total: number;
  stewardsNothing: boolean;
}

/**
 * The oldest waiting rules: one list per status and stewarded institution (the API filters by one
 * of each), merged by creation time. Each list is read up to QUEUE_SIZE, so the merge's first
 * QUEUE_SIZE are the oldest of all.
 */
async function loadQueue(api: Api, stewardship: Stewardship): Promise<Queue> {
  const institutions: (string | undefined)[] = stewardship.allInstitutions ? [undefined] : stewardship.institutionIds;
  if (institutions.length === 0) return { rules: [], groups: [], total: 0, stewardsNothing: true };
  const groups = loadGroups(api, stewardship);
  const pages = await Promise.all(
    WAITING.flatMap((status) =>
      institutions.map(async (targetInstitution) =>
        ok(
          await api.raw.GET("/equivalencies", {
            params: {
              query: {
                status,
                expand: "course",
                limit: QUEUE_SIZE,
                ...(targetInstitution ? { targetInstitution } : {}),
              },
            },
          }),
        ),
      ),
    ),
  );
  const grouped = new Set((await groups).flatMap((group) => group.equivalencies.map((rule) => rule.id)));
  const rules = pages
    .flatMap((page) => page.data)
    .filter((rule) => !grouped.has(rule.id))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    .slice(0, QUEUE_SIZE);
  return {
    rules,
    groups: await groups,
    total: pages.reduce((sum, page) => sum + page.pagination.total, 0),
    stewardsNothing: false,
  };
}

/**
 * There is no rejected status: rejecting records the decision that the courses do not transfer,
 * an accepted `no_credit` rule (no targets, no area, any grade), which evaluations then report.
 */
const REJECT: Decision = {
  status: "accepted",
  verb: "Reject",
  changes: { kind: "no_credit", targets: [], generalEducationArea: null, minimumGrade: null },
  confirm: "Reject: record that these courses do not transfer (accepted, no credit)?",
};

function decisionsFor(status: Status): Decision[] {
  const accept = { status: "accepted" as const, verb: "Accept" };
  if (status === "pending") return [accept, REJECT, { status: "conflict", verb: "Mark conflict" }];
  if (status === "conflict") return [accept, REJECT, { status: "pending", verb: "Back to pending" }];
  return [];
}

function QueueRow({ rule, onDecided }: { rule: Rule; onDecided: (message: string) => void }) {
  const { api } = useDashboard();
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Decision | null>(null);
  // Labels and the notice name the rule whole, with the codes its expansion lacks once read.
  const summary = ruleText(rule, useMissingCodes(rule));
  const decide = async (decision: Decision) => {
    setConfirming(null);
    setBusy(true);
    setError(null);
    try {
      const current = await api.raw.GET("/equivalencies/{id}", { params: { path: { id: rule.id } } });
      const record = ok(current).data;
      if (record.version !== rule.version) {
        setError(`Changed by someone else since the queue was read (now ${record.status}, version ${record.version}).`);
        return;
      }
      const result = await api.raw.PATCH("/equivalencies/{id}", {
        params: { path: { id: rule.id }, header: { "If-Match": current.response.headers.get("ETag") ?? "" } },
        body: { status: decision.status, ...decision.changes, ...(note.trim() ? { note: note.trim() } : {}) },
      });
      if (result.response.status === 412) {
        setError("Changed by someone else a moment ago: reload the queue and decide again.");
        return;
      }
      if (result.error) throw new Error(problemText(result.error));
      onDecided(
        `${summary}: ${decision.changes ? "rejected (does not transfer)" : decision.status === "accepted" ? "accepted" : `now ${decision.status}`}.`,
      );
    } catch (caught) {
      setError(problemText(caught));
    } finally {
      setBusy(false);
    }
  };
  const controls = (
    <div class="decide">
      <label class="sr-only" for={`note-${rule.id}`}>
        Change note for {summary}
      </label>
      <input
        id={`note-${rule.id}`}
        placeholder="Change note"
        value={note}
        onInput={(e) => setNote(e.currentTarget.value)}
      />
      {decisionsFor(rule.status).map((decision) => (
        <button
          key={decision.status}
          type="button"
          class={decision.changes ? "danger" : decision.status === "accepted" ? "" : "secondary"}
          disabled={busy}
          onClick={() => (decision.confirm ? setConfirming(decision) : void decide(decision))}
        >
          {decision.verb}
          <span class="sr-only"> {summary}</span>
        </button>
      ))}
      {confirming && (
        <div role="alertdialog" aria-label={`Confirm: ${confirming.verb} ${summary}`} class="confirm">
          <p>{confirming.confirm}</p>
          <button type="button" class="danger" disabled={busy} onClick={() => void decide(confirming)}>
            Yes, {confirming.verb.toLowerCase()}
            <span class="sr-only"> {summary}</span>
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      )}
      {error && <ErrorMessage message={error} />}
    </div>
  );
  return (
    <tr>
      <td>
        <Link to={`/equivalencies/${rule.id}`} title={rule.id}>
          <RuleSummary rule={rule} />
        </Link>
        <div class="muted">
          {rule.sourceCourse ? `${rule.sourceCourse.title} · ${rule.sourceCourse.institution.name}` : ""}
        </div>
      </td>
      <td title={rule.targetInstitutionId}>
        {rule.targetInstitution?.name ?? <InstitutionName id={rule.targetInstitutionId} />}
      </td>
      <td>
        <Badge tone={statusTone(rule.status)}>{rule.status}</Badge>
      </td>
      <td>
        <When at={rule.createdAt} />
      </td>
      <td>{controls}</td>
    </tr>
  );
}

/** How many waiting rules the groups show. */
function grouped(groups: OverlapGroup[]): number {
  return new Set(
    groups.flatMap((group) => group.equivalencies.filter((rule) => rule.status !== "accepted").map((rule) => rule.id)),
  ).size;
}

export function ReviewQueue() {
  const { api } = useDashboard();
  const [decided, setDecided] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const queue = useLoad(async () => loadQueue(api, await loadStewardship(api)), [api, round]);
  return (
    <>
      <PageTitle>Review queue</PageTitle>
      <p>
        The pending and conflict rules your institutions receive, oldest first. Accept one, reject it (after a
        confirmation it is recorded as accepted with the outcome "does not transfer"), mark it conflict (it waits beside
        the rules it contradicts), or send a conflict back to pending; the change note is kept in its history.
      </p>
      {decided && (
        <p class="notice" role="status">
          {decided}
        </p>
      )}
      <Show value={queue}>
        {({ rules, groups, total, stewardsNothing }) =>
          stewardsNothing ? (
            <Empty>Your organization stewards no institution in this environment, so no rule waits for it.</Empty>
          ) : rules.length === 0 && groups.length === 0 ? (
            <Empty>Nothing to review: no pending or conflict rule.</Empty>
          ) : (
            <>
              <ContradictionGroups
                groups={groups}
                onDecided={(message) => {
                  setDecided(message);
                  setRound((r) => r + 1);
                }}
              />
              {groups.length > 0 && rules.length > 0 && <h2>Other rules waiting</h2>}
              <p class="muted">
                {total} waiting
                {total > rules.length + grouped(groups)
                  ? `; the oldest ${rules.length} outside the groups are shown`
                  : ""}
                .
              </p>
              {rules.length > 0 && (
                <DataTable
                  caption="Rules waiting for a decision, oldest first"
                  columns={[
                    "Rule",
                    "Receiving institution",
                    "Status",
                    "Waiting since",
                    { label: "Decision", hidden: true },
                  ]}
                  rows={rules}
                  row={(rule) => (
                    <QueueRow
                      key={`${rule.id}-${rule.version}`}
                      rule={rule}
                      onDecided={(message) => {
                        setDecided(message);
                        setRound((r) => r + 1);
                      }}
                    />
                  )}
                />
              )}
            </>
          )
        }
      </Show>
    </>
  );
}
