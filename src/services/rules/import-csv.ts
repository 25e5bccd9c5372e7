// The CSV layout of POST /equivalencies/imports (docs/api-guide.md#importing-rules-from-a-csv-file),
// in the spirit of the TES import: up to ten source and ten target course columns by institution
// and course code, then the rule's conditions and decision. Each data row is read and checked on
// its own, as the parser streams it; what needs the database is import.ts's.
import { setImmediate as turn } from "node:timers/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { components } from "../../../generated/api-types.ts";
import { ProblemError, ValidationError } from "../../kernel/errors.ts";
import { institutionIdOf } from "../../kernel/ids.ts";
import type { EquivalencyStatus, RuleKind } from "../types.ts";
import type { EquivalencyCreate } from "./decisions.ts";
import {
  clip,
  MAX_SET_COURSES,
  MAX_TARGETS,
  parseCourseRef,
  parseSourceExpression,
  parseTargetList,
  type CourseRef,
} from "./import-cells.ts";

export const MAX_IMPORT_ROWS = 10_000;
/** A header row with more columns is refused before any row is read. */
export const MAX_IMPORT_COLUMNS = 100;
/** csv-parse's max_record_size: a record (a row, in characters) longer than this is refused. */
export const MAX_RECORD_SIZE = 256 * 1024;
/** The answer lists at most this many issues, then one saying how many there were in all. */
export const MAX_LISTED_ISSUES = 1_000;

const numbered = (prefix: string) => Array.from({ length: MAX_SET_COURSES }, (_, i) => `${prefix}_${i + 1}`);
/** `source_course_N`, `target_course_N`, `target_credits_N`, with any N: beyond 10 the row is refused, never cut. */
const NUMBERED = /^(source_course|target_course|target_credits)_([1-9]\d{0,5})$/;
const RULE_COLUMNS = [
  "kind",
  "general_education_area",
  "minimum_grade",
  "effective_from",
  "effective_until",
  "priority",
  "awarded_credits",
  "status",
  "decided_by",
  "policy_basis",
] as const;
/** Every column of the layout, in the documented order. */
export const IMPORT_COLUMNS = [
  "source_institution",
  "source_courses",
  ...numbered("source_course"),
  "target_institution",
  "target_courses",
  "target_choice",
  ...numbered("target_course"),
  ...numbered("target_credits"),
  ...RULE_COLUMNS,
];
const REQUIRED = ["source_institution", "target_institution"];
/** The schema's limits of the free-text cells (EquivalencyCreate). */
const TEXT_LIMITS: Record<string, number> = {
  source_institution: 50,
  target_institution: 50,
  general_education_area: 50,
  decided_by: 200,
  policy_basis: 2000,
};

const KINDS: readonly RuleKind[] = ["equivalent", "elective", "general_education", "no_credit"];
const STATUSES: readonly EquivalencyStatus[] = ["pending", "accepted", "conflict"];
const GRADES = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "P"];

export type ImportIssue = components["schemas"]["EquivalencyImportIssue"];
export type ImportResult = components["schemas"]["EquivalencyImportResult"];

/** One data row read and checked on its own: the rule it asks for, by codes, or its issues. */
export interface ParsedRow {
  row: number;
  sourceInstitutionId: string;
  /** The source course sets (one for the numbered columns), each course by the file's codes. */
  sourceSets: CourseRef[][];
  targetInstitutionId: string;
  targets: { ref: CourseRef; credits?: number }[];
  targetChoice?: "all" | "one_of";
  /** Where the row gave its courses: the expression cell, or the numbered columns' numbers in order. */
  sourceColumns: "expression" | number[];
  targetColumns: "expression" | number[];
  fields: Omit<
    EquivalencyCreate,
    "targetInstitutionId" | "sourceCourseIds" | "targets" | "sourceCourseSets" | "targetChoice"
  >;
  issues: ImportIssue[];
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** The row's cells checked one by one; a cell left empty is the field's default. */
export function parseRow(record: Record<string, string>, row: number): ParsedRow {
  const issues: ImportIssue[] = [];
  const cell = (column: string) => (record[column] ?? "").trim();
  const issue = (column: string, message: string) => issues.push({ row, column, message });
  const choice = <T extends string>(column: string, allowed: readonly T[]): T | undefined => {
    const value = cell(column);
    if (value === "") return undefined;
    if (allowed.includes(value as T)) return value as T;
    issue(column, `must be one of ${allowed.join(", ")}, not "${value}"`);
    return undefined;
  };
  const number = (column: string, range: { min: number; max: number; integer?: boolean }): number | undefined => {
    const value = cell(column);
    if (value === "") return undefined;
    const parsed = Number(value);
    if (
      !Number.isFinite(parsed) ||
      parsed < range.min ||
      parsed > range.max ||
      (range.integer && !Number.isInteger(parsed))
    ) {
      issue(
        column,
        `must be ${range.integer ? "a whole number" : "a number"} from ${range.min} to ${range.max}, like ${range.integer ? "0" : "3.5"}`,
      );
      return undefined;
    }
    return parsed;
  };
  const date = (column: string): string | undefined => {
    const value = cell(column);
    if (value === "") return undefined;
    if (isCalendarDate(value)) return value;
    issue(column, `must be a calendar date YYYY-MM-DD, like 2024-08-15, not "${value}"`);
    return undefined;
  };
  for (const column of REQUIRED) if (cell(column) === "") issue(column, "is required");
  for (const [column, limit] of Object.entries(TEXT_LIMITS))
    if (cell(column).length > limit)
      issue(
        column,
        `is at most ${limit.toLocaleString("en-US")} characters; this cell has ${cell(column).length.toLocaleString("en-US")}`,
      );
  const numberedCells = numberedCellsOf(record);
  const sourceSets = sourceSetsOf(numberedCells.source_course, cell("source_courses"), issue);
  const { targets, targetChoice } = targetsOf(numberedCells, cell("target_courses"), issue, number);
  const choiceCell = choice("target_choice", ["all", "one_of"] as const);
  if (choiceCell && targetChoice && choiceCell !== targetChoice)
    issue(
      "target_choice",
      `says ${choiceCell} where target_courses joins its targets by "${targetChoice === "one_of" ? "or" : "+"}" (${targetChoice})`,
    );
  const minimumGrade = cell("minimum_grade").toUpperCase();
  if (minimumGrade && !GRADES.includes(minimumGrade))
    issue("minimum_grade", `must be a letter grade (A+ to D-) or P, not "${cell("minimum_grade")}"`);
  const fields = {
    kind: choice("kind", KINDS),
    generalEducationArea: cell("general_education_area") || undefined,
    minimumGrade: GRADES.includes(minimumGrade) ? (minimumGrade as EquivalencyCreate["minimumGrade"]) : undefined,
    effectiveFrom: date("effective_from"),
    effectiveUntil: date("effective_until"),
    priority: number("priority", { min: -1000, max: 1000, integer: true }),
    awardedCredits: number("awarded_credits", { min: 0, max: 100 }),
    status: choice("status", STATUSES),
    decidedBy: cell("decided_by") || undefined,
    policyBasis: cell("policy_basis") || undefined,
  };
  return {
    row,
    sourceInstitutionId: institutionIdOf(cell("source_institution")),
    sourceSets,
    sourceColumns: cell("source_courses")
      ? "expression"
      : [...numberedCells.source_course.keys()].sort((a, b) => a - b),
    targetColumns: cell("target_courses")
      ? "expression"
      : [...numberedCells.target_course.keys()].sort((a, b) => a - b),
    targetInstitutionId: institutionIdOf(cell("target_institution")),
    targets,
    ...((targetChoice ?? choiceCell) ? { targetChoice: targetChoice ?? choiceCell } : {}),
    fields: Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
    issues,
  };
}

type Issue = (column: string, message: string) => void;
type NumberedCells = Record<"source_course" | "target_course" | "target_credits", Map<number, string>>;

/** The row's non-empty numbered cells, by prefix and number (any number: the layout's limit is checked after). */
function numberedCellsOf(record: Record<string, string>): NumberedCells {
  const cells: NumberedCells = { source_course: new Map(), target_course: new Map(), target_credits: new Map() };
  for (const [column, value] of Object.entries(record)) {
    const match = NUMBERED.exec(column);
    const text = (value ?? "").trim();
    if (match && text !== "") cells[match[1] as keyof NumberedCells].set(Number(match[2]), text);
  }
  return cells;
}

/** The highest numbered column given beyond the layout's limit, as an issue; true when there is one. */
function beyondLimit(cells: Map<number, string>, prefix: string, limit: number, what: string, issue: Issue): boolean {
  const highest = Math.max(0, ...cells.keys());
  if (highest <= limit) return false;
  issue(
    `${prefix}_${highest}`,
    `the row names ${cells.size.toLocaleString("en-US")} ${what}s (up to ${prefix}_${highest}); a rule has at most ${limit} (${prefix}_1 to ${prefix}_${limit}): the row is refused, not cut short`,
  );
  return true;
}

function sourceSetsOf(numberedSources: Map<number, string>, expression: string, issue: Issue): CourseRef[][] {
  if (expression !== "" && numberedSources.size) {
    issue("source_courses", "gives the source courses twice: use source_courses or source_course_1, …, not both");
    return [];
  }
  if (expression !== "") {
    const parsed = parseSourceExpression(expression);
    if ("error" in parsed) {
      issue("source_courses", parsed.error);
      return [];
    }
    return parsed.value;
  }
  if (!numberedSources.size) {
    issue("source_course_1", "is required (or source_courses)");
    return [];
  }
  if (beyondLimit(numberedSources, "source_course", MAX_SET_COURSES, "source course", issue)) return [];
  const set: CourseRef[] = [];
  for (const [index, text] of [...numberedSources].sort(([a], [b]) => a - b)) {
    const ref = parseCourseRef(text);
    if ("error" in ref) issue(`source_course_${index}`, ref.error);
    else set.push(ref.value);
  }
  return [set];
}

function targetsOf(
  cells: NumberedCells,
  expression: string,
  issue: Issue,
  number: (column: string, range: { min: number; max: number }) => number | undefined,
): { targets: { ref: CourseRef; credits?: number }[]; targetChoice?: "all" | "one_of" } {
  if (beyondLimit(cells.target_credits, "target_credits", MAX_TARGETS, "target credit", issue)) return { targets: [] };
  const credits = new Map(
    [...cells.target_credits.keys()].map((index) => [index, number(`target_credits_${index}`, { min: 0, max: 100 })]),
  );
  const withCredits = (refs: CourseRef[], column: (index: number) => string) => {
    for (const index of credits.keys())
      if (index > refs.length)
        issue(`target_credits_${index}`, `gives credits to no course (${column(index)} is empty)`);
    return refs.map((ref, i) => {
      const given = credits.get(i + 1);
      return { ref, ...(given !== undefined ? { credits: given } : {}) };
    });
  };
  if (expression !== "") {
    if (cells.target_course.size) {
      issue("target_courses", "gives the targets twice: use target_courses or target_course_1, …, not both");
      return { targets: [] };
    }
    const parsed = parseTargetList(expression);
    if ("error" in parsed) {
      issue("target_courses", parsed.error);
      return { targets: [] };
    }
    return {
      targets: withCredits(parsed.value.refs, (index) => `target ${index} of target_courses`),
      ...(parsed.value.choice ? { targetChoice: parsed.value.choice } : {}),
    };
  }
  if (beyondLimit(cells.target_course, "target_course", MAX_TARGETS, "target", issue)) return { targets: [] };
  const refs: CourseRef[] = [];
  const positions: number[] = [];
  for (const [index, text] of [...cells.target_course].sort(([a], [b]) => a - b)) {
    const ref = parseCourseRef(text);
    if ("error" in ref) issue(`target_course_${index}`, ref.error);
    else {
      refs.push(ref.value);
      positions.push(index);
    }
  }
  // Numbered targets keep their columns' credits (target_credits_N beside target_course_N).
  for (const index of credits.keys())
    if (!cells.target_course.has(index))
      issue(`target_credits_${index}`, `gives credits to no course (target_course_${index} is empty)`);
  return {
    targets: refs.map((ref, i) => {
      const given = credits.get(positions[i]);
      return { ref, ...(given !== undefined ? { credits: given } : {}) };
    }),
  };
}

/**
 * The number of columns of the header row, counted without parsing it (quotes respected), so a
 * header of millions of columns is refused before any of them is allocated.
 */
export function headerColumnCount(text: string): number {
  let count = 1;
  let quoted = false;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (quoted) continue;
    else if (c === 0x2c) count++;
    else if (c === 0x0a || c === 0x0d) break;
  }
  return count;
}

/** Issues as the answer lists them: the first MAX_LISTED_ISSUES, then one saying how many there were. */
export function createIssueList(limit = MAX_LISTED_ISSUES) {
  const listed: ImportIssue[] = [];
  let total = 0;
  return {
    push(...issues: ImportIssue[]) {
      for (const issue of issues) if (total++ < limit) listed.push(issue);
    },
    get total() {
      return total;
    },
    list(): ImportIssue[] {
      if (total <= limit) return listed;
      return [
        ...listed,
        {
          row: 0,
          column: null,
          message: `${total.toLocaleString("en-US")} issues in all; the first ${limit.toLocaleString("en-US")} are listed`,
        },
      ];
    },
  };
}

/** Characters written to the parser at a time (about 500 rows of a usual file). */
const PIECE = 32_768;

/** `text` a piece at a time, with a turn of the event loop before each piece after the first. */
async function* piecesOf(text: string): AsyncGenerator<string> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + PIECE, text.length);
    // Never between the two halves of a surrogate pair: each piece is encoded on its own.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1;
    if (start > 0) await turn();
    yield text.slice(start, end);
    start = end;
  }
}

/** The data rows of the file, parsed as they stream in; the header is checked first. */
export async function readRows(text: string): Promise<{ rows: ParsedRow[]; headerIssues: ImportIssue[] }> {
  const columns = headerColumnCount(text);
  if (columns > MAX_IMPORT_COLUMNS)
    throw ValidationError.single(
      "",
      `the header row has ${columns.toLocaleString("en-US")} columns; a file has at most ${MAX_IMPORT_COLUMNS} (the layout has ${IMPORT_COLUMNS.length})`,
    );
  const headerIssues: ImportIssue[] = [];
  // Loaded with the first import, not with the server: most servers never import a file.
  const { parse } = await import("csv-parse");
  const parser = parse({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_SIZE,
    columns: (header: string[]) => {
      const names = header.map((name) => name.trim().toLowerCase());
      const missing = REQUIRED.filter((name) => !names.includes(name));
      if (!names.includes("source_courses") && !names.some((name) => name.startsWith("source_course_")))
        missing.splice(1, 0, "source_courses (or source_course_1)");
      if (missing.length)
        throw ValidationError.single(
          "",
          `the header row lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
        );
      for (const name of new Set(names))
        if (!IMPORT_COLUMNS.includes(name) && !NUMBERED.test(name))
          headerIssues.push({ row: 0, column: clip(name, 100), message: "is not a column of the layout; ignored" });
      return names;
    },
  });
  // Written in pieces with a turn of the event loop between them: parsed at once, a 10,000-row file
  // kept every other request of the process waiting for a quarter of a second.
  // pipeline waits while the parser is full and stops feeding it once it is destroyed (its reader
  // failed or stopped); a parse error reaches the reader through the parser itself.
  pipeline(Readable.from(piecesOf(text)), parser).catch(() => {});
  const rows: ParsedRow[] = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      if (rows.length === MAX_IMPORT_ROWS)
        throw ValidationError.single("", `a file holds at most ${MAX_IMPORT_ROWS.toLocaleString("en-US")} data rows`);
      rows.push(parseRow(record, rows.length + 1));
    }
  } catch (error) {
    if (error instanceof ProblemError) throw error;
    const { code, message } = error as { code?: string; message: string };
    if (code === "CSV_MAX_RECORD_SIZE")
      throw ValidationError.single(
        "",
        `row ${rows.length + 1} is longer than ${MAX_RECORD_SIZE.toLocaleString("en-US")} characters, the most a row may hold`,
      );
    throw ValidationError.single("", `the file is not valid CSV: ${clip(message, 300)}`);
  }
  return { rows, headerIssues };
}
