// `equivalencies list`, `show` and `create`: a registrar's rules at the command line, through the
// same services as GET /equivalencies, GET /equivalencies/{id} and POST /equivalencies. Courses are
// named by their codes at an institution (`--from inst_122977 --source "CHEM 1A"`), as the CSV
// import names them, or by id; institutions by id or bare IPEDS unit id.
import { type Command, InvalidArgumentError, Option } from "commander";
import type { Environment } from "../../generated/prisma/enums.ts";
import type { Credential } from "../auth/credential.ts";
import { institutionIdOf } from "../kernel/ids.ts";
import { ValidationError } from "../kernel/errors.ts";
import type { Services } from "../services/index.ts";
import type { EquivalencyCreate } from "../services/equivalencies.ts";
import { courseCodeKey } from "../views/catalog.ts";
import { operatorCredential } from "./operator.ts";
import { calendarDate, envOption, letterGrade, orgOption, wholeNumber, type WithServices } from "./options.ts";
import type { Output } from "./output.ts";

const KINDS = ["equivalent", "elective", "general_education", "no_credit"] as const;
const STATUSES = ["pending", "accepted", "conflict"] as const;

/** The credential a command acts with: the organization's when `--org` names one, else the operator alone. */
export async function actingAs(
  services: Services,
  environment: Environment,
  orgSlug: string | undefined,
): Promise<Credential> {
  if (orgSlug === undefined)
    return operatorCredential({ organizationId: "", organizationSlug: "", channel: "direct", environment });
  const org = await services.organizations.getOrganizationBySlug(orgSlug);
  return operatorCredential({
    organizationId: org.id,
    organizationSlug: org.slug,
    channel: org.source,
    environment,
  });
}

/** What the lists and the page of a rule show of it (the expanded view of the API). */
interface RuleView {
  id: string;
  status: string;
  version: number;
  kind: string;
  minimumGrade: string | null;
  effectiveFrom: string | null;
  effectiveUntil: string | null;
  priority: number;
  awardedCredits: number | null;
  awardedCreditUnit: string | null;
  targetInstitutionId: string;
  targets: { courseId: string | null; code: string | null; credits: number | null }[];
  decidedBy: string | null;
  policyBasis: string | null;
  sourceCourses: { id: string; code: string; title: string; institution: { id: string; name: string } }[];
  targetInstitution: { name: string };
}

const sourcesOf = (rule: RuleView) => rule.sourceCourses.map((course) => course.code).join(" + ");
const targetsOf = (rule: RuleView) =>
  rule.kind === "no_credit" ? "no credit" : rule.targets.map((target) => target.code ?? target.courseId).join(" + ");
const creditsOf = (rule: RuleView) =>
  rule.awardedCredits === null ? null : `${rule.awardedCredits} ${rule.awardedCreditUnit}`;

/** One line of a table per rule: its courses and institutions by name, its outcome and conditions. */
function ruleRow(rule: RuleView) {
  return {
    id: rule.id,
    status: rule.status,
    from: rule.sourceCourses[0]?.institution.name,
    sources: sourcesOf(rule),
    to: rule.targetInstitution.name,
    targets: targetsOf(rule),
    kind: rule.kind,
    grade: rule.minimumGrade,
    credits: creditsOf(rule),
    effective:
      rule.effectiveFrom || rule.effectiveUntil ? `${rule.effectiveFrom ?? "…"}..${rule.effectiveUntil ?? "…"}` : null,
  };
}

/** The rule in words, a field a line. */
export function describeRule(rule: RuleView): string {
  const lines: [string, string | number | null][] = [
    ["Rule", `${rule.id} (version ${rule.version}, ${rule.status})`],
    [
      "From",
      `${sourcesOf(rule)} at ${rule.sourceCourses[0]?.institution.name} (${rule.sourceCourses[0]?.institution.id})`,
    ],
    ["To", `${targetsOf(rule) || "—"} at ${rule.targetInstitution.name} (${rule.targetInstitutionId})`],
    ["Kind", rule.kind],
    ["Minimum grade", rule.minimumGrade ? `${rule.minimumGrade} or better` : "any passing grade"],
    ["In force", `${rule.effectiveFrom ?? "always"} to ${rule.effectiveUntil ?? "open"}`],
    ["Priority", rule.priority],
    ["Credits", creditsOf(rule) ?? "none"],
    ["Decided by", rule.decidedBy],
    ["Policy basis", rule.policyBasis],
  ];
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines
    .filter(([, value]) => value !== null && value !== "")
    .map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`)
    .join("\n");
}

/** A course of the institution by its code (or a course id as it is). */
async function courseIdOf(
  services: Services,
  caller: Credential,
  institutionId: string,
  code: string,
  pointer: string,
): Promise<string | undefined> {
  if (/^crs_\w+$/.test(code)) return code;
  const page = await services.courses.listCourses(
    caller,
    { institution: institutionId, q: code },
    { limit: 100, offset: 0 },
  );
  return (
    page.items.find((course) => courseCodeKey(course.code) === courseCodeKey(code))?.id ??
    (pointer.startsWith("/targets") ? undefined : raise(pointer, `no course "${code}" at ${institutionId}`))
  );
}

function raise(pointer: string, message: string): never {
  throw ValidationError.single(pointer, message);
}

interface CreateOptions {
  org: string;
  env: Environment;
  from: string;
  source: string[];
  to: string;
  target?: string[];
  targetCredits?: number[];
  kind?: (typeof KINDS)[number];
  area?: string;
  minimumGrade?: EquivalencyCreate["minimumGrade"];
  effectiveFrom?: string;
  effectiveUntil?: string;
  priority?: number;
  awardedCredits?: number;
  status?: (typeof STATUSES)[number];
  decidedBy?: string;
  policyBasis?: string;
  dryRun?: boolean;
}

/** The body of POST /equivalencies that the options describe, with their codes resolved. */
async function ruleBody(services: Services, caller: Credential, opts: CreateOptions): Promise<EquivalencyCreate> {
  const from = institutionIdOf(opts.from);
  const to = institutionIdOf(opts.to);
  const sourceCourseIds: string[] = [];
  for (const [index, code] of opts.source.entries())
    sourceCourseIds.push((await courseIdOf(services, caller, from, code, `/sourceCourseIds/${index}`))!);
  const targets = [];
  for (const [index, code] of (opts.target ?? []).entries()) {
    // A code that is no course of the target institution is a code (an elective code such as MATH 1XX).
    const courseId = await courseIdOf(services, caller, to, code, `/targets/${index}`);
    const credits = opts.targetCredits?.[index];
    targets.push({ ...(courseId ? { courseId } : { code }), ...(credits !== undefined ? { credits } : {}) });
  }
  const optional = {
    kind: opts.kind,
    generalEducationArea: opts.area,
    minimumGrade: opts.minimumGrade,
    effectiveFrom: opts.effectiveFrom,
    effectiveUntil: opts.effectiveUntil,
    priority: opts.priority,
    awardedCredits: opts.awardedCredits,
    status: opts.status,
    decidedBy: opts.decidedBy,
    policyBasis: opts.policyBasis,
  };
  return {
    sourceCourseIds,
    targetInstitutionId: to,
    targets,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  } as EquivalencyCreate;
}

const number = (value: string) => {
  const parsed = Number(value);
  if (value.trim() === "" || !Number.isFinite(parsed) || parsed < 0)
    throw new InvalidArgumentError("expected a number such as 4 or 3.5");
  return parsed;
};
const collect =
  <T>(parse: (value: string) => T) =>
  (value: string, previous: T[] = []) => [...previous, parse(value)];

export function addRuleCommands(equivalencies: Command, output: Output, withServices: WithServices): void {
  equivalencies
    .command("list")
    .description("List rules, oldest first, with their courses and institutions by name (GET /equivalencies)")
    .addOption(envOption())
    .addOption(orgOption("act as this organization (reading needs none)"))
    .option("--target-institution <id>", "only rules of this receiving institution (inst_110635 or 110635)")
    .option("--source-course <id>", "only rules with this course among their sources")
    .addOption(new Option("--status <status>", "only rules of this status").choices(STATUSES))
    .addOption(new Option("--kind <kind>", "only rules of this kind").choices(KINDS))
    .option("--as-of <date>", "only rules in force on this day (YYYY-MM-DD)", calendarDate)
    .option("--limit <n>", "at most this many rules (1-100)", wholeNumber(1, 100), 25)
    .option("--offset <n>", "skip this many rules", wholeNumber(0, Number.MAX_SAFE_INTEGER), 0)
    .action((opts) =>
      withServices(async (services) => {
        const caller = await actingAs(services, opts.env, opts.org);
        const page = await services.equivalencies.listExpandedEquivalencies(
          caller,
          {
            targetInstitution: opts.targetInstitution && institutionIdOf(opts.targetInstitution),
            sourceCourse: opts.sourceCourse,
            status: opts.status,
            kind: opts.kind,
            asOf: opts.asOf,
          },
          { limit: opts.limit, offset: opts.offset },
        );
        const rules = page.items as unknown as RuleView[];
        if (output.json) return output.result({ data: rules, total: page.total }, "");
        output.table(rules.map(ruleRow), [
          "id",
          "status",
          "from",
          "sources",
          "to",
          "targets",
          "kind",
          "grade",
          "credits",
          "effective",
        ]);
      }),
    );

  equivalencies
    .command("show")
    .description("Show one rule in words (GET /equivalencies/{id})")
    .argument("<id>", "the rule's id, eq_…")
    .addOption(envOption())
    .addOption(orgOption("act as this organization (reading needs none)"))
    .action((id: string, opts: { env: Environment; org?: string }) =>
      withServices(async (services) => {
        const caller = await actingAs(services, opts.env, opts.org);
        const { representation } = await services.equivalencies.getEquivalency(caller, id);
        const rule = JSON.parse(representation) as RuleView;
        output.result(rule, describeRule(rule));
      }),
    );

  equivalencies
    .command("create")
    .description(
      "Create a rule for the organization (POST /equivalencies): courses by their codes, targets by code " +
        "(a course of the receiving institution, or an elective code such as MATH 1XX)",
    )
    .addOption(
      orgOption("the organization that writes the rule (a steward of the receiving institution)").makeOptionMandatory(),
    )
    .addOption(envOption())
    .requiredOption("--from <institution>", "the sending institution (inst_122977 or 122977)")
    .requiredOption(
      "--source <code>",
      "a source course code (repeat for a rule of several courses, all required)",
      collect(String),
    )
    .requiredOption("--to <institution>", "the receiving institution (inst_110635 or 110635)")
    .option("--target <code>", "a target course code or elective code (repeat for several)", collect(String))
    .option("--target-credits <n>", "the credits of the target in the same position (repeat)", collect(number))
    .addOption(new Option("--kind <kind>", "the outcome (default equivalent)").choices(KINDS))
    .option("--area <area>", "the general-education area, for --kind general_education (e.g. IGETC 5A)")
    .option("--minimum-grade <grade>", "the lowest grade that meets the rule: A+ … D-, or P (any case)", letterGrade)
    .option("--effective-from <date>", "first day in force (YYYY-MM-DD)", calendarDate)
    .option("--effective-until <date>", "last day in force (YYYY-MM-DD)", calendarDate)
    .option("--priority <n>", "orders rules that deliberately overlap (default 0)", wholeNumber(-1000, 1000))
    .option("--awarded-credits <n>", "the credits awarded (default: the targets' credits)", number)
    .addOption(new Option("--status <status>", "the rule's status (default pending)").choices(STATUSES))
    .option("--decided-by <body>", "who decided")
    .option("--policy-basis <text>", "the policy or agreement it rests on")
    .option("--dry-run", "check the rule and print it, writing nothing")
    .action((opts: CreateOptions) =>
      withServices(async (services) => {
        const caller = await actingAs(services, opts.env, opts.org);
        const body = await ruleBody(services, caller, opts);
        const outcome = await services.equivalencies.createEquivalency(caller, body, { dryRun: opts.dryRun === true });
        if (outcome.kind === "preview") {
          const { status, awardedCredits, awardedCreditUnit } = outcome.preview;
          const credits = awardedCredits === null ? "no credits" : `${awardedCredits} ${awardedCreditUnit}`;
          return output.result(
            outcome.preview,
            `Dry run, nothing written: the rule checks out and would be created ${status}, awarding ${credits}.`,
          );
        }
        output.result(outcome.view, `Created:\n${describeRule(outcome.view as unknown as RuleView)}`);
      }),
    );
}
