// The report of overlapping rules: accepted and conflict rules of one target institution,
// source set (any of a rule's alternative sets) and priority whose dates overlap, grouped, so stewards can clean up what arrived
// before the ambiguity check (imports, older data). Part of the equivalencies service.
import type { Equivalency } from "../../../generated/prisma/client.ts";
import type { Credential } from "../../auth/credential.ts";
import type { Repositories } from "../../repositories/index.ts";
import { calendarDate, equivalencyView } from "../../views/catalog.ts";
import { datesOverlap, sameOutcome, type RuleTarget } from "./model.ts";

function dates(rule: Equivalency) {
  return { effectiveFrom: calendarDate(rule.effectiveFrom), effectiveUntil: calendarDate(rule.effectiveUntil) };
}

const outcome = (rule: Equivalency) => ({ ...rule, targets: rule.targets as RuleTarget[] });

/** The members that overlap at least one other member, and whether two overlapping ones say different things. */
export function overlapGroup(rules: Equivalency[]): { members: Equivalency[]; ambiguous: boolean } {
  let ambiguous = false;
  const members = rules.filter((rule) =>
    rules.some((other) => {
      if (other === rule || !datesOverlap(dates(rule), dates(other))) return false;
      if (!sameOutcome(outcome(rule), outcome(other))) ambiguous = true;
      return true;
    }),
  );
  return { members, ambiguous };
}

export function createEquivalencyOverlapsService({ equivalencies }: Pick<Repositories, "equivalencies">) {
  return {
    /** Groups ordered by target institution, sorted source course ids, then priority; offset paging. */
    async listEquivalencyOverlaps(
      caller: Credential,
      filters: { targetInstitution?: string },
      page: { limit: number; offset: number },
    ) {
      const { keys, total } = await equivalencies.findOverlapKeys(caller.environment, filters.targetInstitution, page);
      const rules = await equivalencies.findRulesUnder(caller.environment, keys);
      const items = keys.map((key) => {
        const { members, ambiguous } = overlapGroup(
          rules.filter(
            (rule) =>
              rule.targetInstitutionId === key.targetInstitutionId &&
              rule.sourceSetKeys.includes(key.sourceSetKey) &&
              rule.priority === key.priority,
          ),
        );
        return {
          targetInstitutionId: key.targetInstitutionId,
          sourceCourseIds: key.sourceSetKey.split(" "),
          priority: key.priority,
          ambiguous,
          equivalencies: members.map(equivalencyView),
        };
      });
      return { items, total, next: null };
    },
  };
}
