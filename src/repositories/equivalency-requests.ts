// Demand for missing rules: every query of equivalency_requests (counts per environment, target
// institution and requested course), equivalency_request_requesters (who asked, as keyed hashes)
// and evaluation_fingerprints (the requester-days counted already).
import type { Environment, EquivalencyRequest, Prisma } from "../../generated/prisma/client.ts";
import { pageOf, type Order, type Page, type PageResult } from "./paging.ts";

export interface RequestedRule extends EquivalencyRequest {
  sourceCourse: { code: string; title: string; institutionId: string } | null;
}

/**
 * One requester's ask for one course at one target institution on one UTC day. `fingerprint` is
 * the keyed hash of (requester, day, target institution, course key): a requester-day counted
 * once; `requester` the keyed hash of the requester alone (distinct requesters).
 */
export interface DemandAsk {
  fingerprint: string;
  requester: string;
  day: string;
  environment: Environment;
  targetInstitutionId: string;
  /** The course's id, or "<institution id> <code key>" for a course the catalog lacks. */
  courseKey: string;
  /** The catalog course's id, or "" for a course the catalog lacks. */
  sourceCourseId: string;
  /** For a course the catalog lacks: its institution, code and title as given. */
  institutionId: string | null;
  code: string | null;
  title: string | null;
  at: Date;
}

/** By demand, then by course key (a catalog course's id, or "<institution id> <code key>"). */
const ORDER: Order = [
  ["requests", "desc"],
  ["courseKey", "asc"],
];

/**
 * The asks of a batch, counted in one statement: a requester-day already counted (its fingerprint
 * stored) counts nothing; a catalog course asked before an accepted rule covering it was written
 * (the rule cleared its demand meanwhile) counts nothing; fingerprints of earlier days go. The
 * requests rows are taken in course-key order, so two batches that share courses cannot deadlock.
 */
const COUNT_BATCH = `WITH expired AS (
    DELETE FROM evaluation_fingerprints WHERE day < $1::date
  ), asked AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::date[], $5::text[], $6::text[], $7::text[], $8::text[],
                         $9::text[], $10::text[], $11::text[], $12::timestamptz[])
      AS a(fingerprint, requester, day, environment, target_institution_id, course_key, source_course_id,
           institution_id, code, title, at)
  ), fresh AS (
    INSERT INTO evaluation_fingerprints (fingerprint, day)
    SELECT fingerprint, day FROM asked ORDER BY fingerprint
    ON CONFLICT (fingerprint) DO NOTHING
    RETURNING fingerprint
  ), counted AS (
    SELECT a.* FROM asked a JOIN fresh USING (fingerprint)
    WHERE a.source_course_id = '' OR NOT EXISTS (
      SELECT 1 FROM equivalencies e
      WHERE "equivalency_source_keys"(e.target_institution_id, e.any_set_course_ids)
              && ARRAY[a.target_institution_id || ' ' || a.source_course_id]
        AND e.status = 'accepted' AND e.environment = a.environment::"Environment"
        AND e.target_institution_id = a.target_institution_id AND e.updated_at > a.at)
  ), requesters AS (
    INSERT INTO equivalency_request_requesters (environment, target_institution_id, course_key, requester)
    SELECT DISTINCT environment::"Environment", target_institution_id, course_key, requester FROM counted
    ORDER BY 2, 3, 4
    ON CONFLICT DO NOTHING
    RETURNING environment, target_institution_id, course_key
  ), newcomers AS (
    SELECT environment, target_institution_id, course_key, count(*)::int AS n FROM requesters GROUP BY 1, 2, 3
  ), totals AS (
    SELECT environment, target_institution_id, course_key, min(source_course_id) AS source_course_id,
           (array_agg(institution_id ORDER BY at DESC))[1] AS institution_id,
           (array_agg(code ORDER BY at DESC))[1] AS code,
           (array_agg(title ORDER BY at DESC))[1] AS title,
           count(*)::int AS requests, max(at) AS at
    FROM counted GROUP BY environment, target_institution_id, course_key
  ), upserted AS (
    INSERT INTO equivalency_requests (environment, target_institution_id, course_key, source_course_id,
                                      source_institution_id, source_code, source_title, requests,
                                      distinct_requesters, last_requested_at)
    SELECT t.environment::"Environment", t.target_institution_id, t.course_key, t.source_course_id,
           t.institution_id, t.code, t.title, t.requests, GREATEST(coalesce(n.n, 0), 1), t.at
    FROM totals t LEFT JOIN newcomers n
      ON n.environment::text = t.environment AND n.target_institution_id = t.target_institution_id
         AND n.course_key = t.course_key
    ORDER BY t.environment, t.target_institution_id, t.course_key
    ON CONFLICT (environment, target_institution_id, course_key) DO UPDATE SET
      requests = equivalency_requests.requests + EXCLUDED.requests,
      distinct_requesters = equivalency_requests.distinct_requesters + (
        SELECT coalesce(sum(n.n), 0)::int FROM newcomers n
        WHERE n.environment = EXCLUDED.environment AND n.target_institution_id = EXCLUDED.target_institution_id
          AND n.course_key = EXCLUDED.course_key),
      source_title = coalesce(EXCLUDED.source_title, equivalency_requests.source_title),
      source_code = coalesce(EXCLUDED.source_code, equivalency_requests.source_code),
      last_requested_at = GREATEST(equivalency_requests.last_requested_at, EXCLUDED.last_requested_at)
    RETURNING requests
  )
  SELECT (SELECT count(*) FROM counted)::int AS counted`;

export function createEquivalencyRequestsRepository(db: Prisma.TransactionClient) {
  return {
    /** Counts a batch of asks in one statement (see COUNT_BATCH); answers how many requester-days counted. */
    async countBatch(asks: readonly DemandAsk[], today: string): Promise<number> {
      if (asks.length === 0) return 0;
      const column = <K extends keyof DemandAsk>(key: K) => asks.map((ask) => ask[key]);
      const [row] = await db.$queryRawUnsafe<{ counted: number }[]>(
        COUNT_BATCH,
        today,
        column("fingerprint"),
        column("requester"),
        column("day"),
        column("environment"),
        column("targetInstitutionId"),
        column("courseKey"),
        column("sourceCourseId"),
        column("institutionId"),
        column("code"),
        column("title"),
        asks.map((ask) => ask.at.toISOString()),
      );
      return row.counted;
    },

    /**
     * Forgets the requests for these catalog courses at the target institution (a rule now covers
     * them), and who asked for them.
     */
    /** The requests of these courses at the target institution, and who asked them, in one statement (an accepted write pays for it). */
    async clear(environment: Environment, targetInstitutionId: string, sourceCourseIds: readonly string[]) {
      const courseKeys = [...new Set(sourceCourseIds)];
      await db.$executeRaw`
        WITH requests AS (
          DELETE FROM equivalency_requests
          WHERE environment = ${environment}::"Environment" AND target_institution_id = ${targetInstitutionId}
            AND course_key = ANY(${courseKeys}::text[]))
        DELETE FROM equivalency_request_requesters
        WHERE environment = ${environment}::"Environment" AND target_institution_id = ${targetInstitutionId}
          AND course_key = ANY(${courseKeys}::text[])`;
    },

    /**
     * One target institution's requests by demand, each with its source course: the catalog's (null
     * if it is gone) or, for a course the catalog lacks, the institution, code and title given.
     */
    async listPage(
      environment: Environment,
      targetInstitutionId: string,
      inCatalog: boolean | undefined,
      page: Page,
    ): Promise<PageResult<RequestedRule>> {
      const where: Prisma.EquivalencyRequestWhereInput = { environment, targetInstitutionId };
      if (inCatalog === true) where.sourceCourseId = { not: "" };
      if (inCatalog === false) where.sourceCourseId = "";
      const result = await pageOf(
        page,
        ORDER,
        ({ take, skip, orderBy, after }) =>
          db.equivalencyRequest.findMany({ where: { AND: [where, after] }, orderBy, take, skip }),
        () => db.equivalencyRequest.count({ where }),
      );
      const courses = await db.course.findMany({
        where: {
          environment,
          id: { in: result.items.flatMap((item) => (item.sourceCourseId ? [item.sourceCourseId] : [])) },
        },
        select: { id: true, code: true, title: true, institutionId: true },
      });
      const byId = new Map(courses.map((course) => [course.id, course]));
      return {
        ...result,
        items: result.items.map((item) => ({ ...item, sourceCourse: sourceCourseOf(item, byId) })),
      };
    },
  };
}

function sourceCourseOf(
  item: EquivalencyRequest,
  catalog: ReadonlyMap<string, { code: string; title: string; institutionId: string }>,
): RequestedRule["sourceCourse"] {
  if (item.sourceCourseId === "") {
    return {
      institutionId: item.sourceInstitutionId ?? "",
      code: item.sourceCode ?? "",
      title: item.sourceTitle ?? "",
    };
  }
  const course = catalog.get(item.sourceCourseId);
  return course ? { code: course.code, title: course.title, institutionId: course.institutionId } : null;
}

export type EquivalencyRequestsRepository = ReturnType<typeof createEquivalencyRequestsRepository>;
