// Equivalencies: articulation rules of a target institution (one or more source courses, all
// required, give an outcome there: courses, elective or general education credit, or nothing),
// with an immutable version history. An accepted rule never contradicts or repeats another
// accepted rule of the same target institution, source set, priority and dates (rules.ts).
import type { Equivalency } from "../../generated/prisma/client.ts";
import type { Page, PageResult } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories, TransactionRepositories } from "../repositories/index.ts";
import type { EquivalencyFilters, ExpandedEquivalency, NewEquivalencyVersion } from "../repositories/equivalencies.ts";
import type { PendingEvent } from "../kernel/events.ts";
import { ConflictError, notFound, PreconditionFailedError, ValidationError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { assertSteward } from "./stewardship.ts";
import { createEquivalencyVersionsService } from "./equivalency-versions.ts";
import { createEquivalencyOverlapsService } from "./rules/overlaps.ts";
import { clearRequestsAnsweredBy } from "./rules/evaluation-service.ts";
import {
  BLANK_CODE,
  courseView,
  equivalencyView,
  institutionView,
  isBlankCode,
  type EquivalencyView,
} from "../views/catalog.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { noteNothingChanged } from "./change-origin.ts";
import {
  decideCreate,
  decideUpdate,
  RULE_CHANGEABLE,
  type EquivalencyCreate,
  type EquivalencyUpdate,
  type ResolvedRule,
  type RuleLookups,
} from "./rules/decisions.ts";

import type { RenderedPage } from "../repositories/equivalencies.ts";

export type { EquivalencyFilters, RenderedPage } from "../repositories/equivalencies.ts";
export {
  TRANSITIONS,
  type EquivalencyCreate,
  type EquivalencyUpdate,
  type RuleTargetInput,
} from "./rules/decisions.ts";

export function expandedView(record: ExpandedEquivalency) {
  const withInstitution = (course: ExpandedEquivalency["sourceCourse"]) => ({
    ...courseView(course),
    institution: institutionView(course.institution),
  });
  return {
    ...equivalencyView(record),
    sourceCourse: withInstitution(record.sourceCourse),
    sourceCourses: record.sourceCourses.map(withInstitution),
    sourceCourseSetCourses: record.sourceCourseSetCourses.map((set) => set.map(withInstitution)),
    targetInstitution: institutionView(record.targetInstitution),
    targetCourse: record.targetCourse ? courseView(record.targetCourse) : null,
  };
}

/** What createEquivalency answers for a record it created. */
export interface CreatedEquivalency {
  kind: "created";
  view: ReturnType<typeof expandedView>;
  etag: string;
}

export function etagOf(record: Pick<Equivalency, "id" | "version">): string {
  return `"${record.id}.v${record.version}"`;
}

/** RFC 9110 If-Match: "*", or a list of (possibly weak) entity tags. */
export function ifMatchSatisfied(header: string, etag: string): boolean {
  const tags = header.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  return tags.includes("*") || tags.includes(etag);
}

const RULE_EVENT_FIELDS = ["sourceCourseIds", ...RULE_CHANGEABLE] as const;

/** The rule's fields of webhook payloads (equivalency.created and equivalency.updated). */
export function ruleEventFields(view: EquivalencyView) {
  return Object.fromEntries(RULE_EVENT_FIELDS.map((field) => [field, view[field]])) as Pick<
    EquivalencyView,
    (typeof RULE_EVENT_FIELDS)[number]
  >;
}

type Writes = Pick<
  TransactionRepositories,
  "equivalencies" | "equivalencyRequests" | "outbox" | "stewardship" | "audit"
>;

/** What an equivalency's audit entry names: the rule, in the acting organization's log. */
function equivalencyRecord(caller: Credential, id: string): ChangedRecord {
  return { organizationId: caller.organizationId, environment: caller.environment, type: "equivalency", id };
}

function actorOf(caller: Credential) {
  return { actorCredentialId: caller.id, actorOrganizationId: caller.organizationId, actorKind: caller.kind };
}

/** The version a change records: the equivalency's state after it, by whom, with its note. */
export function versionOf(
  record: Equivalency,
  caller: Credential,
  change: { changeNote: string | null; changedFields: string[]; recordedAt: Date },
): NewEquivalencyVersion {
  return {
    id: newId("eqv"),
    equivalencyId: record.id,
    version: record.version,
    state: equivalencyView(record),
    ...change,
    ...actorOf(caller),
  };
}

/** The equivalency.created event of a new equivalency, naming its first source course and its target. */
export function createdEvent(record: Equivalency, resolved: ResolvedRule): PendingEvent {
  const [source] = resolved.sourceCourses;
  return {
    type: "equivalency.created",
    data: {
      equivalencyId: record.id,
      status: record.status,
      sourceCourse: { institution: source.institution.name, code: source.code },
      target: { institution: resolved.institution.name, code: record.targetCode },
      ...(record.policyBasis ? { policyBasis: record.policyBasis } : {}),
      ...ruleEventFields(equivalencyView(record)),
    },
  };
}

/** The equivalency.updated event of a changed equivalency. */
export function updatedEvent(record: Equivalency, previousStatus: string, changedFields: string[]): PendingEvent {
  return {
    type: "equivalency.updated",
    data: {
      equivalencyId: record.id,
      version: record.version,
      previousStatus,
      status: record.status,
      changedFields,
      ...ruleEventFields(equivalencyView(record)),
    },
  };
}

const MAX_ATTEMPTS = 5;

/**
 * A single write's lookups: the database, in the write's transaction. With `lock`, the writers
 * of one (environment, target institution, source set) queue before the ambiguity check, so
 * two concurrent writers cannot both pass it.
 */
function storedLookups(
  { equivalencies, stewardship }: Pick<Writes, "equivalencies" | "stewardship">,
  caller: Credential,
  lock: boolean,
): RuleLookups {
  const environment = caller.environment;
  return {
    references: (ids) => equivalencies.findRuleReferences(environment, ids),
    idByTarget: (key) => equivalencies.findIdByTarget(environment, key),
    async acceptedOverlapping(rule, exceptId) {
      if (lock) await equivalencies.lockRuleSets(environment, rule.targetInstitutionId, rule.sourceSetKeys);
      return equivalencies.findAcceptedOverlapping(environment, rule, exceptId);
    },
    coursesByCode: (institutionId, codeKeys) => equivalencies.findCoursesByCode(environment, institutionId, codeKeys),
    assertSteward: (institutionId, pointer) => assertSteward(stewardship, caller, [{ institutionId, pointer }]),
  };
}

async function tryUpdate(
  writes: Writes,
  caller: Credential,
  id: string,
  patch: EquivalencyUpdate,
  ifMatch: string | undefined,
  now: Date,
  dryRun = false,
) {
  const environment = caller.environment;
  const { equivalencies, outbox, stewardship } = writes;
  // Writers of one equivalency queue on its row lock, so each reads the version
  // the previous one committed (PGlite serialises transactions anyway).
  const current = await equivalencies.findByIdForUpdate(environment, id);
  if (!current) throw notFound.equivalency(id, environment);
  await assertSteward(stewardship, caller, [{ institutionId: current.targetInstitutionId }]);
  const etag = etagOf(current);
  if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, etag)) {
    throw new PreconditionFailedError(`If-Match ${ifMatch} does not match the current ETag ${etag}.`);
  }
  const decision = await decideUpdate(storedLookups(writes, caller, !dryRun), environment, current, patch, now);
  if (!decision.changed) {
    if (!dryRun) noteNothingChanged();
    const unchanged = await equivalencies.findExpandedWritten(id);
    return { view: expandedView(unchanged), etag, changed: false };
  }
  if (dryRun) return "would-change" as const;
  const { change, changedFields } = decision;
  if (!(await equivalencies.updateIfVersion(id, current.version, change))) return "lost-race" as const;

  const updated = await equivalencies.findExpandedWritten(id);
  await clearRequestsAnsweredBy(writes, updated);
  await equivalencies.insertVersion(
    versionOf(updated, caller, { changeNote: patch.note ?? null, changedFields, recordedAt: now }),
  );
  await outbox.recordEvents(environment, [updatedEvent(updated, current.status, changedFields)]);
  await auditChange(writes, [equivalencyRecord(caller, id)]);
  return { view: expandedView(updated), etag: etagOf(updated), changed: true };
}

export function createEquivalenciesService(
  deps: Pick<Repositories, "equivalencies" | "stewardship" | "transaction" | "users" | "credentials"> & {
    now?: () => Date;
  },
) {
  const { equivalencies, stewardship, transaction, now = () => new Date() } = deps;
  return {
    ...createEquivalencyVersionsService(deps),
    ...createEquivalencyOverlapsService(deps),

    /**
     * Ordered by creation time, then id, as the API shows them, rendered by the database (one text
     * passed through; test/unit/api-json.test.ts holds it to equivalencyView).
     */
    listEquivalencies(caller: Credential, filters: EquivalencyFilters, page: Page): Promise<RenderedPage> {
      return equivalencies.listRenderedPage(caller.environment, filters, page);
    },

    /** listEquivalencies with `expand=course`: each with its courses and target institution. */
    async listExpandedEquivalencies(
      caller: Credential,
      filters: EquivalencyFilters,
      page: Page,
    ): Promise<PageResult<ReturnType<typeof expandedView>>> {
      const { items, total, next } = await equivalencies.listExpandedPage(caller.environment, filters, page);
      return { items: items.map(expandedView), total, next };
    },

    /** The JSON text of expandedView, rendered by the database, and the ETag of its version. */
    async getEquivalency(caller: Credential, id: string): Promise<{ representation: string; etag: string }> {
      const rendered = await equivalencies.findRenderedById(caller.environment, id);
      if (!rendered) throw notFound.equivalency(id, caller.environment);
      return { representation: rendered.representation, etag: etagOf({ id, version: rendered.version }) };
    },

    /** A dry run checks everything a creation would, writes nothing and answers the record it would create. */
    async createEquivalency(
      caller: Credential,
      input: EquivalencyCreate,
      options: {
        dryRun?: boolean;
        /** Runs inside the creation's transaction with what it answers, before it commits (the idempotent answer). */
        beforeCommit?: (transaction: TransactionRepositories, created: CreatedEquivalency) => Promise<void>;
      } = {},
    ) {
      const environment = caller.environment;
      const decide = (writes: Pick<Writes, "equivalencies" | "stewardship">, lock: boolean) =>
        decideCreate(storedLookups(writes, caller, lock), caller, input, now);
      if (options.dryRun) {
        const { record } = await decide({ equivalencies, stewardship }, false);
        return {
          kind: "preview" as const,
          preview: { ...equivalencyView(record), id: null, createdAt: null, updatedAt: null },
        };
      }
      const created = await transaction(async (writes) => {
        const { record, resolved } = await decide(writes, true);
        await writes.equivalencies.insert(record);
        await clearRequestsAnsweredBy(writes, record);
        await writes.equivalencies.insertVersion(
          versionOf(record, caller, { changeNote: null, changedFields: [], recordedAt: record.createdAt }),
        );
        await writes.outbox.recordEvents(environment, [createdEvent(record, resolved)]);
        await auditChange(writes, [equivalencyRecord(caller, record.id)]);
        const written = await writes.equivalencies.findExpandedWritten(record.id);
        const created: CreatedEquivalency = { kind: "created", view: expandedView(written), etag: etagOf(written) };
        await options.beforeCommit?.(writes, created);
        return created;
      });
      equivalencies.forgetTotals();
      return created;
    },

    /** Whether a PATCH would change the equivalency: every check it makes, nothing written (imports' dry runs). */
    async previewEquivalencyUpdate(caller: Credential, id: string, patch: EquivalencyUpdate) {
      const reads = { equivalencies, stewardship } as unknown as Writes;
      const outcome = await tryUpdate(reads, caller, id, patch, undefined, now(), true);
      return { changed: outcome === "would-change" };
    },

    /** Retries a write that lost a race to a concurrent one, unless If-Match pinned the version it was meant for. */
    async updateEquivalency(caller: Credential, id: string, patch: EquivalencyUpdate, ifMatch?: string) {
      if (typeof patch.targetCode === "string" && isBlankCode(patch.targetCode))
        throw ValidationError.single("/targetCode", BLANK_CODE);
      for (let attempt = 1; ; attempt++) {
        const outcome = await transaction((writes) => tryUpdate(writes, caller, id, patch, ifMatch, now()));
        if (outcome === "would-change") throw new Error("tryUpdate previewed a change it was asked to write");
        if (outcome !== "lost-race") {
          if (outcome.changed) equivalencies.forgetTotals();
          return outcome;
        }
        // Someone else wrote a version between our read and our write.
        if (ifMatch !== undefined)
          throw new PreconditionFailedError(`The equivalency changed since the ETag in If-Match was issued.`);
        if (attempt >= MAX_ATTEMPTS)
          throw new ConflictError("The equivalency is being changed concurrently; retry the request.");
      }
    },
  };
}

export type EquivalenciesService = ReturnType<typeof createEquivalenciesService>;
