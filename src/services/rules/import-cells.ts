// The cells of an import row that name courses (import-csv.ts reads the rest): a source
// expression (`MATH 7 or MATH 7H`, `(BIOL 400 + BIOL 410) or (BIOL 400 + BIOL 415)`), a target
// list joined by `+` (all) or `or` (one of them), and codes joined by `=` (one course named by
// several of its codes, `COMPSCI C8 = DATA C8`). Nothing is ever cut short: a cell naming more
// than the layout holds is refused with how many it named.

/** The layout's limits, those of the rule model (`sourceCourseSets`, `targets`). */
export const MAX_SETS = 10;
export const MAX_SET_COURSES = 10;
export const MAX_TARGETS = 10;
/** A course code's limit in the schema (CourseUpsert.code, RuleTargetInput.code). */
export const MAX_CODE_LENGTH = 50;

/** One course as the file names it: its codes, as given (several when joined by `=`). */
export interface CourseRef {
  codes: string[];
  /** The cell's text for this course, to name it in issues. */
  text: string;
}

export type CellOutcome<T> = { value: T } | { error: string };

const OR = /\s+or\s+/i;
const PLUS = /\s*\+\s*/;

const plural = (count: number, word: string) => `${count.toLocaleString("en-US")} ${word}${count === 1 ? "" : "s"}`;

/** `A` or `A = B = C`: one course by its codes. */
export function parseCourseRef(text: string): CellOutcome<CourseRef> {
  const codes = text.split(/\s*=\s*/).map((code) => code.trim());
  if (codes.some((code) => code === "")) return { error: `"${clip(text)}" has an empty code beside "="` };
  const long = codes.find((code) => code.length > MAX_CODE_LENGTH);
  if (long !== undefined)
    return {
      error: `a course code is at most ${MAX_CODE_LENGTH} characters; "${clip(long)}" has ${long.length.toLocaleString("en-US")}`,
    };
  if (codes.length > MAX_SET_COURSES)
    return { error: `"${clip(text)}" joins ${codes.length} codes; one course has at most ${MAX_SET_COURSES}` };
  return { value: { codes, text: codes.join(" = ") } };
}

/** The source course sets of `source_courses`: sets joined by `or`, courses of a set by `+`. */
export function parseSourceExpression(text: string): CellOutcome<CourseRef[][]> {
  const alternatives = text.split(OR).map((part) => part.trim());
  if (alternatives.length > MAX_SETS)
    return { error: `names ${plural(alternatives.length, "set")} of courses; a rule has at most ${MAX_SETS}` };
  const sets: CourseRef[][] = [];
  for (const [index, alternative] of alternatives.entries()) {
    let inner = alternative;
    if (inner.startsWith("(") && inner.endsWith(")")) inner = inner.slice(1, -1).trim();
    if (/[()]/.test(inner))
      return {
        error: `"${clip(alternative)}": parentheses hold one set, courses joined by "+", like (BIOL 400 + BIOL 410)`,
      };
    if (inner === "")
      return { error: alternatives.length > 1 ? `set ${index + 1} is empty (nothing between "or"s)` : "is empty" };
    const parts = inner.split(PLUS).map((part) => part.trim());
    if (parts.length > MAX_SET_COURSES)
      return {
        error: `${alternatives.length > 1 ? `set ${index + 1} names` : "names"} ${plural(parts.length, "course")}; a set holds at most ${MAX_SET_COURSES}`,
      };
    const set: CourseRef[] = [];
    for (const part of parts) {
      if (part === "") return { error: `"${clip(alternative)}" has an empty course beside "+"` };
      const ref = parseCourseRef(part);
      if ("error" in ref) return ref;
      set.push(ref.value);
    }
    sets.push(set);
  }
  return { value: sets };
}

/** The targets of `target_courses`: joined by `+` (every one awarded) or `or` (one of them). */
export function parseTargetList(text: string): CellOutcome<{ refs: CourseRef[]; choice?: "all" | "one_of" }> {
  const byOr = text.split(OR);
  const byPlus = text.split(PLUS);
  if (byOr.length > 1 && byPlus.length > 1)
    return {
      error: `joins targets by both "+" and "or"; use one: "+" when every target is awarded, "or" when one of them is`,
    };
  const parts = (byOr.length > 1 ? byOr : byPlus).map((part) => part.trim());
  if (parts.length > MAX_TARGETS)
    return { error: `names ${plural(parts.length, "target")}; a rule has at most ${MAX_TARGETS}` };
  const refs: CourseRef[] = [];
  for (const part of parts) {
    if (part === "") return { error: `has an empty target beside "${byOr.length > 1 ? "or" : "+"}"` };
    const ref = parseCourseRef(part);
    if ("error" in ref) return ref;
    refs.push(ref.value);
  }
  return { value: { refs, ...(parts.length > 1 ? { choice: byOr.length > 1 ? "one_of" : "all" } : {}) } };
}

/** A long value, cut for quoting in a message. */
export function clip(text: string, length = 60): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}
