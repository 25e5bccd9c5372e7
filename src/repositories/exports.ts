// Keyset-paginated reading of a whole table for exports: each query asks for
// the rows after the last one already read, in a total order, so memory stays
// at one batch however large the table, and no row is skipped or repeated while
// rows are neither inserted nor deleted during the read.
import type { Executor } from "./executor.ts";
import type { Equivalency, Prisma } from "../../generated/prisma/client.ts";
import { columnsOf, recordFromJson } from "./record-columns.ts";
import type { Readable } from "node:stream";
import type { Database } from "../db/database.ts";
import type { Environment } from "../../generated/prisma/client.ts";
import { DATASET_VERSION_ID, withDatasetVersionIds } from "./dataset-heads.ts";

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

const ascending = (keys: readonly string[]) => keys.map((key) => ({ [key]: "asc" as const }));

/*
 * Every course named by a rule is read by its key: each lookup is a LATERAL subquery with LIMIT 1,
 * which the planner cannot pull up into a join. Joined plainly, the planner took the arrays'
 * elements for a hundred rows and hashed the whole course table for each rule (exports quadratic
 * in rules × courses on real catalogs); test/unit/export-lookups.test.ts holds the work per rule
 * constant as the catalog grows.
 */

/**
 * An equivalency row `e`'s source courses, in order, each looked up once: codes and titles joined
 * by " | ", codes joined by " + " (the rule's set when it has one), and the first one's institution
 * id (its name comes from a join on the few institutions, hashed once per export).
 */
const SOURCE_NAMES = `SELECT string_agg(c.code, ' | ' ORDER BY s.position) AS codes,
    string_agg(c.title, ' | ' ORDER BY s.position) AS titles,
    string_agg(c.code, ' + ' ORDER BY s.position) AS set_codes,
    (array_agg(c.institution_id ORDER BY s.position))[1] AS institution_id
  FROM unnest(e.source_course_ids) WITH ORDINALITY AS s(id, position)
  CROSS JOIN LATERAL (SELECT c.code, c.title, c.institution_id FROM courses AS c WHERE c.id = s.id LIMIT 1) AS c`;

/**
 * An equivalency row `e`'s targets, in order, each course looked up once: codes, the titles of
 * those that are course records (else empty), and the targets as the import writes them — joined
 * by " + " (all) or " or " (one_of), a course target by its own code and its cross-listed ones
 * joined by " = " ("COMPSCI C8 = DATA C8"), a code target by its code.
 */
const TARGET_NAMES = `SELECT string_agg(coalesce(t.value->>'code', ''), ' | ' ORDER BY t.position) AS codes,
    string_agg(coalesce(tc.title, ''), ' | ' ORDER BY t.position) AS titles,
    string_agg(CASE WHEN tc.id IS NOT NULL
      THEN array_to_string(ARRAY[tc.code] || tc.cross_listed_codes, ' = ') ELSE coalesce(t.value->>'code', '') END,
      CASE WHEN e.target_choice = 'one_of' THEN ' or ' ELSE ' + ' END ORDER BY t.position) AS course_codes
  FROM jsonb_array_elements(e.targets) WITH ORDINALITY AS t(value, position)
  LEFT JOIN LATERAL (SELECT id, code, title, cross_listed_codes FROM courses WHERE id = t.value->>'courseId' LIMIT 1) AS tc ON true`;

/**
 * The equivalency CSV's record for a row `e` (EQUIVALENCY_CSV_JOINS naming its sources, targets and
 * institutions), rendered with the "csv_cell" and "iso_timestamp" functions of the migration
 * "csv_cells". The sets' codes are "source_set_codes_of" (migration "ctdl_alternatives", which the CTDL
 * name shares; set-returning, so inlined here) for a rule of several sets; of one set, the same
 * text from the sources' own lookup.
 * Only the free-text columns go through csv_cell: ids (generated, `[a-z0-9_]`), enum values, the
 * version and timestamps never need quoting or a formula guard. concat_ws skips a NULL argument
 * altogether, so every nullable column is coalesced to the empty cell csv-stringify writes for a null.
 */
const EQUIVALENCY_CSV_RECORD = `concat_ws(',', e.id, e.source_course_id, e.target_institution_id,
    coalesce(e.target_course_id, ''), csv_cell(e.target_code), e.status::text, csv_cell(e.decided_by),
    coalesce(iso_timestamp(e.decided_at), ''), csv_cell(e.policy_basis), e.version::text,
    coalesce(e.provenance::text, ''), coalesce(${DATASET_VERSION_ID}, ''), iso_timestamp(e.created_at),
    iso_timestamp(e.updated_at),
    csv_cell(array_to_json(e.source_course_ids)::text), csv_cell(src.codes), csv_cell(src.titles),
    csv_cell(si.name), csv_cell(ti.name), csv_cell(tgt.codes), csv_cell(tgt.titles),
    e.kind::text, csv_cell(e.general_education_area), csv_cell(e.minimum_grade),
    coalesce(e.effective_from::text, ''), coalesce(e.effective_until::text, ''), e.priority::text,
    coalesce(e.awarded_credits::text, ''), coalesce(e.awarded_credit_unit::text, ''),
    csv_cell(e.source_course_sets::text),
    csv_cell(CASE WHEN jsonb_array_length(e.source_course_sets) > 1
      THEN (SELECT codes FROM "source_set_codes_of"(e.source_course_sets)) ELSE src.set_codes END),
    e.target_choice::text, csv_cell(tgt.course_codes))`;

const EQUIVALENCY_CSV_JOINS = `LEFT JOIN LATERAL (${SOURCE_NAMES}) AS src ON true
  LEFT JOIN LATERAL (${TARGET_NAMES}) AS tgt ON true
  LEFT JOIN institutions AS si ON si.environment = e.environment AND si.id = src.institution_id
  LEFT JOIN institutions AS ti ON ti.environment = e.environment AND ti.id = e.target_institution_id`;

/** The equivalency exports the database renders whole. */
export type RenderedFormat = "csv" | "json" | "ctdl";

/**
 * What each rendered export is for a row `e`, and the joins that needs: the batches and the COPY
 * render with these (and test/unit/export-lookups.test.ts reads their plans).
 */
export const EQUIVALENCY_RENDERINGS: Record<RenderedFormat, { value: string; joins: string }> = {
  csv: { value: `${EQUIVALENCY_CSV_RECORD} || E'\r\n'`, joins: EQUIVALENCY_CSV_JOINS },
  json: { value: `"equivalency_api_json"(e, ${DATASET_VERSION_ID})`, joins: "" },
  // The set-returning twin of "equivalency_ctdl_json" (migration "dataset_version_at_read"), inlined into the
  // export's plan: its arguments are plain columns (an argument holding a subquery, the datasetVersionId's,
  // keeps a function from being inlined, so that one is computed by its own LATERAL, OFFSET 0 keeping it there).
  ctdl: {
    value: "ctdl.node",
    joins: `LEFT JOIN LATERAL (SELECT c AS course FROM courses AS c WHERE c.id = e.source_course_id LIMIT 1) AS sc ON true
      LEFT JOIN institutions AS si ON si.environment = (sc.course).environment AND si.id = (sc.course).institution_id
      LEFT JOIN institutions AS ti ON ti.environment = e.environment AND ti.id = e.target_institution_id
      LEFT JOIN LATERAL (SELECT ${DATASET_VERSION_ID} AS id OFFSET 0) AS published ON true
      LEFT JOIN LATERAL "equivalency_ctdl_of"(e, sc.course, si, ti, published.id) AS ctdl ON true`,
  },
};

const ENVIRONMENTS: readonly Environment[] = ["live", "sandbox"];

/** An environment as an SQL literal, for the statements that take no parameters (COPY). */
function environmentLiteral(environment: Environment): string {
  if (!ENVIRONMENTS.includes(environment)) throw new Error(`unknown environment ${environment}`);
  return `'${environment}'::"Environment"`;
}

/**
 * `copyValues` (Database.copyValues, PostgreSQL), when given, streams the largest exports with one
 * COPY instead of reading them batch by batch; `readBytes` (Database.readBytes, the embedded
 * database), when given, reads each rendered batch as bytes instead of a string.
 */
export function createExportsRepository(
  db: Executor,
  copyValues?: Database["copyValues"],
  readBytes?: Database["readBytes"],
) {
  /**
   * Equivalencies rendered by the database a batch at a time: `value` is the text of a row `e`
   * (with `joins`); the export's first row is preceded by `lead`, every other one by `separator`.
   * The row comparison starts the (environment, created_at, id) index scan at the last row read.
   */
  function renderedBatches(environment: Environment, value: string, separator: string, joins: string, lead = "") {
    return async (after: BatchKey | null, take: number): Promise<RenderedBatch> => {
      const params: unknown[] = [environment, take, after?.lastCreatedAt ? separator : lead, separator];
      if (after?.lastCreatedAt) params.push(after.lastCreatedAt, after.lastId);
      const sql = `WITH batch AS (
           SELECT * FROM equivalencies WHERE environment = $1::"Environment"
           ${after?.lastCreatedAt ? "AND (created_at, id) > ($5::timestamp(3), $6)" : ""}
           ORDER BY created_at, id LIMIT $2)
         SELECT $3::text || (SELECT string_agg(${value}, $4::text ORDER BY e.created_at, e.id)
                 FROM batch AS e ${joins}) AS text,
                (SELECT count(*)::int FROM batch) AS rows,
                last.created_at AS last_created_at, last.id AS last_id
         FROM (SELECT 1) AS one
         LEFT JOIN (SELECT created_at, id FROM batch ORDER BY created_at DESC, id DESC LIMIT 1) AS last ON true`;
      if (readBytes) {
        const { bytes, row } = await readBytes(sql, params, "text");
        return { text: bytes, ...batchKey(row as unknown as BatchRow) };
      }
      const [row] = await db.$queryRawUnsafe<(BatchRow & { text: string | null })[]>(sql, ...params);
      return { text: row.text ?? "", ...batchKey(row) };
    };
  }

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

    /**
     * The largest export reads its batches as one JSON text each (as the list
     * does, see equivalencies.ts): one value to decode per batch instead of one
     * per column and row, and no Prisma result mapping. The row comparison
     * starts the (environment, created_at, id) index scan at the last row read.
     */
    equivalencyBatches(environment: Environment) {
      const columns = columnsOf(db, "Equivalency");
      return async (after: { createdAt: Date; id: string } | null, take: number): Promise<Equivalency[]> => {
        const params: unknown[] = [environment, take];
        if (after) params.push(after.createdAt, after.id);
        const [row] = await db.$queryRawUnsafe<{ batch: string }[]>(
          `SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.created_at, e.id), '[]')::text AS batch
           FROM (SELECT * FROM equivalencies WHERE environment = $1::"Environment"
                 ${after ? "AND (created_at, id) > ($3::timestamp(3), $4)" : ""}
                 ORDER BY created_at, id LIMIT $2) AS e`,
          ...params,
        );
        const records = (JSON.parse(row.batch) as Record<string, unknown>[]).map(
          (json) => recordFromJson<Equivalency>(json, columns)!,
        );
        return withDatasetVersionIds(db, records);
      };
    },

    /**
     * The equivalency CSV, rendered by the database a batch at a time (EQUIVALENCY_CSV_RECORD):
     * each batch is one text of CRLF-ended records in CSV_COLUMNS order, with the key of its last
     * row to read on from.
     */
    equivalencyCsvBatches(environment: Environment) {
      const { value, joins } = EQUIVALENCY_RENDERINGS.csv;
      const read = renderedBatches(environment, value, "", joins);
      return async (after: BatchKey | null, take: number): Promise<CsvBatch> => {
        const { text, ...batch } = await read(after, take);
        return { csv: text, ...batch };
      };
    },

    /**
     * The equivalency JSON export's elements (equivalencyView, as the "equivalency_api_json"
     * function of the migration "dataset_version_at_read" renders it), a batch at a
     * time: one text of the batch's elements, each after ",\n" but the very first, which follows a
     * line break (as the COPY's first element does once its comma is skipped).
     */
    equivalencyJsonBatches(environment: Environment) {
      const { value, joins } = EQUIVALENCY_RENDERINGS.json;
      return renderedBatches(environment, value, ",\n", joins, "\n");
    },

    /**
     * The CTDL export's nodes (one ceterms:TransferValueProfile per rule, as the
     * "equivalency_ctdl_of" function of the migration "ctdl_alternatives" renders it), a
     * batch at a time, framed as the JSON batches are.
     */
    equivalencyCtdlBatches(environment: Environment) {
      const { value, joins } = EQUIVALENCY_RENDERINGS.ctdl;
      return renderedBatches(environment, value, ",\n", joins, "\n");
    },

    /**
     * The same texts as the CSV, JSON and CTDL batches, the whole export in one COPY, as bytes
     * (PostgreSQL: Database.copyValues); null where the database has no COPY to its client (the
     * embedded one). Each JSON element or CTDL node is preceded by ",\n", the first one's comma
     * included (a window function to tell the first row apart slowed the COPY by a third).
     */
    equivalencyCopy(environment: Environment, format: RenderedFormat): Promise<Readable> | null {
      if (!copyValues) return null;
      const { value: rendered, joins } = EQUIVALENCY_RENDERINGS[format];
      const value = format === "csv" ? rendered : `E',\n' || ${rendered}`;
      return copyValues(
        `SELECT ${value} FROM equivalencies AS e ${joins}
         WHERE e.environment = ${environmentLiteral(environment)} ORDER BY e.created_at, e.id`,
      );
    },
  };
}

export type ExportsRepository = ReturnType<typeof createExportsRepository>;

/** The key of a batch's last row (null when the batch is empty): where the next batch starts. */
export interface BatchKey {
  lastCreatedAt: Date | null;
  lastId: string | null;
}

/** A batch of rendered rows (bytes when read by Database.readBytes), and the key of its last row. */
export interface RenderedBatch extends BatchKey {
  text: string | Buffer;
  rows: number;
}

/** A batch of CSV records, and the key of its last row (null when the batch is empty). */
export interface CsvBatch extends BatchKey {
  csv: string | Buffer;
  rows: number;
}

/** The columns of a rendered batch's statement besides its text. */
interface BatchRow {
  rows: number;
  last_created_at: Date | null;
  last_id: string | null;
}

function batchKey(row: BatchRow): BatchKey & { rows: number } {
  return { rows: Number(row.rows), lastCreatedAt: row.last_created_at, lastId: row.last_id };
}
