// The agreement between two institutions: every accepted rule in force today, grouped by what it
// gives at the receiving institution, searchable by course code or title.
import { useMemo, useState } from "preact/hooks";
import type { Agreement, ExplorerCourse, Rule } from "./api.ts";
import { credits, dateCondition, day, gradeCondition, groupOf, outcome } from "./words.ts";

function matches(rule: Rule, needle: string): boolean {
  if (!needle) return true;
  const texts = [
    ...rule.sourceCourseSets.flat().flatMap((course) => [course.code, course.title, ...course.crossListedCodes]),
    ...rule.targets.flatMap((target) => [target.code ?? "", target.title ?? ""]),
    rule.generalEducationArea ?? "",
  ];
  const squeeze = (text: string) => text.toUpperCase().replace(/\s+/g, "");
  return texts.some((text) => squeeze(text).includes(squeeze(needle)));
}

function SourceCourse({ course }: { course: ExplorerCourse }) {
  return (
    <span class="course">
      <strong>{course.code}</strong> {course.title}{" "}
      <span class="muted">({credits(course.credits, course.creditUnit)})</span>
      {course.crossListedCodes.length > 0 && (
        <span class="muted"> · also listed as {course.crossListedCodes.join(", ")}</span>
      )}
    </span>
  );
}

function CourseSet({ courses }: { courses: ExplorerCourse[] }) {
  return (
    <ul class="course-set">
      {courses.map((course, index) => (
        <li key={course.id}>
          {index > 0 && <span class="joiner">and </span>}
          <SourceCourse course={course} />
        </li>
      ))}
    </ul>
  );
}

function RuleCard({ rule, fromName }: { rule: Rule; fromName: string }) {
  const dates = dateCondition(rule);
  const sets = rule.sourceCourseSets.length > 0 ? rule.sourceCourseSets : [rule.sourceCourses];
  return (
    <li class="rule">
      <div class="rule-from">
        <span class="label">
          {sets.length > 1 ? "Any one of these" : sets[0].length > 1 ? "All of these" : "From"}
          <span class="sr-only"> at {fromName}</span>
        </span>
        {sets.length > 1 ? (
          <ol class="alternatives">
            {sets.map((set, index) => (
              <li key={set.map((course) => course.id).join(" ")}>
                {index > 0 && <span class="joiner">or </span>}
                <CourseSet courses={set} />
              </li>
            ))}
          </ol>
        ) : (
          <CourseSet courses={sets[0]} />
        )}
      </div>
      <div class="rule-to">
        <span class="label">Gives</span>
        <span class={`outcome kind-${rule.kind}`}>{outcome(rule)}</span>
        {rule.awardedCredits !== null && (
          <span class="muted"> · {credits(rule.awardedCredits, rule.awardedCreditUnit)} in all</span>
        )}
      </div>
      <ul class="conditions" aria-label="Conditions">
        <li>{gradeCondition(rule)}</li>
        {dates && <li>{dates}</li>}
      </ul>
      {(rule.decidedBy || rule.policyBasis) && (
        <p class="decided">
          {rule.decidedBy ? `Decided by ${rule.decidedBy}` : "Decided"}
          {rule.decidedAt ? ` on ${day(rule.decidedAt.slice(0, 10))}` : ""}
          {rule.policyBasis ? ` · ${rule.policyBasis}` : ""}
        </p>
      )}
    </li>
  );
}

export function AgreementView({ agreement, permalink }: { agreement: Agreement; permalink: string }) {
  const [needle, setNeedle] = useState("");
  const shown = useMemo(() => agreement.rules.filter((rule) => matches(rule, needle.trim())), [agreement, needle]);
  const groups = useMemo(() => {
    const byKey = new Map<string, { title: string; detail: string; rules: Rule[] }>();
    for (const rule of shown) {
      const group = groupOf(rule);
      const entry = byKey.get(group.key) ?? { title: group.title, detail: group.detail, rules: [] };
      entry.rules.push(rule);
      byKey.set(group.key, entry);
    }
    return [...byKey.entries()];
  }, [shown]);
  const total = agreement.rules.length;

  return (
    <section class="agreement" aria-labelledby="agreement-title">
      <h2 id="agreement-title">
        {agreement.from.name} <span aria-hidden="true">→</span>
        <span class="sr-only"> to </span> {agreement.to.name}
      </h2>
      <p class="summary">
        {total === 0
          ? "No transfer rule between these two institutions is in force today."
          : `${total} transfer ${total === 1 ? "rule is" : "rules are"} in force today (${day(agreement.asOf)}), decided by ${agreement.to.name}.`}{" "}
        <a href={permalink}>Link to this agreement</a>
      </p>
      {total > 0 && (
        <div class="search">
          <label for="agreement-search">Search this agreement</label>
          <input
            id="agreement-search"
            type="search"
            placeholder="Course code or title, e.g. CHEM 1A or calculus"
            value={needle}
            onInput={(event) => setNeedle(event.currentTarget.value)}
          />
          <p class="hint" aria-live="polite">
            {needle.trim()
              ? `${shown.length} of ${total} ${total === 1 ? "rule matches" : "rules match"} “${needle.trim()}”.`
              : ""}
          </p>
        </div>
      )}
      {groups.map(([key, group]) => (
        <section class="group" key={key} aria-label={group.title}>
          <h3>
            {group.title}
            {group.detail && <span class="group-detail"> {group.detail}</span>}
          </h3>
          <ul class="rules">
            {group.rules.map((rule) => (
              <RuleCard key={rule.id} rule={rule} fromName={agreement.from.name} />
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
