// Keyset-paginated reading of a whole table for exports: each query asks for
// the rows after the last one already read, in a total order, so memory stays
// at one batch however large the table, and no row is skipped or repeated while
// rows are neither inserted nor deleted during the read.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../db/database.ts";
import type { Environment } from "../../generated/prisma/client.ts";

/** Reads at most `take` rows that sort after `after` (from the start when null). */
export type BatchReader<Row> = (after: Row | null, take: number) => Promise<Row[]>;

/**
 * `(k1, k2, …) > (last.k1, last.k2, …)` in Prisma's terms. The leading
 * `k1 >= last.k1` is implied by the OR, but lets PostgreSQL start an index scan
 * at the cursor instead of filtering from the start of the table on every batch.
 */
export function keysetAfter<Row, Key extends keyof Row & string>(last: Row, keys: readonly Key[]): object {
  const branches = keys.map((key, index) => ({
    ...Object.fromEntries(keys.slice(0, index).map((earlier) => [earlier, last[earlier]])),
    [key]: { gt: last[key] },
  }));
  return { AND: [{ [keys[0]]: { gte: last[keys[0]] } }, { OR: branches }] };
}

const INSTITUTION_ORDER = ["name", "id"] as const;
const COURSE_ORDER = ["institutionId", "codeKey", "id"] as const;
const EQUIVALENCY_ORDER = ["createdAt", "id"] as const;

const ascending = (keys: readonly string[]) => keys.map((key) => ({ [key]: "asc" as const }));

export function createExportsRepository(db: Db) {
  return {
    institutionBatches(environment: Environment) {
      return (after: { name: string; id: string } | null, take: number) =>
        db.institution.findMany({
          where: {
            environment,
            ...(after ? (keysetAfter(after, INSTITUTION_ORDER) as Prisma.InstitutionWhereInput) : {}),
          },
          orderBy: ascending(INSTITUTION_ORDER),
          take,
        });
    },

    courseBatches(environment: Environment) {
      return (after: { institutionId: string; codeKey: string; id: string } | null, take: number) =>
        db.course.findMany({
          where: { environment, ...(after ? (keysetAfter(after, COURSE_ORDER) as Prisma.CourseWhereInput) : {}) },
          orderBy: ascending(COURSE_ORDER),
          take,
        });
    },

    equivalencyBatches(environment: Environment) {
      return (after: { createdAt: Date; id: string } | null, take: number) =>
        db.equivalency.findMany({
          where: {
            environment,
            ...(after ? (keysetAfter(after, EQUIVALENCY_ORDER) as Prisma.EquivalencyWhereInput) : {}),
          },
          orderBy: ascending(EQUIVALENCY_ORDER),
          take,
        });
    },

    /** Equivalencies with the courses and institutions a CTDL assertion names. */
    equivalencyWithCoursesBatches(environment: Environment) {
      return (after: { createdAt: Date; id: string } | null, take: number) =>
        db.equivalency.findMany({
          where: {
            environment,
            ...(after ? (keysetAfter(after, EQUIVALENCY_ORDER) as Prisma.EquivalencyWhereInput) : {}),
          },
          orderBy: ascending(EQUIVALENCY_ORDER),
          include: { sourceCourse: { include: { institution: true } }, targetInstitution: true, targetCourse: true },
          take,
        });
    },
  };
}

export type ExportsRepository = ReturnType<typeof createExportsRepository>;

export type EquivalencyWithCourses = Awaited<
  ReturnType<ReturnType<ExportsRepository["equivalencyWithCoursesBatches"]>>
>[number];
