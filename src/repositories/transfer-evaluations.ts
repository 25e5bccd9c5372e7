// What an evaluation reads (POST /transfer-evaluations): the institutions and courses it names,
// the target institution's credit unit, and the accepted rules that mention any of its courses,
// in one query over the GIN index on equivalencies.source_course_ids.
import type { Environment, Prisma } from "../../generated/prisma/client.ts";

export interface EvaluatedCourseRow {
  id: string;
  institutionId: string;
  code: string;
  codeKey: string;
  title: string;
  credits: number;
  creditUnit: string;
}

export interface RuleRow {
  id: string;
  version: number;
  targetInstitutionId: string;
  status: string;
  sourceCourseIds: string[];
  kind: string;
  targets: { courseId: string | null; code: string | null; credits: number | null }[];
  generalEducationArea: string | null;
  minimumGrade: string | null;
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  priority: number;
  awardedCredits: number | null;
  awardedCreditUnit: string | null;
  /** Code of each source course, by id. */
  sourceCodes: Record<string, string>;
  /** Title of each target course, by id. */
  targetTitles: Record<string, string> | null;
}

const COURSE_COLUMNS = `id, institution_id AS "institutionId", code, code_key AS "codeKey", title, credits,
  credit_unit::text AS "creditUnit"`;

export function createTransferEvaluationsRepository(db: Prisma.TransactionClient) {
  return {
    /** The ids among `ids` of institutions of the environment. */
    async existingInstitutions(environment: Environment, ids: readonly string[]): Promise<Set<string>> {
      const rows = await db.institution.findMany({
        where: { environment, id: { in: [...ids] } },
        select: { id: true },
      });
      return new Set(rows.map((row) => row.id));
    },

    /** The courses of the environment with these ids, or at these (institution, code key) pairs. */
    findCourses(
      environment: Environment,
      ids: readonly string[],
      codes: readonly { institutionId: string; codeKey: string }[],
    ): Promise<EvaluatedCourseRow[]> {
      return db.$queryRawUnsafe<EvaluatedCourseRow[]>(
        `SELECT ${COURSE_COLUMNS} FROM courses
         WHERE environment = $1::"Environment"
           AND (id = ANY($2::text[])
             OR (institution_id, code_key) IN (SELECT * FROM unnest($3::text[], $4::text[])))`,
        environment,
        [...ids],
        codes.map((code) => code.institutionId),
        codes.map((code) => code.codeKey),
      );
    },

    /** The unit most of the institution's courses count in (ties: the first in the enum's order); null without courses. */
    async creditUnitOf(environment: Environment, institutionId: string): Promise<string | null> {
      const rows = await db.$queryRaw<{ unit: string }[]>`
        SELECT credit_unit::text AS unit FROM courses
        WHERE environment = ${environment}::"Environment" AND institution_id = ${institutionId}
        GROUP BY credit_unit ORDER BY count(*) DESC, credit_unit LIMIT 1`;
      return rows[0]?.unit ?? null;
    },

    /** The accepted rules of the target institution with any of these courses among their sources. */
    rulesMentioning(
      environment: Environment,
      targetInstitutionId: string,
      courseIds: readonly string[],
    ): Promise<RuleRow[]> {
      return db.$queryRaw<RuleRow[]>`
        SELECT e.id, e.version, e.target_institution_id AS "targetInstitutionId", e.status::text AS status,
          e.source_course_ids AS "sourceCourseIds", e.kind::text AS kind, e.targets,
          e.general_education_area AS "generalEducationArea", e.minimum_grade AS "minimumGrade",
          to_char(e.effective_from, 'YYYY-MM-DD') AS "effectiveFrom",
          to_char(e.effective_until, 'YYYY-MM-DD') AS "effectiveUntil",
          e.priority, e.awarded_credits AS "awardedCredits", e.awarded_credit_unit::text AS "awardedCreditUnit",
          (SELECT json_object_agg(c.id, c.code) FROM courses c WHERE c.id = ANY(e.source_course_ids)) AS "sourceCodes",
          (SELECT json_object_agg(c.id, c.title) FROM courses c
            WHERE c.id IN (SELECT t->>'courseId' FROM jsonb_array_elements(e.targets) t)) AS "targetTitles"
        FROM equivalencies e
        WHERE e.environment = ${environment}::"Environment"
          AND e.target_institution_id = ${targetInstitutionId}
          AND e.status = 'accepted'
          AND e.source_course_ids && ${[...courseIds]}::text[]`;
    },
  };
}

export type TransferEvaluationsRepository = ReturnType<typeof createTransferEvaluationsRepository>;
