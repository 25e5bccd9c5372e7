// Courses: every query of the courses table. Built over the client or over a
// transaction (createCoursesRepository(tx)), so the upsert's statements run in
// the service's transaction.
//
// The batch statements pass the whole batch as one JSON parameter read with
// json_to_recordset: Prisma's createMany, a findMany with a long IN list, and
// even array parameters cost several times more per row on both databases
// (see scripts/bench/course-upsert.ts).
import type { Course, Institution, Prisma } from "../../generated/prisma/client.ts";
import type { CourseLevel, CreditUnit, Environment } from "../../generated/prisma/client.ts";
import { courseCodeKey } from "../views/catalog.ts";
import { containsInsensitive } from "./search.ts";
import { pageOf, type Page, type PageResult } from "./paging.ts";

export interface CourseFilters {
  institution?: string;
  /** A six-digit code, or a family ("11") or series ("11.07") prefix. */
  cip?: string;
  q?: string;
  /** A code, own or cross-listed, compared as upserts compare codes. */
  code?: string;
  /** Only courses changed at or after this time (date-time text). */
  updatedSince?: string;
}

/** A course row to insert at version 1; codeKey is its upsert identity. */
export interface NewCourse {
  id: string;
  institutionId: string;
  code: string;
  codeKey: string;
  title: string;
  credits: number;
  creditUnit: CreditUnit;
  level: CourseLevel;
  description: string | null;
  cipCode: string | null;
}

export type CourseChange = Omit<NewCourse, "institutionId" | "codeKey">;

export const TRACKED_FIELDS = ["code", "title", "credits", "creditUnit", "level", "description", "cipCode"] as const;
export type ExistingCourse = Pick<
  Course,
  "id" | "institutionId" | "codeKey" | "version" | "crossListedCodes" | (typeof TRACKED_FIELDS)[number]
>;

export interface KnownReferences {
  institutions: string[];
  cipCodes: string[];
  /** False when no six-digit CIP code is loaded (or none was asked about): codes cannot be checked. */
  catalogLoaded: boolean;
}

export function createCoursesRepository(db: Prisma.TransactionClient) {
  return {
    /** Ordered by institution, code, then id. */
    listPage(environment: Environment, filters: CourseFilters, page: Page): Promise<PageResult<Course>> {
      const where: Prisma.CourseWhereInput = {
        environment,
        ...(filters.institution ? { institutionId: filters.institution } : {}),
        ...(filters.cip
          ? filters.cip.length === 7
            ? { cipCode: filters.cip }
            : { cipCode: { startsWith: filters.cip } }
          : {}),
        ...(filters.q
          ? {
              OR: [
                { code: containsInsensitive(filters.q) },
                { title: containsInsensitive(filters.q) },
                { codes: { some: { crossListed: true, code: containsInsensitive(filters.q) } } },
              ],
            }
          : {}),
        ...(filters.code ? { codes: { some: { environment, codeKey: courseCodeKey(filters.code) } } } : {}),
        ...(filters.updatedSince ? { updatedAt: { gte: new Date(filters.updatedSince) } } : {}),
      };
      return pageOf(
        page,
        [
          ["institutionId", "asc"],
          ["codeKey", "asc"],
          ["id", "asc"],
        ],
        ({ take, skip, orderBy, after }) => db.course.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.course.count({ where }),
      );
    },

    findByIdWithInstitution(
      environment: Environment,
      id: string,
    ): Promise<(Course & { institution: Institution }) | null> {
      return db.course.findFirst({ where: { id, environment }, include: { institution: true } });
    },

    /** One round trip: which of the institutions and six-digit CIP codes exist, and whether the CIP catalog is loaded at all. */
    async findKnownReferences(
      environment: Environment,
      institutionIds: string[],
      cipCodes: string[],
    ): Promise<KnownReferences> {
      const [row] = await db.$queryRawUnsafe<
        { institutions: string[] | null; cipCodes: string[] | null; catalogLoaded: boolean }[]
      >(
        `SELECT
           (SELECT array_agg(id) FROM institutions
              WHERE environment = $1::"Environment" AND id IN (SELECT json_array_elements_text($2::json))) AS institutions,
           (SELECT array_agg(code) FROM cip_codes
              WHERE digits = 6 AND code IN (SELECT json_array_elements_text($3::json))) AS "cipCodes",
           ($4::boolean AND EXISTS (SELECT 1 FROM cip_codes WHERE digits = 6)) AS "catalogLoaded"`,
        environment,
        JSON.stringify(institutionIds),
        JSON.stringify(cipCodes),
        cipCodes.length > 0,
      );
      return { institutions: row.institutions ?? [], cipCodes: row.cipCodes ?? [], catalogLoaded: row.catalogLoaded };
    },

    /** The existing courses among (institution, code key) pairs, keyed `${institutionId}\0${codeKey}`. */
    async findByCodeKeys(
      environment: Environment,
      keys: { institutionId: string; codeKey: string }[],
    ): Promise<Map<string, ExistingCourse>> {
      const rows = await db.$queryRawUnsafe<ExistingCourse[]>(
        `SELECT c.id, c.institution_id AS "institutionId", c.code_key AS "codeKey", c.code, c.title, c.credits,
                c.credit_unit::text AS "creditUnit", c.level::text AS level, c.description, c.cip_code AS "cipCode", c.version,
                c.cross_listed_codes AS "crossListedCodes"
         FROM courses AS c
         JOIN json_to_recordset($2::json) AS k ("institutionId" text, "codeKey" text)
           ON c.institution_id = k."institutionId" AND c.code_key = k."codeKey"
         WHERE c.environment = $1::"Environment"`,
        environment,
        JSON.stringify(keys),
      );
      return new Map(
        rows.map((row) => [
          `${row.institutionId}\u0000${row.codeKey}`,
          { ...row, credits: Number(row.credits), version: Number(row.version) },
        ]),
      );
    },

    /** The courses that hold these codes (own or cross-listed), keyed `${institutionId}\0${codeKey}`. */
    async findCodeOwners(environment: Environment, codes: InstitutionCode[]): Promise<Map<string, string>> {
      if (!codes.length) return new Map();
      const rows = await db.$queryRawUnsafe<{ institutionId: string; codeKey: string; courseId: string }[]>(
        `SELECT cc.institution_id AS "institutionId", cc.code_key AS "codeKey", cc.course_id AS "courseId"
         FROM course_codes AS cc
         JOIN json_to_recordset($2::json) AS k ("institutionId" text, "codeKey" text)
           ON cc.institution_id = k."institutionId" AND cc.code_key = k."codeKey"
         WHERE cc.environment = $1::"Environment"`,
        environment,
        JSON.stringify(codes),
      );
      return new Map(rows.map((row) => [`${row.institutionId}\u0000${row.codeKey}`, row.courseId]));
    },

    /**
     * Replaces the cross-listed codes of these courses: the column, in the order given, and their
     * rows of course_codes (whose primary key refuses a code another course holds).
     */
    async replaceCrossListedCodes(environment: Environment, courses: { id: string; codes: string[] }[]): Promise<void> {
      if (!courses.length) return;
      await db.$executeRawUnsafe(
        `UPDATE courses AS c SET cross_listed_codes = ARRAY(SELECT json_array_elements_text(v.codes))
         FROM json_to_recordset($1::json) AS v (id text, codes json) WHERE c.id = v.id`,
        JSON.stringify(courses),
      );
      await db.$executeRawUnsafe(
        `DELETE FROM course_codes WHERE cross_listed AND course_id = ANY($1::text[])`,
        courses.map((course) => course.id),
      );
      const rows = courses.flatMap((course) =>
        course.codes.map((code) => ({ id: course.id, code, codeKey: courseCodeKey(code) })),
      );
      if (!rows.length) return;
      await db.$executeRawUnsafe(
        `INSERT INTO course_codes (environment, institution_id, code_key, course_id, code, cross_listed)
         SELECT $1::"Environment", c.institution_id, v."codeKey", v.id, v.code, true
         FROM json_to_recordset($2::json) AS v (id text, code text, "codeKey" text)
         JOIN courses AS c ON c.id = v.id`,
        environment,
        JSON.stringify(rows),
      );
    },

    /** Inserts a batch of new courses at version 1 in one statement. */
    async insertMany(environment: Environment, creates: NewCourse[], now: Date): Promise<void> {
      await db.$executeRawUnsafe(
        `INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, credit_unit, level, description, cip_code, version, created_at, updated_at)
         SELECT v.id, $1::"Environment", v."institutionId", v.code, v."codeKey", v.title, v.credits, v."creditUnit"::"CreditUnit", v.level::"CourseLevel", v.description, v."cipCode",
                1, $2::timestamp(3), $2::timestamp(3)
         FROM json_to_recordset($3::json)
           AS v (id text, "institutionId" text, code text, "codeKey" text, title text, credits double precision, "creditUnit" text, level text, description text, "cipCode" text)`,
        environment,
        now,
        JSON.stringify(creates),
      );
    },

    /** One statement for the whole batch; returns each row's new version (from the row, so concurrent upserts never reuse one). */
    async updateMany(changes: CourseChange[], now: Date): Promise<Map<string, number>> {
      if (!changes.length) return new Map<string, number>();
      const updated = await db.$queryRawUnsafe<{ id: string; version: number }[]>(
        `UPDATE courses AS c SET code = v.code, title = v.title, credits = v.credits, credit_unit = v."creditUnit"::"CreditUnit", level = v.level::"CourseLevel",
           description = v.description, cip_code = v."cipCode", version = c.version + 1, updated_at = $1::timestamp(3)
         FROM json_to_recordset($2::json)
           AS v (id text, code text, title text, credits double precision, "creditUnit" text, level text, description text, "cipCode" text)
         WHERE c.id = v.id
         RETURNING c.id, c.version`,
        now,
        JSON.stringify(changes),
      );
      return new Map(updated.map((row) => [row.id, Number(row.version)]));
    },
  };
}

export type CoursesRepository = ReturnType<typeof createCoursesRepository>;

/** A code of an institution, as course_codes keys it. */
export interface InstitutionCode {
  institutionId: string;
  codeKey: string;
}
