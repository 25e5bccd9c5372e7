// How the explorer says things: credits with their unit, grades, dates and outcomes, in words.
import type { Course, ExplorerCourse, Institution, Rule } from "./api.ts";

const UNITS: Record<string, [string, string]> = {
  semester: ["semester unit", "semester units"],
  quarter: ["quarter unit", "quarter units"],
  clock_hour: ["clock hour", "clock hours"],
  ceu: ["CEU", "CEUs"],
};

export function credits(value: number | null | undefined, unit: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  const rounded = Math.round(value * 100) / 100;
  const [one, many] = UNITS[unit ?? "semester"] ?? [unit ?? "", unit ?? ""];
  return `${rounded} ${rounded === 1 ? one : many}`;
}

const DATE = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

export function day(value: string | null | undefined): string {
  return value ? DATE.format(new Date(`${value}T00:00:00Z`)) : "";
}

export function place(institution: Pick<Institution, "city" | "state">): string {
  return [institution.city, institution.state].filter(Boolean).join(", ");
}

export function courseName(course: Pick<Course | ExplorerCourse, "code" | "title">): string {
  return `${course.code} · ${course.title}`;
}

export function gradeCondition(rule: Pick<Rule, "minimumGrade">): string {
  if (rule.minimumGrade === null) return "Any passing grade";
  if (rule.minimumGrade === "P") return "Pass (or C or better)";
  return `Grade ${rule.minimumGrade} or better`;
}

export function dateCondition(rule: Pick<Rule, "effectiveFrom" | "effectiveUntil">): string | null {
  const { effectiveFrom: from, effectiveUntil: until } = rule;
  if (from && until) return `Courses taken ${day(from)} to ${day(until)}`;
  if (from) return `Courses taken from ${day(from)}`;
  if (until) return `Courses taken until ${day(until)}`;
  return null;
}

/** What a rule gives, in words: "Counts as CHEM 4A", "Elective credit (ART 1XX)". */
export function outcome(rule: Pick<Rule, "kind" | "targets" | "targetChoice" | "generalEducationArea">): string {
  const codes = rule.targets.map((target) => target.code ?? target.title ?? "a course").filter(Boolean);
  const joined = rule.targetChoice === "one_of" ? codes.join(" or ") : codes.join(" and ");
  const choice = rule.targetChoice === "one_of" && codes.length > 1 ? ", your program decides" : "";
  switch (rule.kind) {
    case "equivalent":
      return `Counts as ${joined}${choice}`;
    case "elective":
      return codes.length > 0 ? `Elective credit (${joined}${choice})` : "Elective credit";
    case "general_education":
      return `General education${rule.generalEducationArea ? `: ${rule.generalEducationArea}` : ""}${codes.length ? ` (${joined})` : ""}`;
    case "no_credit":
      return "Does not transfer for credit";
  }
}

/** The heading a rule is grouped under: its receiving course(s), or its kind of outcome. */
export function groupOf(rule: Rule): { key: string; title: string; detail: string } {
  const named = rule.targets.filter((target) => target.code || target.title);
  if (rule.kind === "no_credit") return { key: "~no_credit", title: "No transfer credit", detail: "" };
  if (named.length === 0) {
    if (rule.kind === "general_education")
      return {
        key: `~ge:${rule.generalEducationArea ?? ""}`,
        title: `General education${rule.generalEducationArea ? `: ${rule.generalEducationArea}` : ""}`,
        detail: "",
      };
    return { key: "~elective", title: "Elective credit", detail: "" };
  }
  const separator = rule.targetChoice === "one_of" ? " or " : " + ";
  const title = named.map((target) => target.code ?? target.title).join(separator);
  const detail = named
    .map((target) => [target.code && target.title ? target.title : "", credits(target.credits, target.creditUnit)])
    .map((parts) => parts.filter(Boolean).join(", "))
    .filter(Boolean)
    .join("; ");
  return { key: `${rule.kind}:${title}`, title, detail };
}
