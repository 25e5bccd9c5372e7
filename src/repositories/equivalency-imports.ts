// The CSV import's statements: everything a file of up to 10,000 rules needs, read and written
// in a few set-based statements (arrays and JSON record sets as parameters) instead of a few
// statements per row. Built over the client or, for a write, over the import's transaction.
import type { Course, Environment, Equivalency, Institution, Prisma } from "../../generated/prisma/client.ts";
import { byColumn, columnsOf, insertRecords, recordFromJson } from "./record-columns.ts";
import { ruleSetLockKey, type NewEquivalencyVersion } from "./equivalencies.ts";
import { withDatasetVersionIds } from "./dataset-heads.ts";

/** A rule set: the rules of one target institution with one source set (the ambiguity check's scope). */
export interface RuleSet {
  targetInstitutionId: string;
  sourceSetKey: string;
}

/** One equivalency's identity: (first source course, target institution, target key). */
export interface RuleIdentityKey {
  sourceCourseId: string;
  targetInstitutionId: string;
  targetKey: string;
}

type RowJson = Record<string, unknown>;

/*
 * Rows by id are found by primary key whatever the statistics (the embedded database has no
 * autovacuum, so its tables often have none): `id = ANY(ARRAY(subquery))` is an index scan over
 * the subquery's ids, where `id IN (subquery)` was planned as a hash join over a scan of the whole
 * table (20 ms at 10,000 rules, for each chunk of an import); and the environment is compared as
 * text, so that an index on it cannot be chosen over the primary key (a scan of every course of
 * the environment without statistics).
 */
const COURSES_BY_ID = `c.environment::text = $1::text AND c.id = ANY`;

/** Codes a statement of findCourseIdsByCodes: 10,000 in one held the embedded database for 0.3 s. */
const CODES_A_STATEMENT = 1_000;

/** Up to this many rule sets the accepted rules sharing one are found by the GIN index (see findByIdentitiesOrAcceptedInSets). */
const FEW_SETS = 100;

export function createEquivalencyImportsRepository(db: Prisma.TransactionClient) {
  const equivalencyColumns = () => columnsOf(db, "Equivalency");

  async function equivalenciesWhere(sql: string, ...params: unknown[]): Promise<Equivalency[]> {
    const [row] = await db.$queryRawUnsafe<{ rows: string }[]>(
      `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS rows
       FROM equivalencies AS e WHERE ${sql}`,
      ...params,
    );
    const records = (JSON.parse(row.rows) as RowJson[]).map(
      (json) => recordFromJson<Equivalency>(json, equivalencyColumns())!,
    );
    // As the API shows them: the versions an import writes of them hold their datasetVersionId.
    return withDatasetVersionIds(db, records);
  }

  const insertRows = (model: Prisma.ModelName, table: string, records: object[]) =>
    insertRecords(db, model, table, records);

  async function courseIdsByCodes(
    environment: Environment,
    keys: { institutionId: string; codeKey: string }[],
  ): Promise<Map<string, string>> {
    if (!keys.length) return new Map();
    const rows = await db.$queryRawUnsafe<{ institutionId: string; codeKey: string; courseId: string }[]>(
      `SELECT k.institution AS "institutionId", k.code_key AS "codeKey", cc.course_id AS "courseId"
       FROM (SELECT DISTINCT * FROM unnest($2::text[], $3::text[]) AS u (institution, code_key)) AS k
       JOIN course_codes AS cc ON cc.environment = $1::"Environment" AND cc.institution_id = k.institution
         AND cc.code_key = k.code_key`,
      environment,
      keys.map((k) => k.institutionId),
      keys.map((k) => k.codeKey),
    );
    return new Map(rows.map((row) => [`${row.institutionId}\u0000${row.codeKey}`, row.courseId]));
  }

  return {
    /**
     * Takes the advisory locks of these rule sets, the ones a single write of each takes
     * (EquivalenciesRepository.lockRuleSet), in one order, so two imports cannot deadlock.
     */
    async lockRuleSets(environment: Environment, sets: RuleSet[]): Promise<void> {
      const keys = [
        ...new Set(sets.map((set) => ruleSetLockKey(environment, set.targetInstitutionId, set.sourceSetKey))),
      ];
      if (!keys.length) return;
      await db.$executeRawUnsafe(
        `SELECT pg_advisory_xact_lock(hashtextextended(k.key, 0))
         FROM (SELECT key FROM unnest($1::text[]) AS key ORDER BY key) AS k`,
        keys.sort(),
      );
    },

    /**
     * The equivalencies with these identities, and the accepted rules of these rule sets, in
     * creation order: each by its own index (the identity's unique index, and (environment,
     * target institution, source set)), joined to the keys.
     */
    findByIdentitiesOrAcceptedInSets(
      environment: Environment,
      keys: RuleIdentityKey[],
      sets: RuleSet[],
    ): Promise<Equivalency[]> {
      if (!keys.length && !sets.length) return Promise.resolve([]);
      const { sql, params } = storedRuleIds(environment, keys, sets);
      return equivalenciesWhere(`e.id = ANY(ARRAY(${sql}))`, ...params);
    },

    /**
     * What a decision of these rules read, as it stands now: `id version status` of each rule
     * findByIdentitiesOrAcceptedInSets finds, and `id version` of each of these courses, sorted.
     * Equal to the stamps of the records read earlier: nothing the decision read has changed.
     */
    async readStamps(
      environment: Environment,
      keys: RuleIdentityKey[],
      sets: RuleSet[],
      courseIds: string[],
    ): Promise<string[]> {
      const rules = keys.length || sets.length ? storedRuleIds(environment, keys, sets) : null;
      const courses = `SELECT c.id || ' ' || c.version AS stamp FROM courses AS c
         WHERE ${COURSES_BY_ID}($${rules ? rules.params.length + 1 : 2}::text[])`;
      const rows = await db.$queryRawUnsafe<{ stamp: string }[]>(
        rules
          ? `SELECT e.id || ' ' || e.version || ' ' || e.status AS stamp FROM equivalencies AS e WHERE e.id = ANY(ARRAY(${rules.sql}))
             UNION ALL ${courses}`
          : courses,
        ...(rules ? rules.params : [environment]),
        [...new Set(courseIds)],
      );
      return stampsSorted(rows.map((row) => row.stamp));
    },

    /** The courses with these ids in the environment, each with its institution. */
    async findCourses(
      environment: Environment,
      ids: string[],
    ): Promise<Map<string, Course & { institution: Institution }>> {
      if (!ids.length) return new Map();
      const [row] = await db.$queryRawUnsafe<{ rows: string }[]>(
        `SELECT coalesce(json_agg(json_build_array(row_to_json(c), row_to_json(i))), '[]')::text AS rows
         FROM courses AS c JOIN institutions AS i ON i.environment = c.environment AND i.id = c.institution_id
         WHERE ${COURSES_BY_ID}($2::text[])`,
        environment,
        [...new Set(ids)],
      );
      const [courseColumns, institutionColumns] = [columnsOf(db, "Course"), columnsOf(db, "Institution")];
      return new Map(
        (JSON.parse(row.rows) as [RowJson, RowJson][]).map(([course, institution]) => {
          const record = recordFromJson<Course>(course, courseColumns)!;
          return [record.id, { ...record, institution: recordFromJson<Institution>(institution, institutionColumns)! }];
        }),
      );
    },

    /**
     * The course ids of these codes (own or cross-listed, by `course_codes`), keyed
     * `institution id NUL code key`; codes no course of the institution has are absent. Up to
     * CODES_A_STATEMENT codes a statement, so that other requests' statements run between them.
     */
    async findCourseIdsByCodes(
      environment: Environment,
      keys: { institutionId: string; codeKey: string }[],
    ): Promise<Map<string, string>> {
      const found = new Map<string, string>();
      for (let first = 0; first < keys.length; first += CODES_A_STATEMENT) {
        for (const [key, id] of await courseIdsByCodes(environment, keys.slice(first, first + CODES_A_STATEMENT)))
          found.set(key, id);
      }
      return found;
    },

    /** The institutions with these ids in the environment. */
    async findInstitutions(environment: Environment, ids: string[]): Promise<Map<string, Institution>> {
      if (!ids.length) return new Map();
      const institutions = await db.institution.findMany({ where: { environment, id: { in: [...new Set(ids)] } } });
      return new Map(institutions.map((institution) => [institution.id, institution]));
    },

    insertEquivalencies: (records: Equivalency[]) => insertRows("Equivalency", "equivalencies", records),

    /**
     * Writes each record's changeable columns (and its version) over the stored row with its id,
     * if that row is still at the version read (`readVersions`). Answers how many rows it wrote:
     * fewer than the records when a concurrent writer changed one since.
     */
    async updateEquivalencies(records: Equivalency[], readVersions: Map<string, number>): Promise<number> {
      if (!records.length) return 0;
      // What a publication writes (datasetVersionId, inLatestDataset) is never the import's to write back.
      const fixed = new Set([
        "id",
        "environment",
        "createdAt",
        "provenance",
        "datasetVersionId",
        "inLatestDataset",
        "organizationId",
      ]);
      const columns = equivalencyColumns()
        .filter(({ field }) => !fixed.has(field))
        .map(({ column }) => `"${column}"`);
      return db.$executeRawUnsafe(
        `UPDATE equivalencies AS e SET (${columns.join(", ")}) = (${columns.map((c) => `r.${c}`).join(", ")})
         FROM jsonb_populate_recordset(NULL::equivalencies, $1::jsonb) AS r
         JOIN unnest($2::text[], $3::int[]) AS v (id, version) ON v.id = r.id
         WHERE e.id = r.id AND e.version = v.version`,
        JSON.stringify(records.map((record) => byColumn(equivalencyColumns(), record))),
        records.map((record) => record.id),
        records.map((record) => readVersions.get(record.id)!),
      );
    },

    insertVersions: (versions: NewEquivalencyVersion[]) =>
      insertRows("EquivalencyVersion", "equivalency_versions", versions),

    /**
     * Refreshes the planner's statistics of the equivalencies after a large import. The embedded
     * database has no autovacuum: without statistics its planner answered the ambiguity check
     * from the (environment, target institution) index, reading every rule of the institution
     * (65 ms at 50,000 rules, 0.1 ms with them). PostgreSQL's autovacuum would do the same later.
     */
    async refreshStatistics(): Promise<void> {
      // Run in a transaction (SET LOCAL). A sample of 3,000 rows rather than 30,000: the plans these
      // lookups need come from the table's size and rough distinct counts, and the full sample held
      // the embedded database's one connection for 0.6–0.8 s at 30,000 rules.
      await db.$executeRawUnsafe("SET LOCAL default_statistics_target = 10");
      // The columns the rule lookups filter on: statistics of the others (JSON, arrays) cost time and choose nothing here.
      await db.$executeRawUnsafe(
        "ANALYZE equivalencies (environment, target_institution_id, source_set_key, status, priority, source_course_id, target_key)",
      );
    },

    /** Forgets the demand for rules that accepted rules now answer (each source course toward its target institution). */
    async clearRequests(environment: Environment, rules: { targetInstitutionId: string; sourceCourseIds: string[] }[]) {
      const pairs = rules.flatMap((rule) => rule.sourceCourseIds.map((id) => [rule.targetInstitutionId, id]));
      if (!pairs.length) return;
      await db.$executeRawUnsafe(
        `DELETE FROM equivalency_requests AS r
         USING unnest($2::text[], $3::text[]) AS p (target_institution_id, source_course_id)
         WHERE r.environment = $1::"Environment" AND r.target_institution_id = p.target_institution_id
           AND r.source_course_id = p.source_course_id`,
        environment,
        pairs.map(([institution]) => institution),
        pairs.map(([, course]) => course),
      );
    },
  };
}

export type EquivalencyImportsRepository = ReturnType<typeof createEquivalencyImportsRepository>;

/**
 * The ids of the equivalencies with these identities and of the accepted rules of these rule
 * sets, as a subquery and its parameters ($1 the environment). Any of a stored rule's sets equal
 * to a set of the file: for a few sets by the GIN index of migration agreements_as_published;
 * for many, `&&` would compare each rule's keys with every key of the file (10,000 × 10,000
 * comparisons took 1.7 s), so the accepted rules of the file's target institutions are read
 * instead and each of their keys looked up in the file's keys by hash.
 */
function storedRuleIds(environment: Environment, keys: RuleIdentityKey[], sets: RuleSet[]) {
  const setKeys = [...new Set(sets.map((set) => `${set.targetInstitutionId} ${set.sourceSetKey}`))];
  const few = setKeys.length <= FEW_SETS;
  const acceptedInSets = few
    ? `SELECT a.id FROM equivalencies AS a
       WHERE "equivalency_source_keys"(a.target_institution_id, a.source_set_keys) && $5::text[]
         AND a.status = 'accepted' AND a.environment = $1::"Environment"`
    : `SELECT a.id FROM equivalencies AS a
       CROSS JOIN LATERAL unnest("equivalency_source_keys"(a.target_institution_id, a.source_set_keys)) AS ak (key)
       WHERE a.environment = $1::"Environment" AND a.status = 'accepted'
         AND a.target_institution_id = ANY($6::text[]) AND ak.key = ANY($5::text[])`;
  const params: unknown[] = [
    environment,
    keys.map((k) => k.sourceCourseId),
    keys.map((k) => k.targetInstitutionId),
    keys.map((k) => k.targetKey),
    setKeys,
  ];
  if (!few) params.push([...new Set(sets.map((set) => set.targetInstitutionId))]);
  return {
    sql: `SELECT i.id FROM unnest($2::text[], $3::text[], $4::text[]) AS k (source, target, key)
          JOIN equivalencies AS i ON i.environment = $1::"Environment" AND i.source_course_id = k.source
            AND i.target_institution_id = k.target AND i.target_key = k.key
          UNION
          ${acceptedInSets}`,
    params,
  };
}

/** Stamps in one order, whatever the database's collation. */
export function stampsSorted(stamps: string[]): string[] {
  return stamps.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
