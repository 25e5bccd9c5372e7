// Option parsers and options shared by the CLI's command groups.
import { InvalidArgumentError, Option } from "commander";
import { SCOPES } from "../auth/credential.ts";
import type { Database } from "../db/database.ts";
import type { Services } from "../services/index.ts";
import type { GrantTarget } from "../services/stewardship.ts";
import { Channel, Environment } from "../../generated/prisma/enums.ts";
import { institutionIdOf } from "../kernel/ids.ts";

/** Runs a command's work with services over the opened database, as the operator. */
export type WithServices = <T>(fn: (services: Services, database: Database) => Promise<T>) => Promise<T>;

export const ENVIRONMENTS = Object.values(Environment);
export const CHANNELS = Object.values(Channel);

export function scopeList(value: string): string[] {
  const scopes = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (!scopes.length || unknown.length)
    throw new InvalidArgumentError(`expected a comma-separated list of ${SCOPES.join(", ")}`);
  return scopes;
}

export function institutionList(value: string): string[] {
  const ids = value
    .split(",")
    .map((id) => institutionIdOf(id.trim()))
    .filter(Boolean);
  if (!ids.length || ids.some((id) => !/^inst_\d+$/.test(id)))
    throw new InvalidArgumentError("expected comma-separated institution ids such as inst_110635 (or 110635)");
  return ids;
}

export function grantTarget(opts: { institution?: string[]; all?: boolean }): GrantTarget {
  if (Boolean(opts.institution) === Boolean(opts.all))
    throw new InvalidArgumentError("give either --institution <ids> or --all");
  return opts.all ? { all: true } : { institutionIds: opts.institution! };
}

export function describeTarget(target: GrantTarget): string {
  return "all" in target ? "every institution" : target.institutionIds.join(", ");
}

export const envOption = () =>
  new Option("--env <environment>", "live or sandbox").choices(ENVIRONMENTS).makeOptionMandatory();

/** `--org`, the organization's slug (`--organization` is the same option: see normaliseOptionNames). */
export const orgOption = (description = "organization slug") => new Option("--org <slug>", description);

/**
 * The long and the short names of the two options every group uses are one option: `--organization`
 * is `--org` and `--environment` is `--env`, in every command (`--organization=acme` too).
 */
export function normaliseOptionNames(argv: readonly string[]): string[] {
  const names: Record<string, string> = { "--organization": "--org", "--environment": "--env" };
  return argv.map((word) => {
    const [name, ...value] = word.split("=");
    const short = names[name];
    return short ? [short, ...value].join("=") : word;
  });
}

/** A calendar date written `YYYY-MM-DD` that exists. */
export function calendarDate(value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(date.getTime()) || !date.toISOString().startsWith(value))
    throw new InvalidArgumentError(`expected a date YYYY-MM-DD, e.g. 2024-08-15, not "${value}"`);
  return value;
}

const LETTER_GRADES = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "P"] as const;

/** A minimum grade, in any case (`c+` is `C+`). */
export function letterGrade(value: string): (typeof LETTER_GRADES)[number] {
  const grade = value.trim().toUpperCase();
  if (!(LETTER_GRADES as readonly string[]).includes(grade))
    throw new InvalidArgumentError(`expected a letter grade A+ … D-, or P, not "${value}"`);
  return grade as (typeof LETTER_GRADES)[number];
}

/** A whole number within bounds. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || parsed < min || parsed > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return parsed;
  };
}
