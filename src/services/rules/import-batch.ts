// One CSV import's rules decided in memory and written at once. The records the file names are
// read first (before the import's transaction, which checks under the rule sets' advisory locks
// that they still stand, else reads them again there: import.ts); each row is then decided by the
// same functions as a single write
// (decisions.ts), against those records and the rows before it, and what the rows change
// is collected and written with a few multi-row statements: equivalencies, versions, outbox
// events (webhooks and the change feed), answered requests and one audit entry per record.
import type { Course, Equivalency, Institution } from "../../../generated/prisma/client.ts";
import type { Credential } from "../../auth/credential.ts";
import type { NewEquivalencyVersion, OverlappingRule } from "../../repositories/equivalencies.ts";
import type { TransactionRepositories } from "../../repositories/index.ts";
import type { PendingEvent } from "../../kernel/events.ts";
import { calendarDate } from "../../views/catalog.ts";
import { auditChange } from "../audit.ts";
import { createdEvent, updatedEvent, versionOf } from "../equivalencies.ts";
import type { CheckedRule, ResolvedRule, RuleIdentity, RuleLookups, UpdateDecision } from "./decisions.ts";
import { datesOverlap } from "./model.ts";

/** A stored equivalency the import changes was changed by another writer after the import read it. */
export class LostRaceError extends Error {
  override readonly message = "an equivalency of the import changed while the import was being decided";
}

/** What the import read for the whole file. */
export interface BatchRecords {
  /** The stored equivalencies with the identities of the file's rows, and the accepted rules of its rule sets. */
  stored: Equivalency[];
  /** Every source and target course the rows name, with its institution. */
  courses: Map<string, Course & { institution: Institution }>;
  /** The rows' target institutions that exist. */
  institutions: Map<string, Institution>;
}

const identityOf = (key: RuleIdentity) => `${key.sourceCourseId}\u0000${key.targetInstitutionId}\u0000${key.targetKey}`;
/** Each of a rule's source course sets under its target institution: rules overlap only under one. */
const ruleSetsOf = (rule: Pick<Equivalency, "targetInstitutionId" | "sourceSetKeys">) =>
  [...new Set(rule.sourceSetKeys)].map((key) => `${rule.targetInstitutionId}\u0000${key}`);
const byCreation = (a: Equivalency, b: Equivalency) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const datesOf = (rule: Pick<Equivalency, "effectiveFrom" | "effectiveUntil">) => ({
  effectiveFrom: calendarDate(rule.effectiveFrom),
  effectiveUntil: calendarDate(rule.effectiveUntil),
});

/**
 * The rules of the file as they stand after each decided row. A dry run records nothing, so each
 * of its rows is decided against the stored rules only, as a single dry-run write would be.
 */
export function createImportBatch(caller: Credential, records: BatchRecords, options: { record: boolean }) {
  const environment = caller.environment;
  const byId = new Map<string, Equivalency>();
  const idByIdentity = new Map<string, string>();
  const acceptedBySet = new Map<string, Equivalency[]>();
  const inserted = new Map<string, Equivalency>();
  const updated = new Map<string, Equivalency>();
  const versions: NewEquivalencyVersion[] = [];
  const events: PendingEvent[] = [];
  const answered: Equivalency[] = [];

  function remember(record: Equivalency) {
    const previous = byId.get(record.id);
    if (previous?.status === "accepted") {
      for (const key of ruleSetsOf(previous)) {
        const set = acceptedBySet.get(key)!;
        set.splice(set.indexOf(previous), 1);
      }
    }
    byId.set(record.id, record);
    idByIdentity.set(identityOf(record), record.id);
    if (record.status === "accepted") {
      for (const key of ruleSetsOf(record)) {
        const set = acceptedBySet.get(key);
        if (set) set.push(record);
        else acceptedBySet.set(key, [record]);
      }
    }
  }
  for (const record of records.stored) remember(record);
  const readVersions = new Map(records.stored.map((record) => [record.id, record.version]));

  const lookups: RuleLookups = {
    async references({ sourceCourseIds, targetInstitutionId, targetCourseIds }) {
      const found = (ids: string[]) =>
        new Map(ids.flatMap((id) => (records.courses.has(id) ? [[id, records.courses.get(id)!] as const] : [])));
      return {
        sources: found(sourceCourseIds),
        institution: records.institutions.get(targetInstitutionId) ?? null,
        targetCourses: found(targetCourseIds),
      };
    },
    async idByTarget(key) {
      return idByIdentity.get(identityOf(key)) ?? null;
    },
    async acceptedOverlapping(rule: CheckedRule, exceptId): Promise<OverlappingRule[]> {
      return [...new Set(ruleSetsOf(rule).flatMap((key) => acceptedBySet.get(key) ?? []))]
        .filter(
          (other) =>
            other.id !== exceptId && other.priority === rule.priority && datesOverlap(datesOf(other), datesOf(rule)),
        )
        .sort(byCreation);
    },
    // The caller stewards every target institution of the file: checked for all rows before any is decided.
    async assertSteward() {},
  };

  return {
    lookups,

    /** The stored (or earlier imported) equivalency with this id. */
    current(id: string): Equivalency {
      return byId.get(id)!;
    },

    created(record: Equivalency, resolved: ResolvedRule): void {
      if (!options.record) return;
      remember(record);
      inserted.set(record.id, record);
      versions.push(versionOf(record, caller, { changeNote: null, changedFields: [], recordedAt: record.createdAt }));
      events.push(createdEvent(record, resolved));
      if (record.status === "accepted") answered.push(record);
    },

    updated(current: Equivalency, decision: Extract<UpdateDecision, { changed: true }>): void {
      if (!options.record) return;
      const record: Equivalency = { ...current, ...decision.change };
      remember(record);
      (inserted.has(record.id) ? inserted : updated).set(record.id, record);
      const { changedFields } = decision;
      versions.push(versionOf(record, caller, { changeNote: null, changedFields, recordedAt: record.updatedAt }));
      events.push(updatedEvent(record, current.status, changedFields));
      if (record.status === "accepted") answered.push(record);
    },

    /** How many equivalencies the batch writes. */
    get size(): number {
      return inserted.size + updated.size;
    },

    /**
     * Writes everything the rows changed, in the import's transaction; LostRaceError (and the
     * transaction rolls back) when a concurrent writer changed a stored equivalency since it was read.
     */
    async write(writes: TransactionRepositories): Promise<void> {
      const { equivalencyImports } = writes;
      await equivalencyImports.insertEquivalencies([...inserted.values()]);
      const written = await equivalencyImports.updateEquivalencies([...updated.values()], readVersions);
      if (written !== updated.size) throw new LostRaceError();
      await equivalencyImports.insertVersions(versions);
      await writes.outbox.recordEvents(environment, events);
      await equivalencyImports.clearRequests(environment, answered);
      const changedIds = [...inserted.keys(), ...updated.keys()];
      await auditChange(
        writes,
        changedIds.map((id) => ({ organizationId: caller.organizationId, environment, type: "equivalency", id })),
      );
    },
  };
}

export type ImportBatch = ReturnType<typeof createImportBatch>;
