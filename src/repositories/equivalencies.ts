// Equivalencies and their immutable versions: every query of the equivalencies
// and equivalency_versions tables. Built over the client or over a transaction
// (createEquivalenciesRepository(tx)), so a write's statements run in the
// service's transaction.
import type { Course, Equivalency, EquivalencyVersion, Institution, Prisma } from "../../generated/prisma/client.ts";
import type { Database, Db } from "../db/database.ts";
import type { Channel, Environment, EquivalencyStatus, RuleKind } from "../../generated/prisma/client.ts";
import { InvalidCursorError } from "../kernel/errors.ts";
import { columnsOf, recordFromJson } from "./record-columns.ts";
import {
  checkKey,
  pageFromRows,
  pageOf,
  pageQuery,
  type KeyValue,
  type Order,
  type Page,
  type PageResult,
} from "./paging.ts";
import { ListTotals } from "./totals.ts";
import { DATASET_VERSION_ID, withDatasetVersionIds } from "./dataset-heads.ts";

export interface EquivalencyFilters {
  sourceCourse?: string;
  targetInstitution?: string;
  /** An institution id: the rules whose (first) source course is one of its courses. */
  sourceInstitution?: string;
  status?: EquivalencyStatus;
  provenance?: Channel;
  /** Only equivalencies changed at or after this time (date-time text). */
  updatedSince?: string;
  kind?: RuleKind;
  /** A calendar date `YYYY-MM-DD`: the rules in force that day. */
  asOf?: string;
}

const EXPANSION = {
  sourceCourse: { include: { institution: true } },
  targetInstitution: true,
  targetCourse: true,
} as const satisfies Prisma.EquivalencyInclude;

type SourceCourse = Course & { institution: Institution };

/** An equivalency with its source courses (each with its institution), target institution and target course. */
export type ExpandedEquivalency = Prisma.EquivalencyGetPayload<{ include: typeof EXPANSION }> & {
  sourceCourses: SourceCourse[];
  /** The courses of every source course set, set by set. */
  sourceCourseSetCourses: SourceCourse[][];
};

/** The records a rule write names, by id; an id that is not in the environment is absent. */
export interface RuleReferences {
  sources: Map<string, SourceCourse>;
  institution: Institution | null;
  targetCourses: Map<string, Course>;
}

/** The rule columns compared by the ambiguity check. */
export type OverlappingRule = Pick<
  Equivalency,
  "id" | "kind" | "generalEducationArea" | "targets" | "minimumGrade" | "awardedCredits" | "targetChoice"
>;

/** The changeable columns of an equivalency, written together with its next version number. */
export type EquivalencyChange = Pick<
  Equivalency,
  | "status"
  | "targetCourseId"
  | "targetCode"
  | "targetKey"
  | "decidedBy"
  | "decidedAt"
  | "policyBasis"
  | "version"
  | "updatedAt"
  | "targets"
  | "kind"
  | "generalEducationArea"
  | "minimumGrade"
  | "effectiveFrom"
  | "effectiveUntil"
  | "priority"
  | "awardedCredits"
  | "awardedCreditUnit"
  | "sourceCourseSets"
  | "targetChoice"
>;

export type NewEquivalencyVersion = Omit<EquivalencyVersion, "state"> & { state: Prisma.InputJsonValue };

/** Totals of large lists are reused briefly (see totals.ts); every committed write forgets them (forgetTotals). */
const equivalencyTotals = new ListTotals();

type RowJson = Record<string, unknown> | null;

interface RenderedRows {
  items: string;
  rows: number;
  lastCreatedAt: string | null;
  lastId: string | null;
}

/** The list order, served by the indexes (environment, created_at, id) and (environment, status, created_at, id). */
const LIST_ORDER: Order = [
  ["createdAt", "asc"],
  ["id", "asc"],
];

/**
 * The API representation of one equivalency with its relations (expandedView), rendered by the
 * function of the migration "api_json" (a PL/pgSQL function: its plan is kept per database session,
 * where a statement sent each time is planned each time).
 */
const RENDERED_BY_ID = `SELECT version, representation FROM "equivalency_expanded_api_json"($1, $2::"Environment")`;

/** An equivalency as the API shows it, rendered by the database (migration "api_json"), and its version. */
export interface RenderedEquivalency {
  version: number;
  /** The JSON text of expandedView(record). */
  representation: string;
}

/** A page of a list rendered by the database: the JSON array text of its items, and what paging needs. */
export interface RenderedPage {
  /** The JSON text of the page's items, an array. */
  items: string;
  returned: number;
  total: number;
  next: KeyValue[] | null;
}

/**
 * `read` (Database.statement) serves the read by id straight from the driver; inside a
 * transaction there is none, and the statement goes through the transaction's client.
 */
export function createEquivalenciesRepository(db: Prisma.TransactionClient, read?: Database["statement"]) {
  function whereOf(environment: Environment, filters: EquivalencyFilters): Prisma.EquivalencyWhereInput {
    return {
      environment,
      ...(filters.sourceCourse ? { anySetCourseIds: { has: filters.sourceCourse } } : {}),
      ...(filters.targetInstitution ? { targetInstitutionId: filters.targetInstitution } : {}),
      ...(filters.sourceInstitution ? { sourceCourse: { institutionId: filters.sourceInstitution } } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.provenance ? { provenance: filters.provenance } : {}),
      ...(filters.updatedSince ? { updatedAt: { gte: new Date(filters.updatedSince) } } : {}),
      ...(filters.kind ? { kind: filters.kind } : {}),
      ...(filters.asOf
        ? {
            AND: [
              { OR: [{ effectiveFrom: null }, { effectiveFrom: { lte: dayOf(filters.asOf) } }] },
              { OR: [{ effectiveUntil: null }, { effectiveUntil: { gte: dayOf(filters.asOf) } }] },
            ],
          }
        : {}),
    };
  }

  /**
   * Every source course of the rows, each with its institution: in the order of its rule's
   * sourceCourseIds, and set by set for its sourceCourseSets; and each row's datasetVersionId as
   * the API shows it (withDatasetVersionIds).
   */
  async function withSources<Row extends Equivalency>(
    stored: Row[],
  ): Promise<(Row & { sourceCourses: SourceCourse[]; sourceCourseSetCourses: SourceCourse[][] })[]> {
    const rows = await withDatasetVersionIds(db, stored);
    const ids = [...new Set(rows.flatMap((row) => row.anySetCourseIds.concat(row.sourceCourseIds)))];
    const courses = ids.length
      ? await db.course.findMany({ where: { id: { in: ids } }, include: { institution: true } })
      : [];
    const byId = new Map(courses.map((course) => [course.id, course]));
    const known = (list: readonly string[]) => list.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    return rows.map((row) => ({
      ...row,
      sourceCourses: known(row.sourceCourseIds),
      sourceCourseSetCourses: (row.sourceCourseSets as string[][]).map(known),
    }));
  }

  function totalOf(where: Prisma.EquivalencyWhereInput): Promise<number> {
    return equivalencyTotals.total(db as Db, JSON.stringify(where), () => db.equivalency.count({ where }));
  }

  /**
   * One page in list order (and the row after it, see pageQuery), as one JSON
   * text. The page's ids are found first, from the list-order indexes alone,
   * and only those rows are read: at a deep offset the skipped rows are then
   * index entries, not table rows. After a cursor, the row comparison
   * (created_at, id) > (…) starts the index scan at the cursor's key.
   */
  /** The SQL conditions and parameters of a page's ids ($1 environment, $2 limit + 1, $3 offset). */
  function pageConditions(environment: Environment, filters: EquivalencyFilters, page: Page) {
    const conditions = [`environment = $1::"Environment"`];
    const params: unknown[] = [environment, page.limit + 1, page.offset];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      params.push(value);
      conditions.push(condition(`$${params.length}`));
    };
    if (filters.sourceCourse) add((p) => `any_set_course_ids @> ARRAY[${p}]::text[]`, filters.sourceCourse);
    if (filters.targetInstitution) add((p) => `target_institution_id = ${p}`, filters.targetInstitution);
    if (filters.sourceInstitution)
      add(
        (p) =>
          `source_course_id IN (SELECT id FROM courses WHERE environment = $1::"Environment" AND institution_id = ${p})`,
        filters.sourceInstitution,
      );
    if (filters.status) add((p) => `status = ${p}::"EquivalencyStatus"`, filters.status);
    if (filters.provenance) add((p) => `provenance = ${p}::"Channel"`, filters.provenance);
    // As UTC text: a timestamp(3) column holds UTC, and the driver would send a Date in local time.
    if (filters.updatedSince)
      add((p) => `updated_at >= ${p}::timestamp(3)`, new Date(filters.updatedSince).toISOString());
    if (filters.kind) add((p) => `kind = ${p}::"RuleKind"`, filters.kind);
    if (filters.asOf)
      add(
        (p) =>
          `(effective_from IS NULL OR effective_from <= ${p}::date) AND (effective_until IS NULL OR effective_until >= ${p}::date)`,
        filters.asOf,
      );
    if (page.after) {
      checkKey(LIST_ORDER, page.after);
      const [createdAt, id] = page.after;
      if (!(createdAt instanceof Date) || typeof id !== "string") {
        throw new InvalidCursorError("the cursor does not fit this list's order");
      }
      params.push(createdAt.toISOString(), id);
      conditions.push(`(created_at, id) > ($${params.length - 1}::timestamp(3), $${params.length})`);
    }
    return { where: conditions.join(" AND "), params };
  }

  /**
   * One page in list order (and the row after it, see pageQuery), as one JSON
   * text. The page's ids are found first, from the list-order indexes alone,
   * and only those rows are read: at a deep offset the skipped rows are then
   * index entries, not table rows. After a cursor, the row comparison
   * (created_at, id) > (…) starts the index scan at the cursor's key.
   */
  async function findPage(environment: Environment, filters: EquivalencyFilters, page: Page): Promise<Equivalency[]> {
    const { where, params } = pageConditions(environment, filters, page);
    const [row] = await db.$queryRawUnsafe<{ page: string }[]>(
      `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS page
       FROM (SELECT id FROM equivalencies WHERE ${where} ORDER BY created_at, id LIMIT $2 OFFSET $3) AS ids
       JOIN equivalencies AS e USING (id)`,
      ...params,
    );
    const columns = columnsOf(db, "Equivalency");
    return (JSON.parse(row.page) as RowJson[]).map((json) => recordFromJson<Equivalency>(json, columns)!);
  }

  /**
   * The same page as findPage, rendered as the API shows it (equivalencyView) by the database:
   * the first `limit` rows as one JSON array text, how many rows came back (one more than the
   * limit when a next page exists) and the key of the page's last row.
   */
  async function findRenderedPage(environment: Environment, filters: EquivalencyFilters, page: Page) {
    const { where, params } = pageConditions(environment, filters, page);
    const sql = `SELECT '[' || coalesce(string_agg("equivalency_api_json"(e, ${DATASET_VERSION_ID})::text, ',' ORDER BY ids.n) FILTER (WHERE ids.n < $2), '') || ']' AS items,
         count(*)::int AS rows,
         max("iso_timestamp"(e.created_at)) FILTER (WHERE ids.n = $2 - 1) AS "lastCreatedAt",
         max(e.id) FILTER (WHERE ids.n = $2 - 1) AS "lastId"
       FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
             FROM (SELECT id, created_at FROM equivalencies WHERE ${where} ORDER BY created_at, id LIMIT $2 OFFSET $3) AS page) AS ids
       JOIN equivalencies AS e USING (id)`;
    const [row] = read
      ? await read<RenderedRows>(sql, params)
      : await db.$queryRawUnsafe<RenderedRows[]>(sql, ...params);
    return row;
  }

  return {
    /** Ordered by creation time, then id. */
    async listPage(
      environment: Environment,
      filters: EquivalencyFilters,
      page: Page,
    ): Promise<PageResult<Equivalency>> {
      const [rows, total] = await Promise.all([
        findPage(environment, filters, page),
        totalOf(whereOf(environment, filters)),
      ]);
      return pageFromRows(page, LIST_ORDER, rows, total);
    },

    /** listPage rendered by the database as the API shows it (equivalencyView of each row). */
    async listRenderedPage(environment: Environment, filters: EquivalencyFilters, page: Page): Promise<RenderedPage> {
      const [row, total] = await Promise.all([
        findRenderedPage(environment, filters, page),
        totalOf(whereOf(environment, filters)),
      ]);
      const more = row.rows > page.limit;
      return {
        items: row.items,
        returned: more ? page.limit : row.rows,
        total,
        next: more && row.lastCreatedAt && row.lastId ? [new Date(row.lastCreatedAt), row.lastId] : null,
      };
    },

    /** listPage with each equivalency's related records (EXPANSION). */
    async listExpandedPage(
      environment: Environment,
      filters: EquivalencyFilters,
      page: Page,
    ): Promise<PageResult<ExpandedEquivalency>> {
      const where = whereOf(environment, filters);
      const { take, skip, orderBy, after } = pageQuery(page, LIST_ORDER);
      const [rows, total] = await Promise.all([
        db.equivalency.findMany({ where: { AND: [where, after] }, orderBy, take, skip, include: EXPANSION }),
        totalOf(where),
      ]);
      return pageFromRows(page, LIST_ORDER, await withSources(rows), total);
    },

    /** Called after every committed write that can change what a list counts. */
    forgetTotals(): void {
      equivalencyTotals.forget(db as Db);
    },

    /** The equivalency as stored, its datasetVersionId as the API shows it (withDatasetVersionIds). */
    async findById(environment: Environment, id: string): Promise<Equivalency | null> {
      const record = await db.equivalency.findFirst({ where: { id, environment } });
      return record && (await withDatasetVersionIds(db, [record]))[0];
    },

    /** Like findById, after taking the row's lock: writers of one equivalency queue on it. */
    async findByIdForUpdate(environment: Environment, id: string): Promise<Equivalency | null> {
      await db.$queryRaw`SELECT id FROM equivalencies WHERE id = ${id} FOR UPDATE`;
      return db.equivalency.findFirst({ where: { id, environment } });
    },

    /** The equivalency as GET /equivalencies/{id} answers it (expandedView), rendered by the database. */
    async findRenderedById(environment: Environment, id: string): Promise<RenderedEquivalency | null> {
      const [row] = read
        ? await read<RenderedEquivalency>(RENDERED_BY_ID, [id, environment])
        : await db.$queryRawUnsafe<RenderedEquivalency[]>(RENDERED_BY_ID, id, environment);
      return row ?? null;
    },

    /** The just-written equivalency with its related records, read in the writing transaction. */
    async findExpandedWritten(id: string): Promise<ExpandedEquivalency> {
      const [record] = await withSources([
        await db.equivalency.findUniqueOrThrow({ where: { id }, include: EXPANSION }),
      ]);
      return record;
    },

    /** The source courses (each with its institution), target institution and target courses named. */
    async findRuleReferences(
      environment: Environment,
      ids: { sourceCourseIds: string[]; targetInstitutionId: string; targetCourseIds: string[] },
    ): Promise<RuleReferences> {
      const [sources, institution, targetCourses] = await Promise.all([
        db.course.findMany({ where: { environment, id: { in: ids.sourceCourseIds } }, include: { institution: true } }),
        db.institution.findUnique({ where: { environment_id: { environment, id: ids.targetInstitutionId } } }),
        ids.targetCourseIds.length
          ? db.course.findMany({ where: { environment, id: { in: ids.targetCourseIds } } })
          : [],
      ]);
      return {
        sources: new Map(sources.map((course) => [course.id, course])),
        institution,
        targetCourses: new Map(targetCourses.map((course) => [course.id, course])),
      };
    },

    /**
     * Serialises the writers of one (environment, target institution, source set) until the
     * transaction ends, so the ambiguity check and the write that follows it see every rule a
     * concurrent writer committed (PGlite runs one transaction at a time anyway).
     */
    async lockRuleSet(environment: Environment, targetInstitutionId: string, sourceSetKey: string): Promise<void> {
      const key = ruleSetLockKey(environment, targetInstitutionId, sourceSetKey);
      await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
    },

    /** lockRuleSet for each of a rule's source course sets, in key order (so two writers never deadlock). */
    async lockRuleSets(environment: Environment, targetInstitutionId: string, sourceSetKeys: string[]): Promise<void> {
      for (const setKey of [...new Set(sourceSetKeys)].sort()) {
        const key = ruleSetLockKey(environment, targetInstitutionId, setKey);
        await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
      }
    },

    /**
     * The other accepted rules of the same target institution and priority whose dates overlap
     * these and that share one of the rule's source course sets: found through the index of each
     * rule's set keys by target institution (migration agreements_as_published).
     */
    findAcceptedOverlapping(
      environment: Environment,
      rule: {
        targetInstitutionId: string;
        sourceSetKeys: string[];
        priority: number;
        effectiveFrom: Date | null;
        effectiveUntil: Date | null;
      },
      exceptId: string | null,
    ): Promise<OverlappingRule[]> {
      return db.$queryRawUnsafe<OverlappingRule[]>(
        `SELECT id, kind::text AS kind, general_education_area AS "generalEducationArea", targets,
                minimum_grade AS "minimumGrade", awarded_credits AS "awardedCredits", target_choice::text AS "targetChoice"
         FROM equivalencies
         WHERE "equivalency_source_keys"(target_institution_id, source_set_keys) && $1::text[]
           AND status = 'accepted' AND environment = $2::"Environment" AND target_institution_id = $3
           AND priority = $4 AND ($5::text IS NULL OR id <> $5)
           AND ($6::date IS NULL OR effective_from IS NULL OR effective_from <= $6::date)
           AND ($7::date IS NULL OR effective_until IS NULL OR effective_until >= $7::date)
         ORDER BY created_at, id`,
        rule.sourceSetKeys.map((key) => `${rule.targetInstitutionId} ${key}`),
        environment,
        rule.targetInstitutionId,
        rule.priority,
        exceptId,
        rule.effectiveUntil ? calendarDay(rule.effectiveUntil) : null,
        rule.effectiveFrom ? calendarDay(rule.effectiveFrom) : null,
      );
    },

    /** The courses of an institution named by these code keys (own or cross-listed codes), by code key. */
    async findCoursesByCode(
      environment: Environment,
      institutionId: string,
      codeKeys: string[],
    ): Promise<Map<string, Course>> {
      if (!codeKeys.length) return new Map();
      const rows = await db.courseCode.findMany({
        where: { environment, institutionId, codeKey: { in: [...new Set(codeKeys)] } },
        include: { course: true },
      });
      return new Map(rows.map((row) => [row.codeKey, row.course]));
    },

    /** The id of the equivalency with this identity, if one exists. */
    async findIdByTarget(
      environment: Environment,
      key: { sourceCourseId: string; targetInstitutionId: string; targetKey: string },
    ): Promise<string | null> {
      const existing = await db.equivalency.findUnique({
        where: { environment_sourceCourseId_targetInstitutionId_targetKey: { environment, ...key } },
        select: { id: true },
      });
      return existing?.id ?? null;
    },

    /**
     * The (target institution, source set, priority) keys under which at least two accepted or
     * conflict rules overlap in time, in that order, one page of them, and how many there are. A
     * rule is under each of its alternative sets: "MATH 7 or MATH 7H" and "MATH 7H" share one.
     */
    async findOverlapKeys(
      environment: Environment,
      targetInstitution: string | undefined,
      page: { limit: number; offset: number },
    ): Promise<{ keys: OverlapKey[]; total: number }> {
      const [row] = await db.$queryRawUnsafe<{ keys: string }[]>(
        `WITH rules AS (
           SELECT id, target_institution_id, unnest(source_set_keys) AS source_set_key, priority, effective_from, effective_until
           FROM equivalencies
           WHERE environment = $1::"Environment" AND status IN ('accepted', 'conflict')
             AND ($2::text IS NULL OR target_institution_id = $2)),
         keys AS (
           SELECT DISTINCT a.target_institution_id AS "targetInstitutionId", a.source_set_key AS "sourceSetKey", a.priority
           FROM rules AS a JOIN rules AS b
             ON a.target_institution_id = b.target_institution_id AND a.source_set_key = b.source_set_key
            AND a.priority = b.priority AND a.id < b.id
            AND (a.effective_from IS NULL OR b.effective_until IS NULL OR a.effective_from <= b.effective_until)
            AND (b.effective_from IS NULL OR a.effective_until IS NULL OR b.effective_from <= a.effective_until))
         SELECT json_build_object(
           'total', (SELECT count(*) FROM keys),
           'keys', coalesce((SELECT json_agg(k) FROM (SELECT * FROM keys ORDER BY "targetInstitutionId", "sourceSetKey", priority
                     LIMIT $3 OFFSET $4) AS k), '[]'))::text AS keys`,
        environment,
        targetInstitution ?? null,
        page.limit,
        page.offset,
      );
      const { keys, total } = JSON.parse(row.keys) as { keys: OverlapKey[]; total: number };
      return { keys, total: Number(total) };
    },

    /** The accepted and conflict rules under these keys (by any of their sets), ordered by creation time, then id. */
    findRulesUnder(environment: Environment, keys: OverlapKey[]): Promise<Equivalency[]> {
      if (!keys.length) return Promise.resolve([]);
      return db.equivalency.findMany({
        where: {
          environment,
          status: { in: ["accepted", "conflict"] },
          OR: keys.map(({ targetInstitutionId, sourceSetKey, priority }) => ({
            targetInstitutionId,
            priority,
            sourceSetKeys: { has: sourceSetKey },
          })),
        },
        orderBy: LIST_ORDER.map(([field, direction]) => ({ [field]: direction })),
      });
    },

    async insert(record: Equivalency): Promise<void> {
      await db.equivalency.create({
        data: {
          ...record,
          targets: record.targets as Prisma.InputJsonValue,
          sourceCourseSets: record.sourceCourseSets as Prisma.InputJsonValue,
        },
      });
    },

    /** Writes the change only if the row is still at expectedVersion; false when another writer got there first. */
    async updateIfVersion(id: string, expectedVersion: number, change: EquivalencyChange): Promise<boolean> {
      const data = {
        ...change,
        targets: change.targets as Prisma.InputJsonValue,
        sourceCourseSets: change.sourceCourseSets as Prisma.InputJsonValue,
      };
      const { count } = await db.equivalency.updateMany({ where: { id, version: expectedVersion }, data });
      return count > 0;
    },

    async insertVersion(record: NewEquivalencyVersion): Promise<void> {
      await db.equivalencyVersion.create({ data: record });
    },

    /** A page of one equivalency's versions, newest first (the unique index on (equivalency, version) serves it). */
    listVersionsPage(equivalencyId: string, page: Page): Promise<PageResult<EquivalencyVersion>> {
      const where = { equivalencyId };
      return pageOf<EquivalencyVersion>(
        page,
        [["version", "desc"]],
        ({ take, skip, orderBy, after }) =>
          db.equivalencyVersion.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.equivalencyVersion.count({ where }),
      );
    },

    findVersion(equivalencyId: string, version: number): Promise<EquivalencyVersion | null> {
      return db.equivalencyVersion.findUnique({ where: { equivalencyId_version: { equivalencyId, version } } });
    },
  };
}

export type EquivalenciesRepository = ReturnType<typeof createEquivalenciesRepository>;

/** Rules overlap only under one (target institution, source set, priority); a rule is under each of its sets. */
export interface OverlapKey {
  targetInstitutionId: string;
  sourceSetKey: string;
  priority: number;
}

/** The advisory lock's key under which the writers of one rule set queue (imports take the same ones). */
export function ruleSetLockKey(environment: Environment, targetInstitutionId: string, sourceSetKey: string): string {
  return `rule:${environment}:${targetInstitutionId}:${sourceSetKey}`;
}

/** A date column's value (midnight UTC) as the calendar date `YYYY-MM-DD`. */
function calendarDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A calendar date `YYYY-MM-DD` as the value of a date column (midnight UTC). */
export function dayOf(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}
