// Equivalencies: decisions that a source course transfers to a target
// institution (as a course or a code), with an immutable version history.
import type { Equivalency, Prisma } from "../../generated/prisma/client.ts";
import type { Db, Environment, EquivalencyStatus, Channel, Page, PageResult } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import { ConflictError, InvalidTransitionError, NotFoundError, PreconditionFailedError, ValidationError, type FieldError } from "../errors.ts";
import { newId } from "../ids.ts";
import { recordEvents } from "./outbox.ts";
import { assertSteward } from "./stewardship.ts";
import { ListTotals } from "./totals.ts";
import { COURSE_COLUMNS, EQUIVALENCY_COLUMNS, INSTITUTION_COLUMNS, recordFromJson } from "./record-columns.ts";
import { BLANK_CODE, courseView, equivalencyTargetKey, equivalencyView, institutionView, isBlankCode, type EquivalencyView } from "./views.ts";

export interface EquivalencyCreate {
  sourceCourseId: string;
  targetInstitutionId: string;
  targetCourseId?: string;
  targetCode?: string;
  status?: EquivalencyStatus;
  decidedBy?: string;
  policyBasis?: string;
}

export interface EquivalencyUpdate {
  status?: EquivalencyStatus;
  targetCourseId?: string | null;
  targetCode?: string | null;
  decidedBy?: string | null;
  policyBasis?: string | null;
  note?: string;
}

export interface EquivalencyFilters {
  sourceCourse?: string;
  targetInstitution?: string;
  status?: EquivalencyStatus;
  provenance?: Channel;
}

export const TRANSITIONS: Readonly<Record<EquivalencyStatus, readonly EquivalencyStatus[]>> = {
  pending: ["accepted", "conflict"],
  conflict: ["pending", "accepted"],
  accepted: ["conflict"],
};

const EXPANSION = {
  sourceCourse: { include: { institution: true } },
  targetInstitution: true,
  targetCourse: true,
} as const satisfies Prisma.EquivalencyInclude;

type ExpandedRecord = Prisma.EquivalencyGetPayload<{ include: typeof EXPANSION }>;

export function expandedView(record: ExpandedRecord) {
  return {
    ...equivalencyView(record),
    sourceCourse: { ...courseView(record.sourceCourse), institution: institutionView(record.sourceCourse.institution) },
    targetInstitution: institutionView(record.targetInstitution),
    targetCourse: record.targetCourse ? courseView(record.targetCourse) : null,
  };
}

export function etagOf(record: Pick<Equivalency, "id" | "version">): string {
  return `"${record.id}.v${record.version}"`;
}

/** RFC 9110 If-Match: "*", or a list of (possibly weak) entity tags. */
export function ifMatchSatisfied(header: string, etag: string): boolean {
  const tags = header.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  return tags.includes("*") || tags.includes(etag);
}

/** Totals of large lists are reused briefly (see totals.ts); every write here forgets them. */
export const equivalencyTotals = new ListTotals();

/** Ordered by creation time, then id. */
export async function listEquivalencies(
  db: Db,
  environment: Environment,
  filters: EquivalencyFilters,
  page: Page,
  expand: boolean,
): Promise<PageResult<EquivalencyView | ReturnType<typeof expandedView>>> {
  const where: Prisma.EquivalencyWhereInput = {
    environment,
    ...(filters.sourceCourse ? { sourceCourseId: filters.sourceCourse } : {}),
    ...(filters.targetInstitution ? { targetInstitutionId: filters.targetInstitution } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.provenance ? { provenance: filters.provenance } : {}),
  };
  const query = { where, orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }], take: page.limit, skip: page.offset };
  const [items, total] = await Promise.all([
    expand
      ? db.equivalency.findMany({ ...query, include: EXPANSION }).then((rows) => rows.map(expandedView))
      : findPage(db, environment, filters, page).then((rows) => rows.map(equivalencyView)),
    equivalencyTotals.total(db, JSON.stringify(where), () => db.equivalency.count({ where })),
  ]);
  return { items, total };
}

type RowJson = Record<string, unknown> | null;

/**
 * One page in list order, as one JSON text. The page's ids are found first,
 * from the list-order indexes alone, and only those rows are read: at a deep
 * offset the skipped rows are then index entries, not table rows.
 */
async function findPage(db: Db, environment: Environment, filters: EquivalencyFilters, page: Page): Promise<Equivalency[]> {
  const conditions = [`environment = $1::"Environment"`];
  const params: unknown[] = [environment, page.limit, page.offset];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filters.sourceCourse) add((p) => `source_course_id = ${p}`, filters.sourceCourse);
  if (filters.targetInstitution) add((p) => `target_institution_id = ${p}`, filters.targetInstitution);
  if (filters.status) add((p) => `status = ${p}::"EquivalencyStatus"`, filters.status);
  if (filters.provenance) add((p) => `provenance = ${p}::"Channel"`, filters.provenance);
  const [row] = await db.$queryRawUnsafe<{ page: string }[]>(
    `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS page
     FROM (SELECT id FROM equivalencies WHERE ${conditions.join(" AND ")} ORDER BY created_at, id LIMIT $2 OFFSET $3) AS ids
     JOIN equivalencies AS e USING (id)`,
    ...params,
  );
  return (JSON.parse(row.page) as RowJson[]).map((json) => recordFromJson(json, EQUIVALENCY_COLUMNS)!);
}

/**
 * The equivalency and every record EXPANSION includes, as one JSON text, from
 * the function the migration "equivalency_read_function" defines (its plan is
 * kept per database session, where a statement sent each time is planned each time).
 */
const EXPANDED_BY_ID = `SELECT "equivalency_expanded_json"($1, $2::"Environment") AS record`;

async function findExpanded(db: Db, environment: Environment, id: string): Promise<ExpandedRecord | null> {
  const [row] = await db.$queryRawUnsafe<{ record: string | null }[]>(EXPANDED_BY_ID, id, environment);
  if (!row?.record) return null;
  const [equivalency, sourceCourse, sourceInstitution, targetInstitution, targetCourse] = JSON.parse(row.record) as RowJson[];
  return {
    ...recordFromJson(equivalency, EQUIVALENCY_COLUMNS)!,
    sourceCourse: { ...recordFromJson(sourceCourse, COURSE_COLUMNS)!, institution: recordFromJson(sourceInstitution, INSTITUTION_COLUMNS)! },
    targetInstitution: recordFromJson(targetInstitution, INSTITUTION_COLUMNS)!,
    targetCourse: recordFromJson(targetCourse, COURSE_COLUMNS),
  };
}

export async function getEquivalency(db: Db, environment: Environment, id: string) {
  const record = await findExpanded(db, environment, id);
  if (!record) throw new NotFoundError(`No equivalency with id "${id}" in the ${environment} environment.`);
  return { view: expandedView(record), etag: etagOf(record) };
}

interface ResolvedTarget {
  targetCourseId: string | null;
  targetCode: string | null;
  targetCourseCode: string | null;
}

/** Checks that the references exist in the environment and fit together. */
async function resolveReferences(
  db: Prisma.TransactionClient,
  environment: Environment,
  input: { sourceCourseId?: string; targetInstitutionId: string; targetCourseId: string | null; targetCode: string | null },
) {
  const errors: FieldError[] = [];
  // An empty string is an id like any other (of no record), not an absent one.
  const [source, institution, targetCourse] = await Promise.all([
    input.sourceCourseId !== undefined ? db.course.findFirst({ where: { id: input.sourceCourseId, environment }, include: { institution: true } }) : null,
    db.institution.findUnique({ where: { environment_id: { environment, id: input.targetInstitutionId } } }),
    input.targetCourseId !== null ? db.course.findFirst({ where: { id: input.targetCourseId, environment } }) : null,
  ]);
  if (input.targetCode !== null && isBlankCode(input.targetCode)) errors.push({ pointer: "/targetCode", message: BLANK_CODE });
  if (input.sourceCourseId !== undefined && !source) errors.push({ pointer: "/sourceCourseId", message: `no course "${input.sourceCourseId}" in the ${environment} environment` });
  if (!institution) errors.push({ pointer: "/targetInstitutionId", message: `no institution "${input.targetInstitutionId}" in the ${environment} environment` });
  if (input.targetCourseId !== null && !targetCourse) {
    errors.push({ pointer: "/targetCourseId", message: `no course "${input.targetCourseId}" in the ${environment} environment` });
  } else if (targetCourse && targetCourse.institutionId !== input.targetInstitutionId) {
    errors.push({ pointer: "/targetCourseId", message: `the course belongs to ${targetCourse.institutionId}, not to the target institution ${input.targetInstitutionId}` });
  }
  if (errors.length) throw ValidationError.of(errors, "The equivalency refers to records that do not fit.");
  const target: ResolvedTarget = {
    targetCourseId: targetCourse?.id ?? null,
    targetCode: input.targetCode ?? targetCourse?.code ?? null,
    targetCourseCode: targetCourse?.code ?? null,
  };
  return { source, institution: institution!, target };
}

async function assertNoDuplicate(
  db: Prisma.TransactionClient,
  environment: Environment,
  key: { sourceCourseId: string; targetInstitutionId: string; targetKey: string },
  exceptId?: string,
) {
  const existing = await db.equivalency.findUnique({
    where: { environment_sourceCourseId_targetInstitutionId_targetKey: { environment, ...key } },
    select: { id: true },
  });
  if (existing && existing.id !== exceptId) {
    throw new ConflictError(`An equivalency for this source course and target already exists: ${existing.id}.`, existing.id);
  }
}

function actorOf(credential: Credential) {
  return { actorCredentialId: credential.id, actorOrganizationId: credential.organizationId, actorKind: credential.kind };
}

export async function createEquivalency(db: Db, credential: Credential, input: EquivalencyCreate, options: { dryRun?: boolean } = {}) {
  const environment = credential.environment;
  const run = async (tx: Prisma.TransactionClient) => {
    const { source, institution, target } = await resolveReferences(tx, environment, {
      sourceCourseId: input.sourceCourseId,
      targetInstitutionId: input.targetInstitutionId,
      targetCourseId: input.targetCourseId ?? null,
      targetCode: input.targetCode ?? null,
    });
    await assertSteward(tx, credential, [{ institutionId: input.targetInstitutionId, pointer: "/targetInstitutionId" }]);
    const targetKey = equivalencyTargetKey(target.targetCourseId, target.targetCode);
    await assertNoDuplicate(tx, environment, { sourceCourseId: input.sourceCourseId, targetInstitutionId: input.targetInstitutionId, targetKey });
    const status = input.status ?? "pending";
    const now = new Date();
    const data = {
      id: newId("eq"),
      environment,
      sourceCourseId: input.sourceCourseId,
      targetInstitutionId: input.targetInstitutionId,
      targetCourseId: target.targetCourseId,
      targetCode: target.targetCode,
      targetKey,
      status,
      decidedBy: input.decidedBy ?? null,
      decidedAt: status === "pending" ? null : now,
      policyBasis: input.policyBasis ?? null,
      version: 1,
      provenance: credential.channel,
      datasetVersionId: null,
      organizationId: credential.organizationId,
      createdAt: now,
      updatedAt: now,
    } satisfies Equivalency;
    if (options.dryRun) return { kind: "preview" as const, preview: { ...equivalencyView(data), id: null, createdAt: null, updatedAt: null } };

    await tx.equivalency.create({ data });
    await tx.equivalencyVersion.create({
      data: { id: newId("eqv"), equivalencyId: data.id, version: 1, state: equivalencyView(data), changedFields: [], ...actorOf(credential), recordedAt: now },
    });
    await recordEvents(tx, environment, [
      {
        type: "equivalency.created",
        data: {
          equivalencyId: data.id,
          status,
          sourceCourse: { institution: source!.institution.name, code: source!.code },
          target: { institution: institution.name, code: target.targetCode },
          ...(data.policyBasis ? { policyBasis: data.policyBasis } : {}),
        },
      },
    ]);
    const created = await tx.equivalency.findUniqueOrThrow({ where: { id: data.id }, include: EXPANSION });
    return { kind: "created" as const, view: expandedView(created), etag: etagOf(created) };
  };
  if (options.dryRun) return run(db);
  const created = await db.$transaction(run);
  equivalencyTotals.forget(db);
  return created;
}

const UPDATABLE = ["status", "targetCourseId", "targetCode", "decidedBy", "policyBasis"] as const;
const MAX_ATTEMPTS = 5;

export async function updateEquivalency(db: Db, credential: Credential, id: string, patch: EquivalencyUpdate, ifMatch?: string) {
  if (typeof patch.targetCode === "string" && isBlankCode(patch.targetCode)) throw ValidationError.single("/targetCode", BLANK_CODE);
  for (let attempt = 1; ; attempt++) {
    const outcome = await db.$transaction((tx) => tryUpdate(tx, credential, id, patch, ifMatch));
    if (outcome !== "lost-race") {
      if (outcome.changed) equivalencyTotals.forget(db);
      return outcome;
    }
    // Someone else wrote a version between our read and our write.
    if (ifMatch !== undefined) throw new PreconditionFailedError(`The equivalency changed since the ETag in If-Match was issued.`);
    if (attempt >= MAX_ATTEMPTS) throw new ConflictError("The equivalency is being changed concurrently; retry the request.");
  }
}

async function tryUpdate(tx: Prisma.TransactionClient, credential: Credential, id: string, patch: EquivalencyUpdate, ifMatch?: string) {
  const environment = credential.environment;
  // Writers of one equivalency queue on its row lock, so each reads the version
  // the previous one committed (PGlite serialises transactions anyway).
  await tx.$queryRaw`SELECT id FROM equivalencies WHERE id = ${id} FOR UPDATE`;
  const current = await tx.equivalency.findFirst({ where: { id, environment } });
  if (!current) throw new NotFoundError(`No equivalency with id "${id}" in the ${environment} environment.`);
  await assertSteward(tx, credential, [{ institutionId: current.targetInstitutionId }]);
  const etag = etagOf(current);
  if (ifMatch !== undefined && !ifMatchSatisfied(ifMatch, etag)) {
    throw new PreconditionFailedError(`If-Match ${ifMatch} does not match the current ETag ${etag}.`);
  }
  const next: Record<(typeof UPDATABLE)[number], unknown> = Object.fromEntries(
    UPDATABLE.map((field) => [field, patch[field] === undefined ? current[field] : patch[field]]),
  ) as never;
  if (patch.targetCourseId !== undefined && patch.targetCourseId !== current.targetCourseId) {
    const { target } = await resolveReferences(tx, environment, {
      targetInstitutionId: current.targetInstitutionId,
      targetCourseId: patch.targetCourseId,
      targetCode: patch.targetCode === undefined ? null : patch.targetCode,
    });
    if (patch.targetCode === undefined) next.targetCode = target.targetCode ?? current.targetCode;
  }
  const changed = UPDATABLE.filter((field) => next[field] !== current[field]);
  if (!changed.length) {
    const unchanged = await tx.equivalency.findUniqueOrThrow({ where: { id }, include: EXPANSION });
    return { view: expandedView(unchanged), etag, changed: false };
  }
  const status = next.status as EquivalencyStatus;
  if (status !== current.status && !TRANSITIONS[current.status].includes(status)) {
    throw new InvalidTransitionError(current.status, status, TRANSITIONS[current.status]);
  }
  const targetKey = equivalencyTargetKey(next.targetCourseId as string | null, next.targetCode as string | null);
  if (targetKey !== current.targetKey) {
    await assertNoDuplicate(tx, environment, { sourceCourseId: current.sourceCourseId, targetInstitutionId: current.targetInstitutionId, targetKey }, id);
  }
  const now = new Date();
  const changedFields: string[] = [...changed];
  const data: Prisma.EquivalencyUpdateManyMutationInput = { ...next, status, targetKey, version: current.version + 1, updatedAt: now } as never;
  if (status !== current.status) {
    data.decidedAt = status === "pending" ? null : now;
    if ((current.decidedAt === null) !== (data.decidedAt === null) || status !== "pending") changedFields.push("decidedAt");
  }
  const { count } = await tx.equivalency.updateMany({ where: { id, version: current.version }, data });
  if (count === 0) return "lost-race" as const;

  const updated = await tx.equivalency.findUniqueOrThrow({ where: { id }, include: EXPANSION });
  await tx.equivalencyVersion.create({
    data: {
      id: newId("eqv"),
      equivalencyId: id,
      version: updated.version,
      state: equivalencyView(updated),
      changeNote: patch.note ?? null,
      changedFields,
      ...actorOf(credential),
      recordedAt: now,
    },
  });
  await recordEvents(tx, environment, [
    {
      type: "equivalency.updated",
      data: { equivalencyId: id, version: updated.version, previousStatus: current.status, status: updated.status, changedFields },
    },
  ]);
  return { view: expandedView(updated), etag: etagOf(updated), changed: true };
}
