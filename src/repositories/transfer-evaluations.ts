// What an evaluation reads (POST /transfer-evaluations), in two statements whatever the number of
// courses and rules: first the institutions and courses it names (by id, or by any of a course's
// codes), then the accepted rules of the target institution that mention any of those courses in
// any set, and its rules waiting in conflict that do, with the codes and titles of the courses
// the rules name and the target institution's credit unit. Each statement answers one JSON text,
// parsed here, so the embedded database and PostgreSQL give the same values. `read`
// (Database.statement) sends them straight to the driver, outside Prisma's query pipeline.
import type { Database } from "../db/database.ts";
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
  /** `accepted`, or `conflict` (a rival rule waiting, named beside the courses it mentions). */
  status: string;
  sourceCourseIds: string[];
  /** Every source course set, in the rule's order (set 0 = sourceCourseIds). */
  sourceCourseSets: string[][];
  kind: string;
  targetChoice: "all" | "one_of";
  targets: { courseId: string | null; code: string | null; credits: number | null }[];
  generalEducationArea: string | null;
  minimumGrade: string | null;
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  priority: number;
  awardedCredits: number | null;
  awardedCreditUnit: string | null;
  /** Code of each source course (of every set), by id. */
  sourceCodes: Record<string, string>;
  /** Title of each target course, by id; null when no target names a stored course. */
  targetTitles: Record<string, string> | null;
}

export interface EvaluationSubjects {
  /** The names of the institutions among those asked, by id (an id absent is no institution of the environment). */
  institutions: Map<string, string>;
  /** The courses of the environment with the ids asked, or with one of the (institution, code key) pairs asked. */
  courses: EvaluatedCourseRow[];
  /** Which course each (institution id, code key) pair asked names (own or cross-listed code): "<institution id>\n<code key>" → course id. */
  codes: Map<string, string>;
}

export interface EvaluationCandidates {
  /** The accepted and conflict rules of the target institution with any of the courses in any of their sets. */
  rules: RuleRow[];
  /** The unit most of the target institution's courses count in (ties: the first in the enum's order); null without courses. */
  creditUnit: string | null;
}

const COURSE_JSON = `json_build_object('id', c.id, 'institutionId', c.institution_id, 'code', c.code,
  'codeKey', c.code_key, 'title', c.title, 'credits', c.credits, 'creditUnit', c.credit_unit)`;

/**
 * $1 environment, $2 institution ids, $3 course ids, $4 and $5 the (institution id, code key) pairs,
 * resolved through course_codes (every code of a course, its own and its cross-listed ones).
 * The ids are gathered into one array first: `id = ANY(…) OR (institution_id, code_key) IN (…)`
 * can use no index and read every course.
 */
const SUBJECTS = `WITH coded AS MATERIALIZED (
    SELECT asked.institution_id, asked.code_key, cc.course_id
    FROM unnest($4::text[], $5::text[]) AS asked(institution_id, code_key)
    JOIN course_codes cc ON cc.environment = $1::"Environment"
      AND cc.institution_id = asked.institution_id AND cc.code_key = asked.code_key
  )
  SELECT json_build_object(
  'institutions', (SELECT coalesce(json_object_agg(i.id, i.name), '{}') FROM institutions i
                   WHERE i.environment = $1::"Environment" AND i.id = ANY($2::text[])),
  'codes', (SELECT coalesce(json_agg(json_build_array(institution_id, code_key, course_id)), '[]') FROM coded),
  'courses', (SELECT coalesce(json_agg(${COURSE_JSON}), '[]') FROM courses c
    WHERE c.environment = $1::"Environment" AND c.id = ANY (ARRAY(
      SELECT id FROM courses WHERE environment = $1::"Environment" AND id = ANY($3::text[])
      UNION
      SELECT course_id FROM coded)))
)::text AS subjects`;

/**
 * $1 environment, $2 target institution id, $3 the course ids, $4 their source keys (see the
 * migration evaluation_candidate_indexes: "<target institution id> <course id>"), matched against
 * the courses of any of a rule's sets (any_set_course_ids, migration agreements_as_published).
 *
 * The candidates are found through the index on the rules' source keys alone, behind a
 * MATERIALIZED fence: left to itself the planner intersects that index with every rule of the
 * target institution (the (environment, target_institution_id) index, 10,000 entries a target at
 * 1,000,000 rules), which costs more than the few candidates it filters. Every course named by
 * the candidates (sources and targets) is then read once, by primary key. The credit unit is
 * named `unit` so that ORDER BY credit_unit breaks ties in the enum's order, not the text's.
 */
const CANDIDATES = `WITH keyed AS MATERIALIZED (
    SELECT * FROM equivalencies
    WHERE "equivalency_source_keys"(target_institution_id, any_set_course_ids) && $4::text[]
      AND status IN ('accepted', 'conflict')
  ), rules AS (
    SELECT * FROM keyed
    WHERE environment = $1::"Environment" AND target_institution_id = $2
      AND any_set_course_ids && $3::text[]
  ), named AS (
    SELECT c.id, c.code, c.title FROM courses c
    WHERE c.id = ANY (ARRAY(
      SELECT unnest(r.any_set_course_ids) FROM rules r
      UNION
      SELECT target->>'courseId' FROM rules r, jsonb_array_elements(r.targets) AS target))
  )
  SELECT json_build_object(
    'rules', (SELECT coalesce(json_agg(json_build_object(
        'id', r.id, 'version', r.version, 'targetInstitutionId', r.target_institution_id, 'status', r.status,
        'sourceCourseIds', r.source_course_ids, 'sourceCourseSets', r.source_course_sets, 'kind', r.kind,
        'targetChoice', r.target_choice, 'targets', r.targets,
        'generalEducationArea', r.general_education_area, 'minimumGrade', r.minimum_grade,
        'effectiveFrom', to_char(r.effective_from, 'YYYY-MM-DD'),
        'effectiveUntil', to_char(r.effective_until, 'YYYY-MM-DD'),
        'priority', r.priority, 'awardedCredits', r.awarded_credits, 'awardedCreditUnit', r.awarded_credit_unit
      ) ORDER BY r.id, r.version), '[]') FROM rules r),
    'courses', (SELECT coalesce(json_object_agg(n.id, json_build_array(n.code, n.title)), '{}') FROM named n),
    'creditUnit', (SELECT credit_unit::text AS unit FROM courses
                   WHERE environment = $1::"Environment" AND institution_id = $2
                   GROUP BY credit_unit ORDER BY count(*) DESC, credit_unit LIMIT 1)
  )::text AS candidates`;

type RuleJson = Omit<RuleRow, "sourceCodes" | "targetTitles">;

/** The key of a source course at a target institution, as "equivalency_source_keys" makes it. */
function sourceKey(targetInstitutionId: string, courseId: string): string {
  return `${targetInstitutionId} ${courseId}`;
}

/** A rule with the codes of its source courses and the titles of its target courses, from the courses named. */
function withCourseNames(rule: RuleJson, named: Readonly<Record<string, [string, string]>>): RuleRow {
  const sourceCodes: Record<string, string> = {};
  for (const set of rule.sourceCourseSets) for (const id of set) if (named[id]) sourceCodes[id] = named[id][0];
  let targetTitles: Record<string, string> | null = null;
  for (const target of rule.targets) {
    if (!target.courseId || !named[target.courseId]) continue;
    targetTitles ??= {};
    targetTitles[target.courseId] = named[target.courseId][1];
  }
  return { ...rule, sourceCodes, targetTitles };
}

export function createTransferEvaluationsRepository(db: Prisma.TransactionClient, read?: Database["statement"]) {
  async function queryText(sql: string, column: string, params: unknown[]): Promise<string> {
    const rows = read
      ? await read<Record<string, string>>(sql, params)
      : await db.$queryRawUnsafe<Record<string, string>[]>(sql, ...params);
    return rows[0][column];
  }

  return {
    /** The institutions and courses an evaluation names, in one statement. */
    async subjects(
      environment: Environment,
      institutionIds: readonly string[],
      courseIds: readonly string[],
      codes: readonly { institutionId: string; codeKey: string }[],
    ): Promise<EvaluationSubjects> {
      const text = await queryText(SUBJECTS, "subjects", [
        environment,
        [...institutionIds],
        [...courseIds],
        codes.map((code) => code.institutionId),
        codes.map((code) => code.codeKey),
      ]);
      const parsed = JSON.parse(text) as {
        institutions: Record<string, string>;
        courses: EvaluatedCourseRow[];
        codes: [string, string, string][];
      };
      return {
        institutions: new Map(Object.entries(parsed.institutions)),
        courses: parsed.courses,
        codes: new Map(
          parsed.codes.map(([institutionId, codeKey, courseId]) => [`${institutionId}\n${codeKey}`, courseId]),
        ),
      };
    },

    /**
     * The target institution's accepted rules, and its rules waiting in conflict, that mention any
     * of the courses in any set, and its credit unit, in one statement.
     */
    async candidates(
      environment: Environment,
      targetInstitutionId: string,
      courseIds: readonly string[],
    ): Promise<EvaluationCandidates> {
      const text = await queryText(CANDIDATES, "candidates", [
        environment,
        targetInstitutionId,
        [...courseIds],
        courseIds.map((id) => sourceKey(targetInstitutionId, id)),
      ]);
      const parsed = JSON.parse(text) as {
        rules: RuleJson[];
        courses: Record<string, [string, string]>;
        creditUnit: string | null;
      };
      return {
        rules: parsed.rules.map((rule) => withCourseNames(rule, parsed.courses)),
        creditUnit: parsed.creditUnit,
      };
    },
  };
}

export type TransferEvaluationsRepository = ReturnType<typeof createTransferEvaluationsRepository>;
