// Equivalencies and their immutable versions: every query of the equivalencies
// and equivalency_versions tables. Built over the client or over a transaction
// (createEquivalenciesRepository(tx)), so a write's statements run in the
// service's transaction.
import type { Course, Equivalency, EquivalencyVersion, Institution, Prisma } from "../../generated/prisma/client.ts";
import type { Database, Db } from "../db/database.ts";
import type { Channel, Environment, EquivalencyStatus } from "../../generated/prisma/client.ts";
import { InvalidCursorError } from "../kernel/errors.ts";
import { columnsOf, recordFromJson } from "./record-columns.ts";
import { checkKey, pageFromRows, pageOf, pageQuery, type Order, type Page, type PageResult } from "./paging.ts";
import { ListTotals } from "./totals.ts";

export interface EquivalencyFilters {
  sourceCourse?: string;
  targetInstitution?: string;
  status?: EquivalencyStatus;
  provenance?: Channel;
  /** Only equivalencies changed at or after this time (date-time text). */
  updatedSince?: string;
}

const EXPANSION = {
  sourceCourse: { include: { institution: true } },
  targetInstitution: true,
  targetCourse: true,
} as const satisfies Prisma.EquivalencyInclude;

/** An equivalency with its source course (and that course's institution), target institution and target course. */
export type ExpandedEquivalency = Prisma.EquivalencyGetPayload<{ include: typeof EXPANSION }>;

/** The records an equivalency write names, each null when it does not exist in the environment. */
export interface EquivalencyReferences {
  source: (Course & { institution: Institution }) | null;
  institution: Institution | null;
  targetCourse: Course | null;
}

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
>;

export type NewEquivalencyVersion = Omit<EquivalencyVersion, "state"> & { state: Prisma.InputJsonValue };

/** Totals of large lists are reused briefly (see totals.ts); every committed write forgets them (forgetTotals). */
const equivalencyTotals = new ListTotals();

type RowJson = Record<string, unknown> | null;

/**
 * The equivalency and every record EXPANSION includes, as one JSON text, from
 * the function the migration "equivalency_read_function" defines (its plan is
 * kept per database session, where a statement sent each time is planned each time).
 */
/** The list order, served by the indexes (environment, created_at, id) and (environment, status, created_at, id). */
const LIST_ORDER: Order = [
  ["createdAt", "asc"],
  ["id", "asc"],
];

const EXPANDED_BY_ID = `SELECT "equivalency_expanded_json"($1, $2::"Environment") AS record`;

/**
 * `read` (Database.read) serves the read by id straight from the driver; inside a
 * transaction there is none, and the statement goes through the transaction's client.
 */
export function createEquivalenciesRepository(db: Prisma.TransactionClient, read?: Database["read"]) {
  function whereOf(environment: Environment, filters: EquivalencyFilters): Prisma.EquivalencyWhereInput {
    return {
      environment,
      ...(filters.sourceCourse ? { sourceCourseId: filters.sourceCourse } : {}),
      ...(filters.targetInstitution ? { targetInstitutionId: filters.targetInstitution } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.provenance ? { provenance: filters.provenance } : {}),
      ...(filters.updatedSince ? { updatedAt: { gte: new Date(filters.updatedSince) } } : {}),
    };
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
  async function findPage(environment: Environment, filters: EquivalencyFilters, page: Page): Promise<Equivalency[]> {
    const conditions = [`environment = $1::"Environment"`];
    const params: unknown[] = [environment, page.limit + 1, page.offset];
    const add = (condition: (placeholder: string) => string, value: unknown) => {
      params.push(value);
      conditions.push(condition(`$${params.length}`));
    };
    if (filters.sourceCourse) add((p) => `source_course_id = ${p}`, filters.sourceCourse);
    if (filters.targetInstitution) add((p) => `target_institution_id = ${p}`, filters.targetInstitution);
    if (filters.status) add((p) => `status = ${p}::"EquivalencyStatus"`, filters.status);
    if (filters.provenance) add((p) => `provenance = ${p}::"Channel"`, filters.provenance);
    if (filters.updatedSince) add((p) => `updated_at >= ${p}::timestamp(3)`, new Date(filters.updatedSince));
    if (page.after) {
      checkKey(LIST_ORDER, page.after);
      const [createdAt, id] = page.after;
      if (!(createdAt instanceof Date) || typeof id !== "string") {
        throw new InvalidCursorError("the cursor does not fit this list's order");
      }
      params.push(createdAt, id);
      conditions.push(`(created_at, id) > ($${params.length - 1}::timestamp(3), $${params.length})`);
    }
    const [row] = await db.$queryRawUnsafe<{ page: string }[]>(
      `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS page
       FROM (SELECT id FROM equivalencies WHERE ${conditions.join(" AND ")} ORDER BY created_at, id LIMIT $2 OFFSET $3) AS ids
       JOIN equivalencies AS e USING (id)`,
      ...params,
    );
    const columns = columnsOf(db, "Equivalency");
    return (JSON.parse(row.page) as RowJson[]).map((json) => recordFromJson<Equivalency>(json, columns)!);
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
      return pageFromRows(page, LIST_ORDER, rows, total);
    },

    /** Called after every committed write that can change what a list counts. */
    forgetTotals(): void {
      equivalencyTotals.forget(db as Db);
    },

    findById(environment: Environment, id: string): Promise<Equivalency | null> {
      return db.equivalency.findFirst({ where: { id, environment } });
    },

    /** Like findById, after taking the row's lock: writers of one equivalency queue on it. */
    async findByIdForUpdate(environment: Environment, id: string): Promise<Equivalency | null> {
      await db.$queryRaw`SELECT id FROM equivalencies WHERE id = ${id} FOR UPDATE`;
      return db.equivalency.findFirst({ where: { id, environment } });
    },

    async findExpandedById(environment: Environment, id: string): Promise<ExpandedEquivalency | null> {
      const [row] = read
        ? await read<{ record: string | null }>(EXPANDED_BY_ID, [id, environment])
        : await db.$queryRawUnsafe<{ record: string | null }[]>(EXPANDED_BY_ID, id, environment);
      if (!row?.record) return null;
      const [equivalency, sourceCourse, sourceInstitution, targetInstitution, targetCourse] = JSON.parse(
        row.record,
      ) as RowJson[];
      const [equivalencyColumns, courseColumns, institutionColumns] = [
        columnsOf(db, "Equivalency"),
        columnsOf(db, "Course"),
        columnsOf(db, "Institution"),
      ];
      return {
        ...recordFromJson<Equivalency>(equivalency, equivalencyColumns)!,
        sourceCourse: {
          ...recordFromJson<Course>(sourceCourse, courseColumns)!,
          institution: recordFromJson<Institution>(sourceInstitution, institutionColumns)!,
        },
        targetInstitution: recordFromJson<Institution>(targetInstitution, institutionColumns)!,
        targetCourse: recordFromJson<Course>(targetCourse, courseColumns),
      };
    },

    /** The just-written equivalency with its related records, read in the writing transaction. */
    findExpandedWritten(id: string): Promise<ExpandedEquivalency> {
      return db.equivalency.findUniqueOrThrow({ where: { id }, include: EXPANSION });
    },

    /** The source course (with its institution), target institution and target course named; an absent id is not looked up. */
    async findReferences(
      environment: Environment,
      ids: { sourceCourseId?: string; targetInstitutionId: string; targetCourseId: string | null },
    ): Promise<EquivalencyReferences> {
      const [source, institution, targetCourse] = await Promise.all([
        ids.sourceCourseId !== undefined
          ? db.course.findFirst({ where: { id: ids.sourceCourseId, environment }, include: { institution: true } })
          : null,
        db.institution.findUnique({ where: { environment_id: { environment, id: ids.targetInstitutionId } } }),
        ids.targetCourseId !== null ? db.course.findFirst({ where: { id: ids.targetCourseId, environment } }) : null,
      ]);
      return { source, institution, targetCourse };
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

    async insert(record: Equivalency): Promise<void> {
      await db.equivalency.create({ data: record });
    },

    /** Writes the change only if the row is still at expectedVersion; false when another writer got there first. */
    async updateIfVersion(id: string, expectedVersion: number, change: EquivalencyChange): Promise<boolean> {
      const { count } = await db.equivalency.updateMany({ where: { id, version: expectedVersion }, data: change });
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
