// Option parsers and options shared by the CLI's command groups.
import { InvalidArgumentError, Option } from "commander";
import { SCOPES } from "../auth/credential.ts";
import type { Database } from "../db/database.ts";
import type { Services } from "../services/index.ts";
import type { GrantTarget } from "../services/stewardship.ts";
import { Channel, Environment } from "../../generated/prisma/enums.ts";

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
    .map((id) => id.trim())
    .filter(Boolean);
  if (!ids.length || ids.some((id) => !/^inst_\d+$/.test(id)))
    throw new InvalidArgumentError("expected comma-separated institution ids such as inst_110635");
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
