// Courses: listing, reading, and the batch upsert. A batch is validated whole
// before anything is written, and written in one transaction.
import type { Course, Prisma } from "../../generated/prisma/client.ts";
import type { CourseLevel, Db, Environment, Page, PageResult } from "./types.ts";
import type { Credential } from "../auth/credential.ts";
import { assertSteward } from "./stewardship.ts";
import { containsInsensitive } from "./search.ts";
import { NotFoundError, ValidationError, type FieldError } from "../errors.ts";
import { newId } from "../ids.ts";
import { recordEvents } from "./outbox.ts";
import { BLANK_CODE, courseCodeKey, courseView, institutionView, isBlankCode } from "./views.ts";

export interface CourseUpsert {
  institutionId: string;
  code: string;
  title: string;
  credits: number;
  level: CourseLevel;
  description?: string | null;
  cipCode?: string | null;
}

export interface CourseFilters {
  institution?: string;
  /** A six-digit code, or a family ("11") or series ("11.07") prefix. */
  cip?: string;
  q?: string;
}

export type CourseView = ReturnType<typeof courseView>;

export interface UpsertResult {
  data: { id: string | null; institutionId: string; code: string; version: number; result: "created" | "updated" }[];
  summary: { received: number; created: number; updated: number };
}

/** Ordered by institution, code, then id. */
export async function listCourses(db: Db, environment: Environment, filters: CourseFilters, page: Page): Promise<PageResult<CourseView>> {
  const where: Prisma.CourseWhereInput = {
    environment,
    ...(filters.institution ? { institutionId: filters.institution } : {}),
    ...(filters.cip ? (filters.cip.length === 7 ? { cipCode: filters.cip } : { cipCode: { startsWith: filters.cip } }) : {}),
    ...(filters.q
      ? { OR: [{ code: containsInsensitive(filters.q) }, { title: containsInsensitive(filters.q) }] }
      : {}),
  };
  const [items, total] = await Promise.all([
    db.course.findMany({ where, orderBy: [{ institutionId: "asc" }, { codeKey: "asc" }, { id: "asc" }], take: page.limit, skip: page.offset }),
    db.course.count({ where }),
  ]);
  return { items: items.map(courseView), total };
}

export async function getCourse(db: Db, environment: Environment, id: string) {
  const record = await db.course.findFirst({ where: { id, environment }, include: { institution: true } });
  if (!record) throw new NotFoundError(`No course with id "${id}" in the ${environment} environment.`);
  return { ...courseView(record), institution: institutionView(record.institution) };
}

const TRACKED_FIELDS = ["code", "title", "credits", "level", "description", "cipCode"] as const;

function changedFields(existing: Pick<Course, (typeof TRACKED_FIELDS)[number]>, next: CourseUpsert): string[] {
  return TRACKED_FIELDS.filter((field) => {
    const value = field === "code" ? next.code.trim().replace(/\s+/g, " ") : next[field];
    return (value ?? null) !== existing[field];
  });
}

/** One round trip: which of the institutions and six-digit CIP codes exist, and whether the CIP catalog is loaded at all. */
async function knownReferences(db: Db, environment: Environment, institutionIds: string[], cipCodes: string[]) {
  const [row] = await db.$queryRawUnsafe<{ institutions: string[] | null; cipCodes: string[] | null; catalogLoaded: boolean }[]>(
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
}

/** Reference checks that the schema cannot make: institutions exist, CIP codes are in the catalog, no duplicates. */
async function validateReferences(db: Db, environment: Environment, items: CourseUpsert[]): Promise<void> {
  const errors: FieldError[] = [];
  const institutionIds = [...new Set(items.map((item) => item.institutionId))];
  const cipCodes = [...new Set(items.map((item) => item.cipCode).filter((c): c is string => Boolean(c)))];
  const known = await knownReferences(db, environment, institutionIds, cipCodes);
  const knownInstitutions = new Set(known.institutions);
  const knownCip = new Set(known.cipCodes);
  const catalogLoaded = known.catalogLoaded;
  const firstIndex = new Map<string, number>();
  items.forEach((item, index) => {
    if (!knownInstitutions.has(item.institutionId)) {
      errors.push({ pointer: `/${index}/institutionId`, message: `no institution "${item.institutionId}" in the ${environment} environment` });
    }
    if (item.cipCode && catalogLoaded && !knownCip.has(item.cipCode)) {
      errors.push({ pointer: `/${index}/cipCode`, message: `"${item.cipCode}" is not a CIP 2020 code` });
    }
    if (isBlankCode(item.code)) {
      errors.push({ pointer: `/${index}/code`, message: BLANK_CODE });
      return;
    }
    const identity = `${item.institutionId}\u0000${courseCodeKey(item.code)}`;
    const first = firstIndex.get(identity);
    if (first !== undefined) errors.push({ pointer: `/${index}/code`, message: `the same course as item ${first} of this batch` });
    else firstIndex.set(identity, index);
  });
  if (errors.length) {
    throw new ValidationError(`${errors.length} problem(s) in the batch; nothing was written.`, errors);
  }
}

/**
 * Creates new courses at version 1 (no event) and re-upserts existing ones: each
 * gets version + 1 and a course.updated event. Every item's institution must be
 * stewarded by the credential's organization. `single` answers pointers without
 * the item index, as the request was one object.
 */
export async function upsertCourses(
  db: Db,
  credential: Credential,
  items: CourseUpsert[],
  options: { dryRun?: boolean; single?: boolean } = {},
): Promise<UpsertResult> {
  const environment = credential.environment;
  try {
    await validateReferences(db, environment, items);
  } catch (error) {
    if (options.single && error instanceof ValidationError) {
      throw new ValidationError(error.message, error.errors.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/0/, "") })));
    }
    throw error;
  }
  await assertSteward(
    db,
    credential,
    items.map((item, index) => ({ institutionId: item.institutionId, pointer: options.single ? "/institutionId" : `/${index}/institutionId` })),
  );
  const run = async (tx: Prisma.TransactionClient) => {
    const existing = await findExisting(tx, environment, items);
    const now = new Date();
    const results: UpsertResult["data"] = [];
    const creates: NewCourse[] = [];
    const updates: { id: string; item: CourseUpsert; version: number; changed: string[]; result: UpsertResult["data"][number] }[] = [];
    for (const item of items) {
      const code = item.code.trim().replace(/\s+/g, " ");
      const current = existing.get(`${item.institutionId}\u0000${courseCodeKey(code)}`);
      if (!current) {
        const id = options.dryRun ? null : newId("crs");
        if (id) creates.push(createInput(id, item, code));
        results.push({ id, institutionId: item.institutionId, code, version: 1, result: "created" });
      } else {
        const result = { id: current.id, institutionId: item.institutionId, code, version: current.version + 1, result: "updated" as const };
        updates.push({ id: current.id, item: { ...item, code }, version: current.version + 1, changed: changedFields(current, item), result });
        results.push(result);
      }
    }
    if (!options.dryRun) {
      if (creates.length) await insertCourses(tx, environment, creates, now);
      // Versions come from the rows themselves, so concurrent upserts never reuse one.
      const versions = await applyUpdates(tx, updates, now);
      for (const update of updates) update.version = update.result.version = versions.get(update.id) ?? update.version;
      await recordEvents(
        tx,
        environment,
        updates.map((u) => ({ type: "course.updated" as const, data: { courseId: u.id, version: u.version, changedFields: u.changed } })),
      );
    }
    return results;
  };
  const data = options.dryRun ? await run(db) : await db.$transaction(run);
  const created = data.filter((r) => r.result === "created").length;
  return { data, summary: { received: items.length, created, updated: items.length - created } };
}

type NewCourse = Omit<CourseUpsert, "description" | "cipCode"> & { id: string; codeKey: string; description: string | null; cipCode: string | null };

function createInput(id: string, item: CourseUpsert, code: string): NewCourse {
  return { ...item, id, code, codeKey: courseCodeKey(code), description: item.description ?? null, cipCode: item.cipCode ?? null };
}

// The batch statements below pass the whole batch as one JSON parameter read
// with json_to_recordset: Prisma's createMany, a findMany with a long IN list,
// and even array parameters cost several times more per row on both databases
// (see scripts/bench/course-upsert.ts).

/** Inserts a batch of new courses at version 1 in one statement. */
async function insertCourses(tx: Prisma.TransactionClient, environment: Environment, creates: NewCourse[], now: Date) {
  await tx.$executeRawUnsafe(
    `INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, level, description, cip_code, version, created_at, updated_at)
     SELECT v.id, $1::"Environment", v."institutionId", v.code, v."codeKey", v.title, v.credits, v.level::"CourseLevel", v.description, v."cipCode",
            1, $2::timestamp(3), $2::timestamp(3)
     FROM json_to_recordset($3::json)
       AS v (id text, "institutionId" text, code text, "codeKey" text, title text, credits double precision, level text, description text, "cipCode" text)`,
    environment,
    now,
    JSON.stringify(creates),
  );
}

type ExistingCourse = Pick<Course, "id" | "institutionId" | "codeKey" | "version" | (typeof TRACKED_FIELDS)[number]>;

async function findExisting(tx: Prisma.TransactionClient, environment: Environment, items: CourseUpsert[]) {
  const rows = await tx.$queryRawUnsafe<ExistingCourse[]>(
    `SELECT c.id, c.institution_id AS "institutionId", c.code_key AS "codeKey", c.code, c.title, c.credits,
            c.level::text AS level, c.description, c.cip_code AS "cipCode", c.version
     FROM courses AS c
     JOIN json_to_recordset($2::json) AS k ("institutionId" text, "codeKey" text)
       ON c.institution_id = k."institutionId" AND c.code_key = k."codeKey"
     WHERE c.environment = $1::"Environment"`,
    environment,
    JSON.stringify(items.map((item) => ({ institutionId: item.institutionId, codeKey: courseCodeKey(item.code) }))),
  );
  return new Map(rows.map((row) => [`${row.institutionId}\u0000${row.codeKey}`, { ...row, credits: Number(row.credits), version: Number(row.version) }]));
}

/** One statement for the whole batch; returns each row's new version. */
async function applyUpdates(tx: Prisma.TransactionClient, updates: { id: string; item: CourseUpsert }[], now: Date) {
  if (!updates.length) return new Map<string, number>();
  const rows = updates.map(({ id, item }) => ({
    id,
    code: item.code,
    title: item.title,
    credits: item.credits,
    level: item.level,
    description: item.description ?? null,
    cipCode: item.cipCode ?? null,
  }));
  const updated = await tx.$queryRawUnsafe<{ id: string; version: number }[]>(
    `UPDATE courses AS c SET code = v.code, title = v.title, credits = v.credits, level = v.level::"CourseLevel",
       description = v.description, cip_code = v."cipCode", version = c.version + 1, updated_at = $1::timestamp(3)
     FROM json_to_recordset($2::json)
       AS v (id text, code text, title text, credits double precision, level text, description text, "cipCode" text)
     WHERE c.id = v.id
     RETURNING c.id, c.version`,
    now,
    JSON.stringify(rows),
  );
  return new Map(updated.map((row) => [row.id, Number(row.version)]));
}
