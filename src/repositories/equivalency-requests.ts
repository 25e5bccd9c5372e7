// Demand for missing rules: every query of equivalency_requests (counts per environment, target
// institution and source course) and of evaluation_fingerprints (the evaluations counted today).
import type { Environment, EquivalencyRequest, Prisma } from "../../generated/prisma/client.ts";
import { pageOf, type Order, type Page, type PageResult } from "./paging.ts";

export interface RequestedRule extends EquivalencyRequest {
  sourceCourse: { id: string; code: string; title: string; institutionId: string } | null;
}

/** By demand, then by course key (a catalog course's id; unique within one target institution). */
const ORDER: Order = [
  ["requests", "desc"],
  ["courseKey", "asc"],
];

export function createEquivalencyRequestsRepository(db: Prisma.TransactionClient) {
  return {
    /**
     * One request more for each source course at the target institution, asked at `now`, unless
     * an evaluation with this fingerprint (the same evaluation, from the same credential, that day)
     * was counted already; fingerprints of earlier days go. One statement, so an evaluation is
     * counted whole or not at all, and each evaluation waits on no other one for long: the rows are
     * taken in the order of their source course ids, so two evaluations that share courses cannot
     * deadlock, and an evaluation asks nothing else of the database meanwhile. Answers whether it
     * counted.
     */
    async countOncePerDay(
      fingerprint: string,
      day: string,
      environment: Environment,
      targetInstitutionId: string,
      sourceCourseIds: readonly string[],
      now: Date,
    ): Promise<boolean> {
      const [row] = await db.$queryRaw<{ first: number }[]>`
        WITH expired AS (
          DELETE FROM evaluation_fingerprints WHERE day < ${day}::date
        ), first AS (
          INSERT INTO evaluation_fingerprints (fingerprint, day) VALUES (${fingerprint}, ${day}::date)
          ON CONFLICT (fingerprint) DO NOTHING
          RETURNING fingerprint
        ), counted AS (
          INSERT INTO equivalency_requests (environment, target_institution_id, source_course_id, course_key, requests, last_requested_at)
          SELECT ${environment}::"Environment", ${targetInstitutionId}, id, id, 1, ${now}
          FROM (SELECT DISTINCT id FROM unnest(${[...sourceCourseIds]}::text[]) AS id) AS asked, first
          ORDER BY id
          ON CONFLICT (environment, target_institution_id, course_key) DO UPDATE SET
            requests = equivalency_requests.requests + 1,
            last_requested_at = GREATEST(equivalency_requests.last_requested_at, EXCLUDED.last_requested_at)
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM first)::int AS first`;
      return row.first > 0;
    },

    /** Forgets the requests for these source courses at the target institution (a rule now covers them). */
    async clear(environment: Environment, targetInstitutionId: string, sourceCourseIds: readonly string[]) {
      await db.equivalencyRequest.deleteMany({
        where: { environment, targetInstitutionId, sourceCourseId: { in: [...sourceCourseIds] } },
      });
    },

    /** One target institution's requests by demand, each with its source course (null if it is gone). */
    async listPage(
      environment: Environment,
      targetInstitutionId: string,
      page: Page,
    ): Promise<PageResult<RequestedRule>> {
      const where = { environment, targetInstitutionId };
      const result = await pageOf(
        page,
        ORDER,
        ({ take, skip, orderBy, after }) =>
          db.equivalencyRequest.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.equivalencyRequest.count({ where }),
      );
      const courses = await db.course.findMany({
        where: { environment, id: { in: result.items.map((item) => item.sourceCourseId) } },
        select: { id: true, code: true, title: true, institutionId: true },
      });
      const byId = new Map(courses.map((course) => [course.id, course]));
      return {
        ...result,
        items: result.items.map((item) => ({ ...item, sourceCourse: byId.get(item.sourceCourseId) ?? null })),
      };
    },
  };
}

export type EquivalencyRequestsRepository = ReturnType<typeof createEquivalencyRequestsRepository>;
