// Equivalencies: decisions that a source course transfers to a target
// institution (as a course or a code), with an immutable version history.
import type { Equivalency } from "../../generated/prisma/client.ts";
import type { EquivalencyStatus, Environment, Page, PageResult } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import type { Repositories, TransactionRepositories } from "../repositories/index.ts";
import type { EquivalencyFilters, EquivalencyChange, ExpandedEquivalency } from "../repositories/equivalencies.ts";
import {
  ConflictError,
  InvalidTransitionError,
  notFound,
  PreconditionFailedError,
  ValidationError,
  type FieldError,
} from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { assertSteward } from "./stewardship.ts";
import { createEquivalencyVersionsService } from "./equivalency-versions.ts";
import {
  BLANK_CODE,
  courseView,
  equivalencyTargetKey,
  equivalencyView,
  institutionView,
  isBlankCode,
  type EquivalencyView,
} from "../views/catalog.ts";

export type { EquivalencyFilters } from "../repositories/equivalencies.ts";

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

export const TRANSITIONS: Readonly<Record<EquivalencyStatus, readonly EquivalencyStatus[]>> = {
  pending: ["accepted", "conflict"],
  conflict: ["pending", "accepted"],
  accepted: ["conflict"],
};

export function expandedView(record: ExpandedEquivalency) {
  return {
    ...equivalencyView(record),
    sourceCourse: { ...courseView(record.sourceCourse), institution: institutionView(record.sourceCourse.institution) },
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

interface ResolvedTarget {
  targetCourseId: string | null;
  targetCode: string | null;
  targetCourseCode: string | null;
}

type Writes = Pick<TransactionRepositories, "equivalencies" | "outbox" | "stewardship">;

/** Checks that the references exist in the environment and fit together. */
async function resolveReferences(
  { equivalencies }: Pick<Writes, "equivalencies">,
  environment: Environment,
  input: {
    sourceCourseId?: string;
    targetInstitutionId: string;
    targetCourseId: string | null;
    targetCode: string | null;
  },
) {
  const errors: FieldError[] = [];
  // An empty string is an id like any other (of no record), not an absent one.
  const { source, institution, targetCourse } = await equivalencies.findReferences(environment, input);
  if (input.targetCode !== null && isBlankCode(input.targetCode))
    errors.push({ pointer: "/targetCode", message: BLANK_CODE });
  if (input.sourceCourseId !== undefined && !source)
    errors.push({
      pointer: "/sourceCourseId",
      message: `no course "${input.sourceCourseId}" in the ${environment} environment`,
    });
  if (!institution)
    errors.push({
      pointer: "/targetInstitutionId",
      message: `no institution "${input.targetInstitutionId}" in the ${environment} environment`,
    });
  if (input.targetCourseId !== null && !targetCourse) {
    errors.push({
      pointer: "/targetCourseId",
      message: `no course "${input.targetCourseId}" in the ${environment} environment`,
    });
  } else if (targetCourse && targetCourse.institutionId !== input.targetInstitutionId) {
    errors.push({
      pointer: "/targetCourseId",
      message: `the course belongs to ${targetCourse.institutionId}, not to the target institution ${input.targetInstitutionId}`,
    });
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

const UPDATABLE = ["status", "targetCourseId", "targetCode", "decidedBy", "policyBasis"] as const;
const MAX_ATTEMPTS = 5;

async function tryUpdate(
  writes: Writes,
  caller: Credential,
  id: string,
  patch: EquivalencyUpdate,
  ifMatch: string | undefined,
  now: Date,
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
  const next = Object.fromEntries(
    UPDATABLE.map((field) => [field, patch[field] === undefined ? current[field] : patch[field]]),
  ) as Pick<Equivalency, (typeof UPDATABLE)[number]>;
  if (patch.targetCourseId !== undefined && patch.targetCourseId !== current.targetCourseId) {
    const { target } = await resolveReferences(writes, environment, {
      targetInstitutionId: current.targetInstitutionId,
      targetCourseId: patch.targetCourseId,
      targetCode: patch.targetCode === undefined ? null : patch.targetCode,
    });
    if (patch.targetCode === undefined) next.targetCode = target.targetCode ?? current.targetCode;
  }
  const changed = UPDATABLE.filter((field) => next[field] !== current[field]);
  if (!changed.length) {
    const unchanged = await equivalencies.findExpandedWritten(id);
    return { view: expandedView(unchanged), etag, changed: false };
  }
  const status = next.status;
  if (status !== current.status && !TRANSITIONS[current.status].includes(status)) {
    throw new InvalidTransitionError(current.status, status, TRANSITIONS[current.status]);
  }
  const targetKey = equivalencyTargetKey(next.targetCourseId, next.targetCode);
  if (targetKey !== current.targetKey) {
    await assertNoDuplicate(
      writes,
      environment,
      { sourceCourseId: current.sourceCourseId, targetInstitutionId: current.targetInstitutionId, targetKey },
      id,
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
    targetKey,
    version: current.version + 1,
    updatedAt: now,
  };
  if (!(await equivalencies.updateIfVersion(id, current.version, change))) return "lost-race" as const;

  const updated = await equivalencies.findExpandedWritten(id);
  await equivalencies.insertVersion({
    id: newId("eqv"),
    equivalencyId: id,
    version: updated.version,
    state: equivalencyView(updated),
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
      },
    },
  ]);
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
      const decide = async (writes: Pick<Writes, "equivalencies" | "stewardship">) => {
        const { source, institution, target } = await resolveReferences(writes, environment, {
          sourceCourseId: input.sourceCourseId,
          targetInstitutionId: input.targetInstitutionId,
          targetCourseId: input.targetCourseId ?? null,
          targetCode: input.targetCode ?? null,
        });
        await assertSteward(writes.stewardship, caller, [
          { institutionId: input.targetInstitutionId, pointer: "/targetInstitutionId" },
        ]);
        const targetKey = equivalencyTargetKey(target.targetCourseId, target.targetCode);
        await assertNoDuplicate(writes, environment, {
          sourceCourseId: input.sourceCourseId,
          targetInstitutionId: input.targetInstitutionId,
          targetKey,
        });
        const status = input.status ?? "pending";
        const at = now();
        const record = {
          id: newId("eq"),
          environment,
          sourceCourseId: input.sourceCourseId,
          targetInstitutionId: input.targetInstitutionId,
          targetCourseId: target.targetCourseId,
          targetCode: target.targetCode,
          targetKey,
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
        return { record, source: source!, institution, target };
      };
      if (options.dryRun) {
        const { record } = await decide({ equivalencies, stewardship });
        return {
          kind: "preview" as const,
          preview: { ...equivalencyView(record), id: null, createdAt: null, updatedAt: null },
        };
      }
      const created = await transaction(async (writes) => {
        const { record, source, institution, target } = await decide(writes);
        await writes.equivalencies.insert(record);
        await writes.equivalencies.insertVersion({
          id: newId("eqv"),
          equivalencyId: record.id,
          version: 1,
          state: equivalencyView(record),
          changeNote: null,
          changedFields: [],
          ...actorOf(caller),
          recordedAt: record.createdAt,
        });
        await writes.outbox.recordEvents(environment, [
          {
            type: "equivalency.created",
            data: {
              equivalencyId: record.id,
              status: record.status,
              sourceCourse: { institution: source.institution.name, code: source.code },
              target: { institution: institution.name, code: target.targetCode },
              ...(record.policyBasis ? { policyBasis: record.policyBasis } : {}),
            },
          },
        ]);
        const written = await writes.equivalencies.findExpandedWritten(record.id);
        const created: CreatedEquivalency = { kind: "created", view: expandedView(written), etag: etagOf(written) };
        await options.beforeCommit?.(writes, created);
        return created;
      });
      equivalencies.forgetTotals();
      return created;
    },

    /** Retries a write that lost a race to a concurrent one, unless If-Match pinned the version it was meant for. */
    async updateEquivalency(caller: Credential, id: string, patch: EquivalencyUpdate, ifMatch?: string) {
      if (typeof patch.targetCode === "string" && isBlankCode(patch.targetCode))
        throw ValidationError.single("/targetCode", BLANK_CODE);
      for (let attempt = 1; ; attempt++) {
        const outcome = await transaction((writes) => tryUpdate(writes, caller, id, patch, ifMatch, now()));
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
