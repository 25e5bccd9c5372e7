// Courses: listing, reading, and the batch upsert. A batch is validated whole
// before anything is written, and written in one transaction.
import type { Credential } from "../auth/credential.ts";
import type { Repositories, TransactionRepositories } from "../repositories/index.ts";
import { TRACKED_FIELDS, type CourseFilters, type ExistingCourse, type NewCourse } from "../repositories/courses.ts";
import type { CourseLevel, CreditUnit, Page, PageResult } from "./types.ts";
import { assertSteward } from "./stewardship.ts";
import { CourseCodeTakenError, notFound, ValidationError, type FieldError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";
import { auditChange } from "./audit.ts";
import { BLANK_CODE, courseCodeKey, courseView, institutionView, isBlankCode } from "../views/catalog.ts";

export type { CourseFilters } from "../repositories/courses.ts";

export interface CourseUpsert {
  institutionId: string;
  code: string;
  title: string;
  credits: number;
  creditUnit?: CreditUnit;
  level: CourseLevel;
  description?: string | null;
  cipCode?: string | null;
  /** Omitted: the stored codes stay. */
  crossListedCodes?: string[];
}

export type CourseView = ReturnType<typeof courseView>;

/** What a course upserted without `creditUnit` counts in (the contract's default). */
const DEFAULT_CREDIT_UNIT: CreditUnit = "semester";

export interface UpsertResult {
  data: { id: string | null; institutionId: string; code: string; version: number; result: "created" | "updated" }[];
  summary: { received: number; created: number; updated: number };
}

function changedFields(existing: Pick<ExistingCourse, (typeof TRACKED_FIELDS)[number]>, next: CourseUpsert): string[] {
  return TRACKED_FIELDS.filter((field) => {
    const value =
      field === "code"
        ? next.code.trim().replace(/\s+/g, " ")
        : field === "creditUnit"
          ? (next.creditUnit ?? DEFAULT_CREDIT_UNIT)
          : next[field];
    return (value ?? null) !== existing[field];
  });
}

/** The cross-listed codes as stored: trimmed, white space collapsed, in the order given. */
function spelled(codes: readonly string[]): string[] {
  return codes.map((code) => code.trim().replace(/\s+/g, " "));
}

/**
 * The codes an item claims at its institution (its own, then its cross-listed ones), each with
 * the pointer that names it.
 */
function claimsOf(item: CourseReferences, index: number): { codeKey: string; code: string; pointer: string }[] {
  if (item.code === undefined || isBlankCode(item.code)) return [];
  return [
    { codeKey: courseCodeKey(item.code), code: item.code, pointer: `/${index}/code` },
    ...(item.crossListedCodes ?? []).flatMap((code, j) =>
      isBlankCode(code) ? [] : [{ codeKey: courseCodeKey(code), code, pointer: `/${index}/crossListedCodes/${j}` }],
    ),
  ];
}

function createInput(id: string, item: CourseUpsert, code: string): NewCourse {
  return {
    ...item,
    id,
    code,
    codeKey: courseCodeKey(code),
    creditUnit: item.creditUnit ?? DEFAULT_CREDIT_UNIT,
    description: item.description ?? null,
    cipCode: item.cipCode ?? null,
  };
}

/** Reference checks that the schema cannot make: institutions exist, CIP codes are in the catalog, no duplicates. */
function referenceErrors(
  caller: Credential,
  entries: [number, CourseReferences][],
  known: { institutions: string[]; cipCodes: string[]; catalogLoaded: boolean },
): FieldError[] {
  const environment = caller.environment;
  const errors: FieldError[] = [];
  const knownInstitutions = new Set(known.institutions);
  const knownCip = new Set(known.cipCodes);
  const catalogLoaded = known.catalogLoaded;
  const firstIndex = new Map<string, number>();
  for (const [index, item] of entries) {
    if (item.institutionId !== undefined && !knownInstitutions.has(item.institutionId)) {
      errors.push({
        pointer: `/${index}/institutionId`,
        message: `no institution "${item.institutionId}" in the ${environment} environment`,
      });
    }
    if (item.cipCode && catalogLoaded && !knownCip.has(item.cipCode)) {
      errors.push({ pointer: `/${index}/cipCode`, message: `"${item.cipCode}" is not a CIP 2020 code` });
    }
    if (item.code === undefined) continue;
    if (isBlankCode(item.code)) {
      errors.push({ pointer: `/${index}/code`, message: BLANK_CODE });
      continue;
    }
    (item.crossListedCodes ?? []).forEach((code, j) => {
      if (isBlankCode(code)) errors.push({ pointer: `/${index}/crossListedCodes/${j}`, message: BLANK_CODE });
    });
    if (item.institutionId === undefined) continue;
    const identity = `${item.institutionId}\u0000${courseCodeKey(item.code)}`;
    const first = firstIndex.get(identity);
    if (first !== undefined)
      errors.push({ pointer: `/${index}/code`, message: `the same course as item ${first} of this batch` });
    else firstIndex.set(identity, index);
  }
  // A code belongs to one course: no item's codes may repeat its own, or another item's, codes.
  const claimed = new Map<string, { index: number; pointer: string }>();
  for (const [index, item] of entries) {
    if (item.institutionId === undefined) continue;
    for (const claim of claimsOf(item, index)) {
      const key = `${item.institutionId}\u0000${claim.codeKey}`;
      const earlier = claimed.get(key);
      if (!earlier) claimed.set(key, { index, pointer: claim.pointer });
      else if (earlier.index === index)
        errors.push({
          pointer: claim.pointer,
          message: `${claim.code} is already a code of this course (${earlier.pointer})`,
        });
      else if (!claim.pointer.endsWith("/code") || !earlier.pointer.endsWith("/code"))
        errors.push({
          pointer: claim.pointer,
          message: `${claim.code} is also a code of item ${earlier.index} of this batch: a code belongs to one course`,
        });
    }
  }
  return errors;
}

/** The fields of an item that references are checked on; a field of the wrong type is left to the schema's errors. */
interface CourseReferences {
  institutionId?: string;
  code?: string;
  cipCode?: string | null;
  crossListedCodes?: string[];
}

function referencesOf(item: unknown): CourseReferences {
  if (!item || typeof item !== "object" || Array.isArray(item)) return {};
  const { institutionId, code, cipCode, crossListedCodes } = item as Record<string, unknown>;
  return {
    institutionId: typeof institutionId === "string" ? institutionId : undefined,
    code: typeof code === "string" ? code : undefined,
    cipCode: typeof cipCode === "string" ? cipCode : undefined,
    crossListedCodes: Array.isArray(crossListedCodes)
      ? crossListedCodes.filter((c): c is string => typeof c === "string")
      : undefined,
  };
}

/** A batch's problems answered as one: pointers without the item index when the request was one object. */
function batchError(errors: FieldError[], single: boolean | undefined): ValidationError {
  return ValidationError.of(
    single ? errors.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/0(?=\/|$)/, "") })) : errors,
  );
}

export function createCoursesService({
  courses,
  stewardship,
  transaction,
}: Pick<Repositories, "courses" | "stewardship" | "transaction">) {
  return {
    async listCourses(caller: Credential, filters: CourseFilters, page: Page): Promise<PageResult<CourseView>> {
      const { items, total, next } = await courses.listPage(caller.environment, filters, page);
      return { items: items.map(courseView), total, next };
    },

    async getCourse(caller: Credential, id: string) {
      const record = await courses.findByIdWithInstitution(caller.environment, id);
      if (!record) throw notFound.course(id, caller.environment);
      return { ...courseView(record), institution: institutionView(record.institution) };
    },

    /**
     * Creates new courses at version 1 (no event) and re-upserts existing ones: each
     * gets version + 1 and a course.updated event. Every item's institution must be
     * stewarded by the caller's organization. `single` answers pointers without
     * the item index, as the request was one object.
     */
    /**
     * The reference errors of a batch that failed the schema too, so that one answer
     * lists every problem: each item's fields of the right type are checked.
     */
    async referenceErrorsOf(caller: Credential, items: unknown[], options: { single?: boolean } = {}) {
      const entries = items.map((item, index): [number, CourseReferences] => [index, referencesOf(item)]);
      const institutionIds = [
        ...new Set(entries.map(([, e]) => e.institutionId).filter((i): i is string => Boolean(i))),
      ];
      const cipCodes = [...new Set(entries.map(([, e]) => e.cipCode).filter((c): c is string => Boolean(c)))];
      const known = await courses.findKnownReferences(caller.environment, institutionIds, cipCodes);
      return batchError(referenceErrors(caller, entries, known), options.single).errors;
    },

    async upsertCourses(
      caller: Credential,
      items: CourseUpsert[],
      options: {
        dryRun?: boolean;
        single?: boolean;
        /** Runs inside the batch's transaction with its result, before it commits (the idempotent answer). */
        beforeCommit?: (transaction: TransactionRepositories, result: UpsertResult) => Promise<void>;
      } = {},
    ): Promise<UpsertResult> {
      const environment = caller.environment;
      const institutionIds = [...new Set(items.map((item) => item.institutionId))];
      const cipCodes = [...new Set(items.map((item) => item.cipCode).filter((c): c is string => Boolean(c)))];
      const errors = referenceErrors(
        caller,
        items.map((item, index) => [index, item]),
        await courses.findKnownReferences(environment, institutionIds, cipCodes),
      );
      if (errors.length) throw batchError(errors, options.single);
      await assertSteward(
        stewardship,
        caller,
        items.map((item, index) => ({
          institutionId: item.institutionId,
          pointer: options.single ? "/institutionId" : `/${index}/institutionId`,
        })),
      );
      const plan = (existing: Map<string, ExistingCourse>) => {
        const results: UpsertResult["data"] = [];
        const creates: NewCourse[] = [];
        const updates: {
          id: string;
          item: CourseUpsert;
          version: number;
          changed: string[];
          result: UpsertResult["data"][number];
        }[] = [];
        for (const item of items) {
          const code = item.code.trim().replace(/\s+/g, " ");
          const current = existing.get(`${item.institutionId}\u0000${courseCodeKey(code)}`);
          if (!current) {
            const id = options.dryRun ? null : newId("crs");
            if (id) creates.push(createInput(id, item, code));
            results.push({ id, institutionId: item.institutionId, code, version: 1, result: "created" });
          } else {
            const result = {
              id: current.id,
              institutionId: item.institutionId,
              code,
              version: current.version + 1,
              result: "updated" as const,
            };
            const crossListed =
              item.crossListedCodes !== undefined &&
              spelled(item.crossListedCodes).join("\u0000") !== current.crossListedCodes.join("\u0000");
            updates.push({
              id: current.id,
              item: { ...item, code },
              version: current.version + 1,
              changed: [...changedFields(current, item), ...(crossListed ? ["crossListedCodes"] : [])],
              result,
            });
            results.push(result);
          }
        }
        return { results, creates, updates };
      };
      const keys = items.map((item) => ({ institutionId: item.institutionId, codeKey: courseCodeKey(item.code) }));
      const summarized = (data: UpsertResult["data"]): UpsertResult => {
        const created = data.filter((r) => r.result === "created").length;
        return { data, summary: { received: items.length, created, updated: items.length - created } };
      };
      /** Refuses a code (own or cross-listed) that a stored course other than the item's own holds. */
      const assertCodesFree = async (repository: typeof courses, results: UpsertResult["data"]) => {
        const claims = items.flatMap((item, index) =>
          claimsOf(item, index).map((claim) => ({ ...claim, institutionId: item.institutionId, index })),
        );
        const owners = await repository.findCodeOwners(environment, claims);
        for (const claim of claims) {
          const owner = owners.get(`${claim.institutionId}\u0000${claim.codeKey}`);
          if (owner === undefined || owner === results[claim.index].id) continue;
          const clashes = claims.filter((c) => owners.get(`${c.institutionId}\u0000${c.codeKey}`) === owner);
          const pointer = (c: (typeof claims)[number]) => (options.single ? c.pointer.replace(/^\/0/, "") : c.pointer);
          throw new CourseCodeTakenError(
            owner,
            clashes
              .filter((c) => results[c.index].id !== owner)
              .map((c) => ({ pointer: pointer(c), message: `${c.code} is a code of ${owner}` })),
            claim.code,
            claim.institutionId,
          );
        }
      };
      if (options.dryRun) {
        const { results } = plan(await courses.findByCodeKeys(environment, keys));
        await assertCodesFree(courses, results);
        return summarized(results);
      }
      return transaction(async (writes) => {
        const { courses: inTransaction, outbox } = writes;
        const { results, creates, updates } = plan(await inTransaction.findByCodeKeys(environment, keys));
        await assertCodesFree(inTransaction, results);
        const now = new Date();
        if (creates.length) await inTransaction.insertMany(environment, creates, now);
        const versions = await inTransaction.updateMany(
          updates.map(({ id, item }) => ({
            id,
            code: item.code,
            title: item.title,
            credits: item.credits,
            creditUnit: item.creditUnit ?? DEFAULT_CREDIT_UNIT,
            level: item.level,
            description: item.description ?? null,
            cipCode: item.cipCode ?? null,
          })),
          now,
        );
        for (const update of updates)
          update.version = update.result.version = versions.get(update.id) ?? update.version;
        await inTransaction.replaceCrossListedCodes(
          environment,
          items.flatMap((item, index) =>
            item.crossListedCodes !== undefined
              ? [{ id: results[index].id!, codes: spelled(item.crossListedCodes) }]
              : [],
          ),
        );
        await outbox.recordEvents(
          environment,
          updates.map((u) => ({
            type: "course.updated" as const,
            data: { courseId: u.id, version: u.version, changedFields: u.changed },
          })),
        );
        const result = summarized(results);
        const changed = { organizationId: caller.organizationId, environment, type: "course" };
        await auditChange(
          writes,
          results.map((course) => ({ ...changed, id: course.id })),
        );
        await options.beforeCommit?.(writes, result);
        return result;
      });
    },
  };
}

export type CoursesService = ReturnType<typeof createCoursesService>;
