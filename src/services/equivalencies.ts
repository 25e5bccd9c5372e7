// Equivalencies: articulation rules of a target institution (one or more source courses, all
// required, give an outcome there: courses, elective or general education credit, or nothing),
// with an immutable version history. An accepted rule never contradicts or repeats another
// accepted rule of the same target institution, source set, priority and dates (rules.ts).
import type { Equivalency } from "../../generated/prisma/client.ts";
import type { CreditUnit, EquivalencyStatus, Environment, Page, PageResult, RuleKind } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories, TransactionRepositories } from "../repositories/index.ts";
import {
  dayOf,
  type EquivalencyFilters,
  type EquivalencyChange,
  type ExpandedEquivalency,
} from "../repositories/equivalencies.ts";
import {
  ConflictError,
  InvalidTransitionError,
  notFound,
  PreconditionFailedError,
  RuleOverlapError,
  ValidationError,
  type FieldError,
} from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { assertSteward } from "./stewardship.ts";
import { createEquivalencyVersionsService } from "./equivalency-versions.ts";
import { createEquivalencyOverlapsService } from "./equivalency-overlaps.ts";
import { clearRequestsAnsweredBy } from "./transfer-evaluations.ts";
import {
  BLANK_CODE,
  calendarDate,
  courseView,
  equivalencyView,
  institutionView,
  isBlankCode,
  type EquivalencyView,
  type LetterGrade,
} from "../views/catalog.ts";
import { auditChange, type ChangedRecord } from "./audit.ts";
import { noteNothingChanged } from "./change-origin.ts";
import {
  defaultAwardedCredits,
  RULE_SCALAR_FIELDS,
  ruleKey,
  sameOutcome,
  sourceSetKey,
  type RuleTarget,
} from "./rules.ts";

export type { EquivalencyFilters } from "../repositories/equivalencies.ts";

export interface RuleTargetInput {
  courseId?: string;
  code?: string;
  credits?: number;
}

/** The rule's fields that create and PATCH both take. */
interface RuleFields {
  kind?: RuleKind;
  generalEducationArea?: string | null;
  minimumGrade?: LetterGrade | null;
  effectiveFrom?: string | null;
  effectiveUntil?: string | null;
  priority?: number;
  awardedCredits?: number | null;
}

export interface EquivalencyCreate extends RuleFields {
  sourceCourseId?: string;
  sourceCourseIds?: string[];
  targetInstitutionId: string;
  targetCourseId?: string;
  targetCode?: string;
  targets?: RuleTargetInput[];
  status?: EquivalencyStatus;
  decidedBy?: string;
  policyBasis?: string;
}

export interface EquivalencyUpdate extends RuleFields {
  status?: EquivalencyStatus;
  targetCourseId?: string | null;
  targetCode?: string | null;
  targets?: RuleTargetInput[];
  decidedBy?: string | null;
  policyBasis?: string | null;
  note?: string;
}

export const TRANSITIONS: Readonly<Record<EquivalencyStatus, readonly EquivalencyStatus[]>> = {
  pending: ["accepted", "conflict"],
  conflict: ["pending", "accepted"],
  accepted: ["conflict"],
};

export function expandedView(record: ExpandedEquivalency) {
  const withInstitution = (course: ExpandedEquivalency["sourceCourse"]) => ({
    ...courseView(course),
    institution: institutionView(course.institution),
  });
  return {
    ...equivalencyView(record),
    sourceCourse: withInstitution(record.sourceCourse),
    sourceCourses: record.sourceCourses.map(withInstitution),
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

/** The rule's fields a PATCH may change (its source courses are its identity). */
const RULE_CHANGEABLE = ["targets", ...RULE_SCALAR_FIELDS] as const;
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

/** A rule as it will be stored, before its references are checked; dates as `YYYY-MM-DD`. */
interface RuleDraft {
  sourceCourseIds: string[];
  targetInstitutionId: string;
  targets: RuleTargetInput[];
  kind: RuleKind;
  generalEducationArea: string | null;
  minimumGrade: string | null;
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  priority: number;
  /** undefined: computed from the courses (defaultAwardedCredits). */
  awardedCredits: number | null | undefined;
}

/** Where the body named each part of the rule, for the pointers of its errors. */
interface DraftPointers {
  source(index: number): string;
  target(index: number, field?: "courseId" | "code"): string;
}

/** The rule checks that need no database: kind and targets, area, dates, sources given once. */
function draftErrors(draft: RuleDraft, pointers: DraftPointers): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  draft.sourceCourseIds.forEach((id, index) => {
    if (seen.has(id)) errors.push({ pointer: pointers.source(index), message: `the course ${id} is listed twice` });
    seen.add(id);
  });
  draft.targets.forEach((target, index) => {
    if (target.courseId === undefined && target.code === undefined)
      errors.push({ pointer: pointers.target(index), message: "must name a courseId or a code" });
    if (target.code !== undefined && isBlankCode(target.code))
      errors.push({ pointer: pointers.target(index, "code"), message: BLANK_CODE });
  });
  if (draft.kind === "no_credit" && draft.targets.length)
    errors.push({ pointer: "/targets", message: "a no_credit rule (does not transfer) takes no targets" });
  if (draft.kind === "general_education" && !draft.generalEducationArea)
    errors.push({
      pointer: "/generalEducationArea",
      message: "a general_education rule names its area, like IGETC 5A",
    });
  if (draft.kind !== "general_education" && draft.generalEducationArea)
    errors.push({ pointer: "/generalEducationArea", message: "only a general_education rule has an area" });
  if (draft.generalEducationArea !== null && isBlankCode(draft.generalEducationArea))
    errors.push({ pointer: "/generalEducationArea", message: BLANK_CODE });
  if (draft.effectiveFrom && draft.effectiveUntil && draft.effectiveFrom > draft.effectiveUntil)
    errors.push({
      pointer: "/effectiveUntil",
      message: `must not be before effectiveFrom (${draft.effectiveFrom})`,
    });
  return errors;
}

/**
 * Checks the rule and the records it names (in the environment, targets of the target
 * institution), and gives what is stored: targets with their codes, awarded credits in the
 * target institution's unit (that of its first target course, else semester).
 */
async function resolveRule(
  { equivalencies }: Pick<Writes, "equivalencies">,
  environment: Environment,
  draft: RuleDraft,
  pointers: DraftPointers,
) {
  const errors = draftErrors(draft, pointers);
  const targetCourseIds = draft.targets.flatMap((t) => (t.courseId !== undefined ? [t.courseId] : []));
  const { sources, institution, targetCourses } = await equivalencies.findRuleReferences(environment, {
    sourceCourseIds: draft.sourceCourseIds,
    targetInstitutionId: draft.targetInstitutionId,
    targetCourseIds,
  });
  draft.sourceCourseIds.forEach((id, index) => {
    if (!sources.has(id))
      errors.push({ pointer: pointers.source(index), message: `no course "${id}" in the ${environment} environment` });
  });
  if (!institution)
    errors.push({
      pointer: "/targetInstitutionId",
      message: `no institution "${draft.targetInstitutionId}" in the ${environment} environment`,
    });
  draft.targets.forEach((target, index) => {
    if (target.courseId === undefined) return;
    const course = targetCourses.get(target.courseId);
    if (!course)
      errors.push({
        pointer: pointers.target(index, "courseId"),
        message: `no course "${target.courseId}" in the ${environment} environment`,
      });
    else if (course.institutionId !== draft.targetInstitutionId)
      errors.push({
        pointer: pointers.target(index, "courseId"),
        message: `the course belongs to ${course.institutionId}, not to the target institution ${draft.targetInstitutionId}`,
      });
  });
  if (errors.length) throw ValidationError.of(errors, "The equivalency refers to records that do not fit.");
  const targets: RuleTarget[] = draft.targets.map((t) => ({
    courseId: t.courseId ?? null,
    code: t.code ?? (t.courseId !== undefined ? targetCourses.get(t.courseId)!.code : null),
    credits: t.credits ?? null,
  }));
  const firstCourse = targets.find((t) => t.courseId !== null);
  const targetUnit: CreditUnit = firstCourse ? targetCourses.get(firstCourse.courseId!)!.creditUnit : "semester";
  const sourceCourses = draft.sourceCourseIds.map((id) => sources.get(id)!);
  const awarded =
    draft.awardedCredits === undefined || draft.awardedCredits === null
      ? defaultAwardedCredits(draft.kind, sourceCourses, targets, targetUnit)
      : { awardedCredits: draft.awardedCredits, awardedCreditUnit: targetUnit };
  return { sourceCourses, institution: institution!, targets, ...awarded };
}

/**
 * Refuses a rule that would be accepted beside another accepted rule of its target
 * institution with the same source set, priority and overlapping dates. With `lock` (inside
 * the write's transaction) the writers of that set queue first, so two concurrent writers
 * cannot both pass.
 */
async function assertUnambiguous(
  { equivalencies }: Pick<Writes, "equivalencies">,
  environment: Environment,
  rule: Pick<
    Equivalency,
    | "targetInstitutionId"
    | "sourceSetKey"
    | "priority"
    | "effectiveFrom"
    | "effectiveUntil"
    | "kind"
    | "generalEducationArea"
    | "targets"
    | "minimumGrade"
    | "awardedCredits"
  >,
  options: { exceptId: string | null; lock: boolean },
): Promise<void> {
  if (options.lock) await equivalencies.lockRuleSet(environment, rule.targetInstitutionId, rule.sourceSetKey);
  const others = await equivalencies.findAcceptedOverlapping(environment, rule, options.exceptId);
  if (!others.length) return;
  const outcome = (r: typeof rule | (typeof others)[number]) => ({ ...r, targets: r.targets as RuleTarget[] });
  const differing = others.filter((other) => !sameOutcome(outcome(other), outcome(rule)));
  const named = differing.length ? differing : others;
  throw new RuleOverlapError(
    differing.length > 0,
    named.map((other) => other.id),
    rule,
  );
}

async function assertNoDuplicate(
  { equivalencies }: Pick<Writes, "equivalencies">,
  environment: Environment,
  key: { sourceCourseId: string; targetInstitutionId: string; targetKey: string },
  exceptId?: string,
) {
  const existingId = await equivalencies.findIdByTarget(environment, key);
  if (existingId && existingId !== exceptId) {
    throw new ConflictError(
      `An equivalency for this source course and target already exists: ${existingId}.`,
      existingId,
    );
  }
}

function actorOf(caller: Credential) {
  return { actorCredentialId: caller.id, actorOrganizationId: caller.organizationId, actorKind: caller.kind };
}

/** A target as a request names it, from a stored one (its code kept as stored). */
function targetInput(target: RuleTarget): RuleTargetInput {
  return {
    ...(target.courseId !== null ? { courseId: target.courseId } : {}),
    ...(target.code !== null ? { code: target.code } : {}),
    ...(target.credits !== null ? { credits: target.credits } : {}),
  };
}

/** The rule a create request describes, in 1.1 terms (sourceCourseIds, targets) or 1.0 ones. */
function createDraft(input: EquivalencyCreate): { draft: RuleDraft; pointers: DraftPointers } {
  const errors: FieldError[] = [];
  const sourceCourseIds = input.sourceCourseIds ?? (input.sourceCourseId !== undefined ? [input.sourceCourseId] : []);
  if (!sourceCourseIds.length)
    errors.push({
      pointer: "/sourceCourseIds",
      message: "give the source courses: sourceCourseIds (or sourceCourseId)",
    });
  if (input.sourceCourseIds && input.sourceCourseId !== undefined && input.sourceCourseId !== input.sourceCourseIds[0])
    errors.push({ pointer: "/sourceCourseId", message: "must be the first of sourceCourseIds (or be left out)" });
  const legacyTarget = input.targetCourseId !== undefined || input.targetCode !== undefined;
  if (input.targets && legacyTarget)
    errors.push({ pointer: "/targets", message: "give either targets or targetCourseId and targetCode, not both" });
  if (errors.length) throw ValidationError.of(errors);
  const legacy = legacyTarget ? [{ courseId: input.targetCourseId, code: input.targetCode }] : [];
  return {
    draft: {
      sourceCourseIds,
      targetInstitutionId: input.targetInstitutionId,
      targets: input.targets ?? legacy,
      kind: input.kind ?? "equivalent",
      generalEducationArea: input.generalEducationArea ?? null,
      minimumGrade: input.minimumGrade ?? null,
      effectiveFrom: input.effectiveFrom ?? null,
      effectiveUntil: input.effectiveUntil ?? null,
      priority: input.priority ?? 0,
      awardedCredits: input.awardedCredits,
    },
    pointers: {
      source: (index) => (input.sourceCourseIds ? `/sourceCourseIds/${index}` : "/sourceCourseId"),
      target: (index, field) =>
        input.targets
          ? `/targets/${index}${field ? `/${field}` : ""}`
          : field === "courseId"
            ? "/targetCourseId"
            : "/targetCode",
    },
  };
}

/** The rule after a PATCH: its fields, or the 1.0 target fields applied to the first target. */
function updateDraft(current: Equivalency, patch: EquivalencyUpdate): { draft: RuleDraft; pointers: DraftPointers } {
  const legacyTarget = patch.targetCourseId !== undefined || patch.targetCode !== undefined;
  if (patch.targets && legacyTarget)
    throw ValidationError.single("/targets", "give either targets or targetCourseId and targetCode, not both");
  let targets = (current.targets as RuleTarget[]).map(targetInput);
  if (patch.targets) targets = patch.targets;
  else if (legacyTarget) {
    const [first = {}, ...rest] = targets;
    const courseId = patch.targetCourseId === undefined ? first.courseId : (patch.targetCourseId ?? undefined);
    // As in 1.0: a new target course without a code takes the course's code; removing the course keeps the code.
    const newCourse = patch.targetCourseId !== undefined && patch.targetCourseId !== null;
    const code =
      patch.targetCode !== undefined
        ? (patch.targetCode ?? undefined)
        : newCourse && patch.targetCourseId !== current.targetCourseId
          ? undefined
          : first.code;
    const replaced = { ...first, courseId, code };
    targets = courseId === undefined && code === undefined ? rest : [replaced, ...rest];
  }
  const pick = <K extends keyof RuleFields>(field: K, stored: NonNullable<RuleFields[K]> | null) =>
    patch[field] === undefined ? stored : patch[field];
  return {
    draft: {
      sourceCourseIds: current.sourceCourseIds,
      targetInstitutionId: current.targetInstitutionId,
      targets,
      kind: pick("kind", current.kind)!,
      generalEducationArea: pick("generalEducationArea", current.generalEducationArea) ?? null,
      minimumGrade: pick("minimumGrade", current.minimumGrade as LetterGrade | null) ?? null,
      effectiveFrom: pick("effectiveFrom", calendarDate(current.effectiveFrom)) ?? null,
      effectiveUntil: pick("effectiveUntil", calendarDate(current.effectiveUntil)) ?? null,
      priority: pick("priority", current.priority)!,
      awardedCredits: patch.awardedCredits === undefined ? current.awardedCredits : patch.awardedCredits,
    },
    pointers: {
      source: () => "/sourceCourseIds",
      target: (index, field) =>
        patch.targets
          ? `/targets/${index}${field ? `/${field}` : ""}`
          : field === "code"
            ? "/targetCode"
            : "/targetCourseId",
    },
  };
}

/** The rule's columns, as stored, from a checked draft. */
function ruleColumns(draft: RuleDraft, resolved: Awaited<ReturnType<typeof resolveRule>>) {
  const [first] = resolved.targets;
  return {
    sourceCourseId: draft.sourceCourseIds[0],
    sourceCourseIds: draft.sourceCourseIds,
    sourceSetKey: sourceSetKey(draft.sourceCourseIds),
    targetCourseId: first?.courseId ?? null,
    targetCode: first?.code ?? null,
    targets: resolved.targets,
    targetKey: ruleKey({ ...draft, targets: resolved.targets }),
    kind: draft.kind,
    generalEducationArea: draft.generalEducationArea,
    minimumGrade: draft.minimumGrade,
    effectiveFrom: draft.effectiveFrom ? dayOf(draft.effectiveFrom) : null,
    effectiveUntil: draft.effectiveUntil ? dayOf(draft.effectiveUntil) : null,
    priority: draft.priority,
    awardedCredits: resolved.awardedCredits,
    awardedCreditUnit: resolved.awardedCreditUnit,
  };
}

const UPDATABLE = ["status", "targetCourseId", "targetCode", "decidedBy", "policyBasis", ...RULE_CHANGEABLE] as const;
type Updatable = Pick<Equivalency, (typeof UPDATABLE)[number]>;
/** Fields whose change leaves the outcome and its place in time as they were. */
const NOT_RULE = new Set<string>(["decidedBy", "policyBasis"]);
const MAX_ATTEMPTS = 5;

/** Equal as stored: dates by instant, JSON (targets) whatever the order of its keys (jsonb reorders them). */
function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): unknown =>
    value instanceof Date
      ? value.toISOString()
      : Array.isArray(value)
        ? value.map(canonical)
        : value !== null && typeof value === "object"
          ? Object.fromEntries(
              Object.entries(value)
                .sort(([x], [y]) => (x < y ? -1 : 1))
                .map(([key, inner]) => [key, canonical(inner)]),
            )
          : (value ?? null);
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
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
  const { draft, pointers } = updateDraft(current, patch);
  const resolved = await resolveRule(writes, environment, draft, pointers);
  const rule = ruleColumns(draft, resolved);
  if (patch.awardedCredits === undefined && draft.kind !== "no_credit") {
    // Not sent: the stored credits stay, in their unit.
    rule.awardedCredits = current.awardedCredits;
    rule.awardedCreditUnit = current.awardedCreditUnit;
  }
  const next: Updatable = {
    ...rule,
    status: patch.status ?? current.status,
    decidedBy: patch.decidedBy === undefined ? current.decidedBy : patch.decidedBy,
    policyBasis: patch.policyBasis === undefined ? current.policyBasis : patch.policyBasis,
  };
  const changed = UPDATABLE.filter((field) => !sameValue(next[field], current[field]));
  if (!changed.length) {
    if (!dryRun) noteNothingChanged();
    const unchanged = await equivalencies.findExpandedWritten(id);
    return { view: expandedView(unchanged), etag, changed: false };
  }
  const status = next.status;
  if (status !== current.status && !TRANSITIONS[current.status].includes(status)) {
    throw new InvalidTransitionError(current.status, status, TRANSITIONS[current.status]);
  }
  if (rule.targetKey !== current.targetKey) {
    await assertNoDuplicate(
      writes,
      environment,
      {
        sourceCourseId: current.sourceCourseId,
        targetInstitutionId: current.targetInstitutionId,
        targetKey: rule.targetKey,
      },
      id,
    );
  }
  if (status === "accepted" && changed.some((field) => !NOT_RULE.has(field)))
    await assertUnambiguous(writes, environment, { ...current, ...rule }, { exceptId: id, lock: !dryRun });
  if (dryRun) return "would-change" as const;
  const changedFields: string[] = [...changed];
  let decidedAt = current.decidedAt;
  if (status !== current.status) {
    decidedAt = status === "pending" ? null : now;
    if ((current.decidedAt === null) !== (decidedAt === null) || status !== "pending") changedFields.push("decidedAt");
  }
  const change: EquivalencyChange = {
    ...next,
    status,
    decidedAt,
    targetKey: rule.targetKey,
    version: current.version + 1,
    updatedAt: now,
  };
  if (!(await equivalencies.updateIfVersion(id, current.version, change))) return "lost-race" as const;

  const updated = await equivalencies.findExpandedWritten(id);
  await clearRequestsAnsweredBy(writes, updated);
  const state = equivalencyView(updated);
  await equivalencies.insertVersion({
    id: newId("eqv"),
    equivalencyId: id,
    version: updated.version,
    state,
    changeNote: patch.note ?? null,
    changedFields,
    ...actorOf(caller),
    recordedAt: now,
  });
  await outbox.recordEvents(environment, [
    {
      type: "equivalency.updated",
      data: {
        equivalencyId: id,
        version: updated.version,
        previousStatus: current.status,
        status: updated.status,
        changedFields,
        ...ruleEventFields(state),
      },
    },
  ]);
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

    /** Ordered by creation time, then id; `expand` embeds the courses and the target institution. */
    async listEquivalencies(
      caller: Credential,
      filters: EquivalencyFilters,
      page: Page,
      expand: boolean,
    ): Promise<PageResult<EquivalencyView | ReturnType<typeof expandedView>>> {
      if (expand) {
        const { items, total, next } = await equivalencies.listExpandedPage(caller.environment, filters, page);
        return { items: items.map(expandedView), total, next };
      }
      const { items, total, next } = await equivalencies.listPage(caller.environment, filters, page);
      return { items: items.map(equivalencyView), total, next };
    },

    async getEquivalency(caller: Credential, id: string) {
      const record = await equivalencies.findExpandedById(caller.environment, id);
      if (!record) throw notFound.equivalency(id, caller.environment);
      return { view: expandedView(record), etag: etagOf(record) };
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
      const { draft, pointers } = createDraft(input);
      const decide = async (writes: Pick<Writes, "equivalencies" | "stewardship">, lock: boolean) => {
        const resolved = await resolveRule(writes, environment, draft, pointers);
        await assertSteward(writes.stewardship, caller, [
          { institutionId: input.targetInstitutionId, pointer: "/targetInstitutionId" },
        ]);
        const rule = ruleColumns(draft, resolved);
        await assertNoDuplicate(writes, environment, {
          sourceCourseId: rule.sourceCourseId,
          targetInstitutionId: input.targetInstitutionId,
          targetKey: rule.targetKey,
        });
        const status = input.status ?? "pending";
        const at = now();
        const record = {
          id: newId("eq"),
          environment,
          targetInstitutionId: input.targetInstitutionId,
          ...rule,
          status,
          decidedBy: input.decidedBy ?? null,
          decidedAt: status === "pending" ? null : at,
          policyBasis: input.policyBasis ?? null,
          version: 1,
          provenance: caller.channel,
          datasetVersionId: null,
          organizationId: caller.organizationId,
          createdAt: at,
          updatedAt: at,
        } satisfies Equivalency;
        if (status === "accepted") await assertUnambiguous(writes, environment, record, { exceptId: null, lock });
        return { record, resolved };
      };
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
        const state = equivalencyView(record);
        await writes.equivalencies.insertVersion({
          id: newId("eqv"),
          equivalencyId: record.id,
          version: 1,
          state,
          changeNote: null,
          changedFields: [],
          ...actorOf(caller),
          recordedAt: record.createdAt,
        });
        const [source] = resolved.sourceCourses;
        await writes.outbox.recordEvents(environment, [
          {
            type: "equivalency.created",
            data: {
              equivalencyId: record.id,
              status: record.status,
              sourceCourse: { institution: source.institution.name, code: source.code },
              target: { institution: resolved.institution.name, code: record.targetCode },
              ...(record.policyBasis ? { policyBasis: record.policyBasis } : {}),
              ...ruleEventFields(state),
            },
          },
        ]);
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
