// A rule in words, by course codes: its alternatives ("MATH 7 or MATH 7H", "(BIOL 400 + BIOL 410)
// or (BIOL 400 + BIOL 415)") and what it gives ("MATH 1A + MATH 1AL", or "MATH 1A or MATH 16A" when
// the student's program picks one). Codes come from the list's expansion when the page read it with
// `expand=course`, else from each course's own record, so every list, the queue and the headings
// show a rule whole and never only its first course.
import { useEffect, useState } from "preact/hooks";
import type { components } from "../../../generated/api-types.ts";
import type { Api } from "./api.ts";
import { useDashboard } from "./context.ts";
import { courseById, equivalencyById, LoadingName } from "./names.tsx";

type Rule = components["schemas"]["Equivalency"];
type Target = components["schemas"]["RuleTarget"];

/** The rule's source course sets; a 1.1 answer has only `sourceCourseIds` (one set). */
export function setsOf(rule: Rule): string[][] {
  if (rule.sourceCourseSets && rule.sourceCourseSets.length > 0) return rule.sourceCourseSets;
  return [rule.sourceCourseIds ?? [rule.sourceCourseId]];
}

/** Every course id the rule names in any set, each once, in order of first appearance. */
export function courseIdsOf(rule: Rule): string[] {
  return [...new Set(setsOf(rule).flat())];
}

/** Codes the rule's expansion already carries, by course id. */
function expandedCodes(rule: Rule): Map<string, string> {
  const codes = new Map<string, string>();
  for (const set of rule.sourceCourseSetCourses ?? []) for (const course of set) codes.set(course.id, course.code);
  for (const course of rule.sourceCourses ?? []) codes.set(course.id, course.code);
  if (rule.sourceCourse) codes.set(rule.sourceCourse.id, rule.sourceCourse.code);
  if (rule.targetCourse) codes.set(rule.targetCourse.id, rule.targetCourse.code);
  return codes;
}

/** "A", "A + B", "A or AH", "(A + AL) or (AH + AL)". */
export function setsText(sets: string[][], codeOf: (id: string) => string): string {
  const parts = sets.map((set) => set.map(codeOf).join(" + "));
  if (parts.length === 1) return parts[0] ?? "";
  return sets.map((set, index) => (set.length > 1 ? `(${parts[index]})` : parts[index])).join(" or ");
}

function targetText(target: Target, codeOf: (id: string) => string): string {
  if (target.code) return target.code;
  return target.courseId ? codeOf(target.courseId) : "?";
}

/** What the rule gives: its targets joined by "+" (all) or "or" (one of), or the outcome in words. */
export function outcomeText(rule: Rule, codeOf: (id: string) => string): string {
  const targets = rule.targets ?? [];
  if (rule.kind === "no_credit") return "no credit";
  if (targets.length === 0) {
    if (rule.kind === "general_education") return `general education ${rule.generalEducationArea ?? ""}`.trim();
    return rule.targetCode ?? (rule.targetCourseId ? codeOf(rule.targetCourseId) : "no course");
  }
  const joined = targets
    .map((target) => targetText(target, codeOf))
    .join(rule.targetChoice === "one_of" ? " or " : " + ");
  return rule.targetChoice === "one_of" ? `${joined} (one of them, by the student's program)` : joined;
}

/** A course's code by id: from the rule's expansion or `codes` (read later); "…" while unknown, never the id. */
export function codeLookup(rule: Rule, codes: ReadonlyMap<string, string> = new Map()): (id: string) => string {
  const known = new Map([...expandedCodes(rule), ...codes]);
  return (id) => known.get(id) ?? "…";
}

/** The whole rule in one line: "CHEM 1A + CHEM 1AL → CHEM 4A". */
export function ruleText(rule: Rule, codes: ReadonlyMap<string, string> = new Map()): string {
  const codeOf = codeLookup(rule, codes);
  return `${setsText(setsOf(rule), codeOf)} → ${outcomeText(rule, codeOf)}`;
}

/** The codes of the rule's courses that its expansion lacks, read by id (cached per API). */
export async function missingCodes(api: Api, rule: Rule): Promise<Map<string, string>> {
  const known = expandedCodes(rule);
  const wanted = [
    ...courseIdsOf(rule),
    ...(rule.targets ?? []).flatMap((target) => (target.courseId && !target.code ? [target.courseId] : [])),
  ].filter((id) => !known.has(id));
  const found = await Promise.all(wanted.map(async (id) => [id, (await courseById(api, id))?.code ?? id] as const));
  return new Map(found);
}

/** The codes the rule's expansion lacks, once read (none until then): for codeLookup and ruleText. */
export function useMissingCodes(rule: Rule): ReadonlyMap<string, string> {
  const { api } = useDashboard();
  const [codes, setCodes] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    let live = true;
    missingCodes(api, rule).then(
      (found) => live && setCodes(found),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, rule.id, rule.version]);
  return codes;
}

/** A rule named by its courses ("CHEM 1A + CHEM 1AL → CHEM 4A"), read by id, the id on hover; the id only when it is gone. */
export function RuleName({ id }: { id: string }) {
  const { api } = useDashboard();
  const [text, setText] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setText(undefined);
    void (async () => {
      const rule = await equivalencyById(api, id);
      const named = rule ? ruleText(rule, await missingCodes(api, rule)) : null;
      if (live) setText(named);
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, id]);
  if (text === undefined) return <LoadingName id={id} />;
  if (text === null) return <span class="mono">{id}</span>;
  return <span title={id}>{text}</span>;
}
