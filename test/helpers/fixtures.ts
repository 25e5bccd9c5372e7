// A small, known catalog for tests: institutions in both environments, and courses of them.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Db } from "../../src/db/database.ts";
import type { Environment } from "../../src/services/types.ts";
import type { InstitutionRow } from "../../src/services/imports/institutions.ts";
import { createCatalogImportsService } from "../../src/services/imports/index.ts";
import { createCatalogImportsRepository } from "../../src/repositories/catalog-imports.ts";
import { bearer, type TestApp } from "./app.ts";

export const INSTITUTIONS: InstitutionRow[] = [
  {
    ipedsId: "110635",
    name: "University of California-Berkeley",
    city: "Berkeley",
    state: "CA",
    type: "four_year_public",
    system: "University of California",
    source: "channel_a",
  },
  {
    ipedsId: "110662",
    name: "University of California-Los Angeles",
    city: "Los Angeles",
    state: "CA",
    type: "four_year_public",
    system: "University of California",
    source: "channel_a",
  },
  {
    ipedsId: "122977",
    name: "Santa Monica College",
    city: "Santa Monica",
    state: "CA",
    type: "community_college",
    system: null,
    source: "channel_b",
  },
  {
    ipedsId: "227881",
    name: "Sam Houston State University",
    city: "Huntsville",
    state: "TX",
    type: "four_year_public",
    system: "Texas State University System",
    source: "direct",
  },
  {
    ipedsId: "119216",
    name: "Mt San Jacinto Community College District",
    city: "San Jacinto",
    state: "CA",
    type: "community_college",
    system: "California Community College System",
    source: "direct",
  },
  {
    ipedsId: "166027",
    name: "Harvard University",
    city: "Cambridge",
    state: "MA",
    type: "four_year_private",
    system: null,
    source: "direct",
  },
];

/** An institution that tests load in the sandbox only. */
export const SANDBOX_INSTITUTION: InstitutionRow = {
  ipedsId: "100654",
  name: "Alabama A & M University",
  city: "Normal",
  state: "AL",
  type: "four_year_public",
  system: null,
  source: "direct",
};

/** Courses of the institutions above, as `POST /courses` takes them, by code. */
export const COURSES = {
  "CS 55": {
    institutionId: "inst_122977",
    code: "CS 55",
    title: "Java Programming",
    credits: 3,
    level: "lower",
    cipCode: "11.0201",
  },
  "MATH 7": {
    institutionId: "inst_122977",
    code: "MATH 7",
    title: "Calculus 1",
    credits: 5,
    level: "lower",
    cipCode: "27.0101",
  },
  "CS 61B": {
    institutionId: "inst_110635",
    code: "CS 61B",
    title: "Data Structures",
    credits: 4,
    level: "lower",
    cipCode: "11.0701",
  },
  "MATH 31A": {
    institutionId: "inst_110662",
    code: "MATH 31A",
    title: "Differential Calculus",
    credits: 4,
    level: "lower",
    cipCode: "27.0101",
  },
} as const;

/**
 * Courses for the tests of articulation rules, by code: a quarter-unit lecture and lab and semester
 * courses at Santa Monica College, semester courses at Berkeley and UCLA.
 */
export const RULE_COURSES = {
  "CHEM 1A": {
    institutionId: "inst_122977",
    code: "CHEM 1A",
    title: "General Chemistry",
    credits: 4,
    creditUnit: "quarter",
    level: "lower",
  },
  "CHEM 1AL": {
    institutionId: "inst_122977",
    code: "CHEM 1AL",
    title: "General Chemistry Laboratory",
    credits: 1,
    creditUnit: "quarter",
    level: "lower",
  },
  "HIST 11": { institutionId: "inst_122977", code: "HIST 11", title: "US History", credits: 3, level: "lower" },
  "MATH 7": COURSES["MATH 7"],
  "ART 10": { institutionId: "inst_122977", code: "ART 10", title: "Design", credits: 3, level: "lower" },
  "BIO 3": { institutionId: "inst_122977", code: "BIO 3", title: "Biology", credits: 4, level: "lower" },
  "CHEM 4A": { institutionId: "inst_110635", code: "CHEM 4A", title: "General Chemistry", credits: 3, level: "lower" },
  "CHEM 3A": { institutionId: "inst_110635", code: "CHEM 3A", title: "Chemical Structure", credits: 4, level: "lower" },
  "MATH 1A": { institutionId: "inst_110635", code: "MATH 1A", title: "Calculus", credits: 4, level: "lower" },
  "ART 8": { institutionId: "inst_110635", code: "ART 8", title: "Design", credits: 4, level: "lower" },
  "BIO 1A": { institutionId: "inst_110635", code: "BIO 1A", title: "Biology", credits: 4, level: "lower" },
  "CHEM 14A": { institutionId: "inst_110662", code: "CHEM 14A", title: "Chemistry", credits: 3, level: "lower" },
  "HIST 13A": {
    institutionId: "inst_110662",
    code: "HIST 13A",
    title: "History of the United States",
    credits: 4,
    level: "lower",
  },
} as const;

/** The rule courses of these codes, in this order. */
export function ruleCourses(...codes: (keyof typeof RULE_COURSES)[]): object[] {
  return codes.map((code) => RULE_COURSES[code]);
}

/** Creates the courses with the live key; answers their ids by code. */
export async function postCourses(t: TestApp, courses: readonly object[]): Promise<Record<string, string>> {
  const response = await t.http.post("/api/v1/courses").set(bearer(t.keys.live)).send(courses);
  return Object.fromEntries(response.body.data.map((r: { code: string; id: string }) => [r.code, r.id]));
}

async function* rows(list: InstitutionRow[]) {
  for (const row of list) yield { row };
}

export async function loadInstitutions(db: Db, environment: Environment, list = INSTITUTIONS): Promise<void> {
  await createCatalogImportsService({ catalogImports: createCatalogImportsRepository(db) }).importInstitutions(
    rows(list),
    environment,
  );
}

export type StoredRuleFields = Partial<Prisma.EquivalencyUncheckedCreateInput> & {
  id: string;
  targetInstitutionId: string;
  sourceCourseIds: string[];
};

/**
 * Stores an accepted live rule as the rules' columns hold it, straight into the table (no
 * service, no events, no ambiguity check), for tests of what reads rules; `fields` override.
 */
export async function storeRule(db: Db, fields: StoredRuleFields): Promise<string> {
  await db.equivalency.create({
    data: {
      environment: "live",
      sourceCourseId: fields.sourceCourseIds[0],
      targetKey: `test:${fields.id}`,
      status: "accepted",
      sourceSetKey: [...fields.sourceCourseIds].sort().join(" "),
      ...fields,
    },
  });
  return fields.id;
}
