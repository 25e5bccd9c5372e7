// What a rule write decides before anything is written: the rule a create or PATCH describes,
// checked against the records it names, its stored columns, and whether it repeats or
// contradicts an accepted rule. The records come from RuleLookups, so the single write
// (equivalencies.ts, from the database in its transaction) and the CSV import
// (import.ts, from what it read for the whole file at once) decide alike.
import type { Equivalency } from "../../../generated/prisma/client.ts";
import type { CreditUnit, EquivalencyStatus, Environment, RuleKind, TargetChoice } from "../types.ts";
import type { Credential } from "../../auth/credential.ts";
import {
  dayOf,
  type EquivalencyChange,
  type OverlappingRule,
  type RuleReferences,
} from "../../repositories/equivalencies.ts";
import { ConflictError, InvalidTransitionError, ValidationError, type FieldError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { BLANK_CODE, calendarDate, courseCodeKey, isBlankCode, type LetterGrade } from "../../views/catalog.ts";
import { assertUnambiguous, type CodeResolver } from "./ambiguity.ts";
import { defaultAwardedCredits, RULE_SCALAR_FIELDS, ruleKey, sourceSetKey, type RuleTarget } from "./model.ts";

export interface RuleTargetInput {
  courseId?: string;
  code?: string;
  credits?: number;
}

/** The rule's fields that create and PATCH both take. */
interface RuleFields {
  sourceCourseSets?: string[][];
  targetChoice?: TargetChoice;
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

/** The rule's fields a PATCH may change (its first source course set is its identity). */
export const RULE_CHANGEABLE = ["sourceCourseSets", "targets", "targetChoice", ...RULE_SCALAR_FIELDS] as const;

/** The identity of a rule: one equivalency per (environment, first source course, target institution, key). */
export interface RuleIdentity {
  sourceCourseId: string;
  targetInstitutionId: string;
  targetKey: string;
}

/** The rule columns the ambiguity check compares. */
export type CheckedRule = Pick<
  Equivalency,
  | "targetInstitutionId"
  | "sourceSetKey"
  | "sourceSetKeys"
  | "targetChoice"
  | "priority"
  | "effectiveFrom"
  | "effectiveUntil"
  | "kind"
  | "generalEducationArea"
  | "targets"
  | "minimumGrade"
  | "awardedCredits"
>;

/** Where a decision reads the records it needs. */
export interface RuleLookups {
  references(ids: {
    sourceCourseIds: string[];
    targetInstitutionId: string;
    targetCourseIds: string[];
  }): Promise<RuleReferences>;
  /** The id of the equivalency with this identity, if one exists. */
  idByTarget(key: RuleIdentity): Promise<string | null>;
  /**
   * The other accepted rules of the rule's target institution and priority whose dates overlap its
   * own and that share one of its source course sets.
   */
  acceptedOverlapping(rule: CheckedRule, exceptId: string | null): Promise<OverlappingRule[]>;
  /**
   * The courses of an institution that these codes (code keys, own or cross-listed) name, by code
   * key; absent where the caller resolved the codes itself (the CSV import).
   */
  coursesByCode?: CodeResolver;
  /** Refuses a target institution that the caller's organization does not steward. */
  assertSteward(institutionId: string, pointer: string): Promise<void>;
}

/** A rule as it will be stored, before its references are checked; dates as `YYYY-MM-DD`. */
interface RuleDraft {
  /** The first set (sourceCourseSets[0]). */
  sourceCourseIds: string[];
  sourceCourseSets: string[][];
  targetChoice: TargetChoice;
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
  source(index: number, set?: number): string;
  target(index: number, field?: "courseId" | "code"): string;
}

/** The rule checks that need no database: kind and targets, area, dates, sources given once. */
function draftErrors(draft: RuleDraft, pointers: DraftPointers): FieldError[] {
  const errors: FieldError[] = [];
  const setKeys = new Map<string, number>();
  draft.sourceCourseSets.forEach((set, setIndex) => {
    const seen = new Set<string>();
    set.forEach((id, index) => {
      if (seen.has(id))
        errors.push({ pointer: pointers.source(index, setIndex), message: `the course ${id} is listed twice` });
      seen.add(id);
    });
    const key = sourceSetKey(set);
    const same = setKeys.get(key);
    if (same !== undefined)
      errors.push({
        pointer: `/sourceCourseSets/${setIndex}`,
        message: `has the same courses as set ${same}: each alternative is a different set of courses`,
      });
    else setKeys.set(key, setIndex);
  });
  if (draft.targetChoice === "one_of" && draft.targets.length < 2)
    errors.push({ pointer: "/targetChoice", message: "one_of chooses among targets: give at least two" });
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
async function resolveRule(lookups: RuleLookups, environment: Environment, draft: RuleDraft, pointers: DraftPointers) {
  const errors = draftErrors(draft, pointers);
  const targetCourseIds = draft.targets.flatMap((t) => (t.courseId !== undefined ? [t.courseId] : []));
  const { sources, institution, targetCourses } = await lookups.references({
    sourceCourseIds: [...new Set(draft.sourceCourseSets.flat())],
    targetInstitutionId: draft.targetInstitutionId,
    targetCourseIds,
  });
  const sourceInstitutionId = sources.get(draft.sourceCourseIds[0])?.institutionId;
  draft.sourceCourseSets.forEach((set, setIndex) =>
    set.forEach((id, index) => {
      const course = sources.get(id);
      if (!course)
        errors.push({
          pointer: pointers.source(index, setIndex),
          message: `no course "${id}" in the ${environment} environment`,
        });
      else if (sourceInstitutionId !== undefined && course.institutionId !== sourceInstitutionId)
        errors.push({
          pointer: pointers.source(index, setIndex),
          message: `the course ${course.code} belongs to ${course.institutionId}, not to the rule's source institution ${sourceInstitutionId}`,
        });
    }),
  );
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
  // A target named by a code of one of the target institution's courses (its own or a
  // cross-listed one) is that course; the code stays as the rule gave it.
  const codeOnly = draft.targets.flatMap((t) => (t.courseId === undefined && t.code !== undefined ? [t.code] : []));
  const byCode =
    codeOnly.length && lookups.coursesByCode
      ? await lookups.coursesByCode(draft.targetInstitutionId, codeOnly.map(courseCodeKey))
      : new Map<string, { id: string; code: string; creditUnit: CreditUnit }>();
  const targets: RuleTarget[] = draft.targets.map((t) => {
    const named = t.courseId === undefined && t.code !== undefined ? byCode.get(courseCodeKey(t.code)) : undefined;
    return {
      courseId: t.courseId ?? named?.id ?? null,
      code: t.code ?? (t.courseId !== undefined ? targetCourses.get(t.courseId)!.code : null),
      credits: t.credits ?? null,
    };
  });
  const unitOf = (id: string) =>
    targetCourses.get(id)?.creditUnit ?? [...byCode.values()].find((course) => course.id === id)!.creditUnit;
  const firstCourse = targets.find((t) => t.courseId !== null);
  const targetUnit: CreditUnit = firstCourse ? unitOf(firstCourse.courseId!) : "semester";
  const sourceCourses = draft.sourceCourseIds.map((id) => sources.get(id)!);
  const awarded =
    draft.awardedCredits === undefined || draft.awardedCredits === null
      ? defaultAwardedCredits(draft.kind, sourceCourses, targets, targetUnit, targetCourses, draft.targetChoice)
      : { awardedCredits: draft.awardedCredits, awardedCreditUnit: targetUnit };
  return { sourceCourses, institution: institution!, targets, ...awarded };
}

export type ResolvedRule = Awaited<ReturnType<typeof resolveRule>>;

async function assertNoDuplicate(lookups: RuleLookups, key: RuleIdentity, exceptId?: string) {
  const existingId = await lookups.idByTarget(key);
  if (existingId && existingId !== exceptId) {
    throw new ConflictError(
      `An equivalency for this source course and target already exists: ${existingId}.`,
      existingId,
    );
  }
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
  const sets = input.sourceCourseSets;
  const sourceCourseIds =
    sets?.[0] ?? input.sourceCourseIds ?? (input.sourceCourseId !== undefined ? [input.sourceCourseId] : []);
  if (!sourceCourseIds.length)
    errors.push({
      pointer: "/sourceCourseIds",
      message: "give the source courses: sourceCourseSets, sourceCourseIds or sourceCourseId",
    });
  if (sets && input.sourceCourseIds && input.sourceCourseIds.join(" ") !== sets[0].join(" "))
    errors.push({
      pointer: "/sourceCourseIds",
      message: "must be the first of sourceCourseSets, the same ids in the same order (or be left out)",
    });
  else if (input.sourceCourseId !== undefined && input.sourceCourseId !== sourceCourseIds[0])
    errors.push({
      pointer: "/sourceCourseId",
      message: sets
        ? "must be the first id of the first of sourceCourseSets (or be left out)"
        : "must be the first of sourceCourseIds (or be left out)",
    });
  const legacyTarget = input.targetCourseId !== undefined || input.targetCode !== undefined;
  if (input.targets && legacyTarget)
    errors.push({ pointer: "/targets", message: "give either targets or targetCourseId and targetCode, not both" });
  if (errors.length) throw ValidationError.of(errors);
  const legacy = legacyTarget ? [{ courseId: input.targetCourseId, code: input.targetCode }] : [];
  return {
    draft: {
      sourceCourseIds,
      sourceCourseSets: sets ?? [sourceCourseIds],
      targetChoice: input.targetChoice ?? "all",
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
      source: (index, set = 0) =>
        sets
          ? `/sourceCourseSets/${set}/${index}`
          : input.sourceCourseIds
            ? `/sourceCourseIds/${index}`
            : "/sourceCourseId",
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
  if (patch.sourceCourseSets && patch.sourceCourseSets[0].join(" ") !== current.sourceCourseIds.join(" "))
    throw ValidationError.single(
      "/sourceCourseSets/0",
      `must be the rule's sourceCourseIds as stored (${current.sourceCourseIds.join(", ")}): they are its identity; a rule of other courses is a new rule`,
    );
  return {
    draft: {
      sourceCourseIds: current.sourceCourseIds,
      sourceCourseSets: patch.sourceCourseSets ?? (current.sourceCourseSets as string[][]),
      targetChoice: pick("targetChoice", current.targetChoice)!,
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
      source: (index, set = 0) => (patch.sourceCourseSets ? `/sourceCourseSets/${set}/${index}` : "/sourceCourseIds"),
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
function ruleColumns(draft: RuleDraft, resolved: ResolvedRule) {
  const [first] = resolved.targets;
  return {
    sourceCourseId: draft.sourceCourseIds[0],
    sourceCourseIds: draft.sourceCourseIds,
    sourceSetKey: sourceSetKey(draft.sourceCourseIds),
    sourceCourseSets: draft.sourceCourseSets,
    // Derived again by the database on write (trigger equivalencies_source_sets), to the same values.
    sourceSetKeys: draft.sourceCourseSets.map(sourceSetKey),
    anySetCourseIds: [...new Set(draft.sourceCourseSets.flat())],
    targetChoice: draft.targetChoice,
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

/** The equivalency a create request makes (not yet stored), or the 4xx problem that refuses it. */
export async function decideCreate(
  lookups: RuleLookups,
  caller: Credential,
  input: EquivalencyCreate,
  now: () => Date,
) {
  const environment = caller.environment;
  const { draft, pointers } = createDraft(input);
  const resolved = await resolveRule(lookups, environment, draft, pointers);
  await lookups.assertSteward(input.targetInstitutionId, "/targetInstitutionId");
  const rule = ruleColumns(draft, resolved);
  const status = input.status ?? "pending";
  // An accepted rule is checked for ambiguity first, so that the very rule already accepted is a
  // duplicate-rule rather than the generic conflict of an existing identity.
  if (status === "accepted")
    await assertUnambiguous(
      { targetInstitutionId: input.targetInstitutionId, ...rule },
      await lookups.acceptedOverlapping({ targetInstitutionId: input.targetInstitutionId, ...rule }, null),
      lookups.coursesByCode,
    );
  await assertNoDuplicate(lookups, {
    sourceCourseId: rule.sourceCourseId,
    targetInstitutionId: input.targetInstitutionId,
    targetKey: rule.targetKey,
  });
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
    inLatestDataset: false,
    organizationId: caller.organizationId,
    createdAt: at,
    updatedAt: at,
  } satisfies Equivalency;
  return { record, resolved };
}

/** What a PATCH of `current` changes (the next version's columns and the fields it names), or nothing. */
export type UpdateDecision = { changed: false } | { changed: true; change: EquivalencyChange; changedFields: string[] };

/** The change a PATCH makes to `current` (read under its row lock), or the 4xx problem that refuses it. */
export async function decideUpdate(
  lookups: RuleLookups,
  environment: Environment,
  current: Equivalency,
  patch: EquivalencyUpdate,
  now: Date,
): Promise<UpdateDecision> {
  const { draft, pointers } = updateDraft(current, patch);
  const resolved = await resolveRule(lookups, environment, draft, pointers);
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
  if (!changed.length) return { changed: false };
  const status = next.status;
  if (status !== current.status && !TRANSITIONS[current.status].includes(status)) {
    throw new InvalidTransitionError(current.status, status, TRANSITIONS[current.status]);
  }
  if (status === "accepted" && changed.some((field) => !NOT_RULE.has(field))) {
    const checked = { ...current, ...rule };
    await assertUnambiguous(checked, await lookups.acceptedOverlapping(checked, current.id), lookups.coursesByCode);
  }
  if (rule.targetKey !== current.targetKey) {
    await assertNoDuplicate(
      lookups,
      {
        sourceCourseId: current.sourceCourseId,
        targetInstitutionId: current.targetInstitutionId,
        targetKey: rule.targetKey,
      },
      current.id,
    );
  }
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
  return { changed: true, change, changedFields };
}
