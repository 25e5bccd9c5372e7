// The `orgs` group of the CLI: organizations (the tenants that own keys, webhooks and datasets) and
// the institutions they steward.
import { type Command, Option } from "commander";
import { CHANNELS, describeTarget, envOption, grantTarget, institutionList, type WithServices } from "./options.ts";
import type { Output } from "./output.ts";

export function addOrganizationCommands(program: Command, output: Output, withServices: WithServices): void {
  const orgs = program
    .command("orgs")
    .description("Manage organizations (the tenants that own keys, webhooks, datasets)");
  orgs
    .command("create")
    .description("Create an organization")
    .requiredOption("--slug <slug>", "short unique name, e.g. ccc-articulation")
    .requiredOption("--name <name>", "display name")
    .addOption(new Option("--source <channel>", "onboarding channel").choices(CHANNELS).default("direct"))
    .action((opts) =>
      withServices(async (services) => {
        const org = await services.organizations.createOrganization({
          slug: opts.slug,
          name: opts.name,
          source: opts.source,
        });
        output.result(org, `Created organization ${org.slug} (${org.id}, ${org.source}).`);
      }),
    );
  orgs
    .command("list")
    .description("List organizations")
    .action(() =>
      withServices(async (services) => {
        const list = await services.organizations.listOrganizations();
        output.table(list, ["id", "slug", "name", "source"]);
      }),
    );

  const grantOptions = (command: Command) =>
    command
      .requiredOption("--org <slug>", "organization slug")
      .addOption(envOption())
      .option("--institution <ids>", "comma-separated institution ids, e.g. inst_110635,inst_122977", institutionList)
      .option("--all", "every institution of the environment, present and future (system offices, consortia)");
  grantOptions(
    orgs.command("grant").description("Let an organization write for institutions (stewardship) in one environment"),
  ).action((opts) =>
    withServices(async (services) => {
      const org = await services.organizations.getOrganizationBySlug(opts.org);
      const target = grantTarget(opts);
      await services.stewardship.grantStewardship(org.id, opts.env, target);
      output.result(
        { organization: org.slug, environment: opts.env, granted: target },
        `Granted ${org.slug} stewardship of ${describeTarget(target)} in ${opts.env}.`,
      );
    }),
  );
  grantOptions(orgs.command("revoke-grant").description("Withdraw stewardship granted with `orgs grant`")).action(
    (opts) =>
      withServices(async (services) => {
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const target = grantTarget(opts);
        await services.stewardship.revokeStewardship(org.id, opts.env, target);
        output.result(
          { organization: org.slug, environment: opts.env, revoked: target },
          `Revoked ${org.slug}'s stewardship of ${describeTarget(target)} in ${opts.env}.`,
        );
      }),
  );
  orgs
    .command("show")
    .description("Show an organization and the institutions it stewards in each environment")
    .requiredOption("--org <slug>", "organization slug")
    .action((opts) =>
      withServices(async (services) => {
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const stewardship = await services.stewardship.describeStewardship(org.id);
        const lines = stewardship.map(({ environment, allInstitutions, institutionIds }) => {
          const listed = institutionIds.length ? institutionIds.join(", ") : "none";
          return `  ${environment}: ${allInstitutions ? `every institution (standing grant)${institutionIds.length ? `; also listed: ${listed}` : ""}` : listed}`;
        });
        output.result(
          { id: org.id, slug: org.slug, name: org.name, source: org.source, stewardship },
          [`${org.slug} — ${org.name} (${org.id}, ${org.source})`, "Stewarded institutions:", ...lines].join("\n"),
        );
      }),
    );
}
