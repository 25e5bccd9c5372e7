// Keyset-paginated reading of a whole table: each query asks for the rows after
// the last one already read, in a total order, so memory stays at one batch
// however large the table, and no row is skipped or repeated while rows are
// neither inserted nor deleted during the read.
import type { Prisma } from "../../../generated/prisma/client.ts";
import type { Db, Environment } from "../types.ts";

export const DEFAULT_BATCH_SIZE = 1_000;

/** Reads at most `take` rows that sort after `after` (from the start when null). */
export type BatchReader<Row> = (after: Row | null, take: number) => Promise<Row[]>;

/**
 * Reads the first batch now, so that a failure before any byte is sent can still
 * become a problem response; the rest is read lazily as the consumer pulls.
 */
export async function openBatches<Row>(read: BatchReader<Row>, batchSize: number): Promise<AsyncGenerator<Row[]>> {
  const first = await read(null, batchSize);
  return (async function* () {
    let batch = first;
    for (;;) {
      if (batch.length) yield batch;
      if (batch.length < batchSize) return;
      batch = await read(batch[batch.length - 1], batchSize);
    }
  })();
}

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

export function institutionBatches(db: Db, environment: Environment) {
  return (after: { name: string; id: string } | null, take: number) =>
    db.institution.findMany({
      where: { environment, ...(after ? (keysetAfter(after, INSTITUTION_ORDER) as Prisma.InstitutionWhereInput) : {}) },
      orderBy: ascending(INSTITUTION_ORDER),
      take,
    });
}

export function courseBatches(db: Db, environment: Environment) {
  return (after: { institutionId: string; codeKey: string; id: string } | null, take: number) =>
    db.course.findMany({
      where: { environment, ...(after ? (keysetAfter(after, COURSE_ORDER) as Prisma.CourseWhereInput) : {}) },
      orderBy: ascending(COURSE_ORDER),
      take,
    });
}

export function equivalencyBatches(db: Db, environment: Environment) {
  return (after: { createdAt: Date; id: string } | null, take: number) =>
    db.equivalency.findMany({
      where: { environment, ...(after ? (keysetAfter(after, EQUIVALENCY_ORDER) as Prisma.EquivalencyWhereInput) : {}) },
      orderBy: ascending(EQUIVALENCY_ORDER),
      take,
    });
}

/** Equivalencies with the courses and institutions a CTDL assertion names. */
export function equivalencyWithCoursesBatches(db: Db, environment: Environment) {
  return (after: { createdAt: Date; id: string } | null, take: number) =>
    db.equivalency.findMany({
      where: { environment, ...(after ? (keysetAfter(after, EQUIVALENCY_ORDER) as Prisma.EquivalencyWhereInput) : {}) },
      orderBy: ascending(EQUIVALENCY_ORDER),
      include: { sourceCourse: { include: { institution: true } }, targetInstitution: true, targetCourse: true },
      take,
    });
}

export type EquivalencyWithCourses = Awaited<ReturnType<ReturnType<typeof equivalencyWithCoursesBatches>>>[number];
