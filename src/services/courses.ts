// Courses: listing, reading, and the batch upsert. A batch is validated whole
// before anything is written, and written in one transaction.
import type { Course, Prisma } from "../../generated/prisma/client.ts";
import type { CourseLevel, Db, Environment, Page, PageResult } from "./types.ts";
import { containsInsensitive } from "./search.ts";
import { NotFoundError, ValidationError, type FieldError } from "../errors.ts";
import { newId } from "../ids.ts";
import { recordEvents } from "./outbox.ts";
import { courseCodeKey, courseView, institutionView } from "./views.ts";

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

function changedFields(existing: Course, next: CourseUpsert): string[] {
  return TRACKED_FIELDS.filter((field) => {
    const value = field === "code" ? next.code.trim().replace(/\s+/g, " ") : next[field];
    return (value ?? null) !== existing[field];
  });
}

/** Reference checks that the schema cannot make: institutions exist, CIP codes are in the catalog, no duplicates. */
async function validateReferences(db: Db, environment: Environment, items: CourseUpsert[]): Promise<void> {
  const errors: FieldError[] = [];
  const institutionIds = [...new Set(items.map((item) => item.institutionId))];
  const cipCodes = [...new Set(items.map((item) => item.cipCode).filter((c): c is string => Boolean(c)))];
  const [institutions, catalogSize, knownCodes] = await Promise.all([
    db.institution.findMany({ where: { environment, id: { in: institutionIds } }, select: { id: true } }),
    cipCodes.length ? db.cipCode.count({ where: { digits: 6 } }) : Promise.resolve(0),
    cipCodes.length ? db.cipCode.findMany({ where: { code: { in: cipCodes }, digits: 6 }, select: { code: true } }) : Promise.resolve([]),
  ]);
  const knownInstitutions = new Set(institutions.map((i) => i.id));
  const knownCip = new Set(knownCodes.map((c) => c.code));
  const firstIndex = new Map<string, number>();
  items.forEach((item, index) => {
    if (!knownInstitutions.has(item.institutionId)) {
      errors.push({ pointer: `/${index}/institutionId`, message: `no institution "${item.institutionId}" in the ${environment} environment` });
    }
    if (item.cipCode && catalogSize > 0 && !knownCip.has(item.cipCode)) {
      errors.push({ pointer: `/${index}/cipCode`, message: `"${item.cipCode}" is not a CIP 2020 code` });
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
 * gets version + 1 and a course.updated event. `single` answers pointers without
 * the item index, as the request was one object.
 */
export async function upsertCourses(
  db: Db,
  environment: Environment,
  items: CourseUpsert[],
  options: { dryRun?: boolean; single?: boolean } = {},
): Promise<UpsertResult> {
  try {
    await validateReferences(db, environment, items);
  } catch (error) {
    if (options.single && error instanceof ValidationError) {
      throw new ValidationError(error.message, error.errors.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/0/, "") })));
    }
    throw error;
  }
  const run = async (tx: Prisma.TransactionClient) => {
    const existing = await findExisting(tx, environment, items);
    const now = new Date();
    const results: UpsertResult["data"] = [];
    const creates: Prisma.CourseCreateManyInput[] = [];
    const updates: { id: string; item: CourseUpsert; version: number; changed: string[]; result: UpsertResult["data"][number] }[] = [];
    for (const item of items) {
      const code = item.code.trim().replace(/\s+/g, " ");
      const current = existing.get(`${item.institutionId}\u0000${courseCodeKey(code)}`);
      if (!current) {
        const id = options.dryRun ? null : newId("crs");
        if (id) creates.push(createInput(id, environment, item, code, now));
        results.push({ id, institutionId: item.institutionId, code, version: 1, result: "created" });
      } else {
        const result = { id: current.id, institutionId: item.institutionId, code, version: current.version + 1, result: "updated" as const };
        updates.push({ id: current.id, item: { ...item, code }, version: current.version + 1, changed: changedFields(current, item), result });
        results.push(result);
      }
    }
    if (!options.dryRun) {
      if (creates.length) await tx.course.createMany({ data: creates });
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

function createInput(id: string, environment: Environment, item: CourseUpsert, code: string, now: Date): Prisma.CourseCreateManyInput {
  return {
    id,
    environment,
    institutionId: item.institutionId,
    code,
    codeKey: courseCodeKey(code),
    title: item.title,
    credits: item.credits,
    level: item.level,
    description: item.description ?? null,
    cipCode: item.cipCode ?? null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
}

async function findExisting(tx: Prisma.TransactionClient, environment: Environment, items: CourseUpsert[]) {
  const byInstitution = new Map<string, string[]>();
  for (const item of items) {
    const keys = byInstitution.get(item.institutionId) ?? [];
    keys.push(courseCodeKey(item.code));
    byInstitution.set(item.institutionId, keys);
  }
  const rows = await tx.course.findMany({
    where: { environment, OR: [...byInstitution].map(([institutionId, codeKeys]) => ({ institutionId, codeKey: { in: codeKeys } })) },
  });
  return new Map(rows.map((row) => [`${row.institutionId}\u0000${row.codeKey}`, row]));
}

/** One statement for the whole batch: UPDATE … FROM (VALUES …); returns each row's new version. */
async function applyUpdates(tx: Prisma.TransactionClient, updates: { id: string; item: CourseUpsert }[], now: Date) {
  if (!updates.length) return new Map<string, number>();
  const params: unknown[] = [];
  const rows = updates.map(({ id, item }) => {
    const start = params.length;
    params.push(id, item.code, item.title, item.credits, item.level, item.description ?? null, item.cipCode ?? null);
    const p = (i: number) => `$${start + i}`;
    return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}::double precision, ${p(5)}::"CourseLevel", ${p(6)}, ${p(7)})`;
  });
  params.push(now);
  const updated = await tx.$queryRawUnsafe<{ id: string; version: number }[]>(
    `UPDATE courses AS c SET code = v.code, title = v.title, credits = v.credits, level = v.level,
       description = v.description, cip_code = v.cip_code, version = c.version + 1, updated_at = $${params.length}
     FROM (VALUES ${rows.join(", ")}) AS v (id, code, title, credits, level, description, cip_code)
     WHERE c.id = v.id
     RETURNING c.id, c.version`,
    ...params,
  );
  return new Map(updated.map((row) => [row.id, Number(row.version)]));
}
