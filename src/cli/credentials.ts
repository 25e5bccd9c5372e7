// The `keys` and `oauth-clients` groups of the CLI: an organization's API keys and OAuth clients,
// each secret printed once, alone on the last line.
import type { Command } from "commander";
import { SCOPES } from "../auth/credential.ts";
import { envOption, scopeList, type WithServices } from "./options.ts";
import type { Output } from "./output.ts";

export function addCredentialCommands(program: Command, output: Output, withServices: WithServices): void {
  const keys = program.command("keys").description("Manage API keys");
  keys
    .command("create")
    .description("Create an API key; the key is printed once, alone on the last line")
    .requiredOption("--org <slug>", "organization slug")
    .addOption(envOption())
    .option("--scopes <scopes>", `comma-separated: ${SCOPES.join(",")}`, scopeList, [...SCOPES])
    .option("--name <name>", "a label to recognise the key by")
    .action((opts) =>
      withServices(async ({ organizations, keys }) => {
        const org = await organizations.getOrganizationBySlug(opts.org);
        const { view, key } = await keys.issueKey({
          organizationId: org.id,
          environment: opts.env,
          scopes: opts.scopes,
          name: opts.name,
        });
        output.result(
          { ...view, organization: org.slug, key },
          `Created ${view.environment} key ${view.id} for ${org.slug} (scopes ${view.scopes.join(", ")}). It is shown only now:\n${key}`,
        );
      }),
    );
  keys
    .command("list")
    .description("List an organization's keys (prefixes only)")
    .requiredOption("--org <slug>", "organization slug")
    .action((opts) =>
      withServices(async ({ organizations, keys }) => {
        const org = await organizations.getOrganizationBySlug(opts.org);
        const { items } = await keys.listOrganizationKeys(org.id, undefined, { limit: 10_000, offset: 0 });
        output.table(items, ["id", "prefix", "environment", "scopes", "name", "lastUsedAt", "revokedAt"]);
      }),
    );
  keys
    .command("revoke")
    .description("Revoke a key by id")
    .argument("<id>", "key id (key_…)")
    .action((id: string) =>
      withServices(async (services) => {
        const view = await services.keys.revokeAnyKey(id);
        output.result(view, `Revoked ${view.id} (${view.prefix}…).`);
      }),
    );

  const oauthClients = program
    .command("oauth-clients")
    .description("Manage OAuth 2.0 clients (client credentials grant)");
  oauthClients
    .command("create")
    .description("Create an OAuth client; the secret is printed once, alone on the last line")
    .requiredOption("--org <slug>", "organization slug")
    .addOption(envOption())
    .option("--scopes <scopes>", `comma-separated: ${SCOPES.join(",")}`, scopeList, [...SCOPES])
    .option("--name <name>", "a label")
    .action((opts) =>
      withServices(async ({ organizations, oauthClients }) => {
        const org = await organizations.getOrganizationBySlug(opts.org);
        const { client, clientSecret } = await oauthClients.createOAuthClient({
          organizationId: org.id,
          environment: opts.env,
          scopes: opts.scopes,
          name: opts.name,
        });
        output.result(
          {
            id: client.id,
            clientId: client.clientId,
            environment: client.environment,
            scopes: client.scopes,
            clientSecret,
          },
          `Created OAuth client ${client.clientId} (${client.environment}, scopes ${client.scopes.join(" ")}). Its secret is shown only now:\n${clientSecret}`,
        );
      }),
    );

  oauthClients
    .command("list")
    .description("List an organization's OAuth clients, revoked ones included (never their secrets)")
    .requiredOption("--org <slug>", "organization slug")
    .action((opts) =>
      withServices(async ({ organizations, oauthClients }) => {
        const org = await organizations.getOrganizationBySlug(opts.org);
        const clients = await oauthClients.listOAuthClients(org.id);
        output.table(clients, ["id", "name", "environment", "scopes", "createdAt", "lastUsedAt", "revokedAt"]);
      }),
    );
  oauthClients
    .command("revoke")
    .description("Revoke an OAuth client: no new tokens, and the tokens it was issued stop working")
    .argument("<id>", "client id (oac_…)")
    .action((id: string) =>
      withServices(async (services) => {
        const view = await services.oauthClients.revokeOAuthClient(id);
        output.result(
          view,
          `Revoked OAuth client ${view.id}${view.name ? ` (${view.name})` : ""} at ${view.revokedAt}; its tokens are refused from now on.`,
        );
      }),
    );
}
