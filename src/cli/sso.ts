// The `sso` commands: an organization's single sign-on connections (OIDC or
// SAML 2.0), one per email domain. Registered by scripts/cli.ts.
import fs from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import type { Services } from "../services/index.ts";
import type { Database } from "../db/database.ts";
import { parseRoleMap, type SsoConnectionView } from "../services/sso.ts";
import { parseIdpMetadata } from "../services/sso-metadata.ts";
import { ProblemError } from "../kernel/errors.ts";
import type { Output } from "./output.ts";

type WithServices = <T>(fn: (services: Services, database: Database) => Promise<T>) => Promise<T>;

function roleMapOption(value: string): Record<string, string> {
  try {
    return parseRoleMap(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof ProblemError ? JSON.stringify(error.extensions.errors) : "");
  }
}

/**
 * The metadata document: read from a file, or fetched from an https URL. It carries the
 * certificates that sign assertions, so plain http (anyone on the path could swap them) is refused.
 */
export async function readMetadata(source: string): Promise<string> {
  if (/^http:\/\//i.test(source))
    throw new Error(
      `The metadata must be fetched over https (it carries the IdP's signing certificates), not ${source}; use its https URL, or download it and pass the file.`,
    );
  if (!/^https:\/\//i.test(source)) return fs.readFile(source, "utf8");
  const response = await fetch(source, { signal: AbortSignal.timeout(15_000) });
  if (!response.ok) throw new Error(`Fetching the metadata from ${source} answered ${response.status}.`);
  return response.text();
}

function describe(connection: SsoConnectionView): string {
  const lines = [
    `Added ${connection.protocol.toUpperCase()} sign-in for @${connection.domain} (${connection.id}).`,
    `  ${connection.protocol === "oidc" ? "issuer" : "IdP entity id"}: ${connection.issuer}`,
  ];
  if (connection.ssoUrl) lines.push(`  SSO URL: ${connection.ssoUrl}`);
  for (const certificate of connection.signingCertificates)
    lines.push(`  signing certificate SHA-256 ${certificate.fingerprintSha256} (until ${certificate.notAfter})`);
  if (connection.roleClaim)
    lines.push(
      `  role from ${connection.roleClaim}: ${Object.entries(connection.roleMap)
        .map(([value, role]) => `${value}=${role}`)
        .join(", ")} (unmapped: viewer when new, else unchanged)`,
    );
  return lines.join("\n");
}

export function addSsoCommands(program: Command, output: Output, withServices: WithServices): void {
  const sso = program
    .command("sso")
    .description("Single sign-on for the dashboard: each email domain's identity provider (OIDC or SAML 2.0)");

  sso
    .command("add-oidc")
    .description("Connect an OpenID Connect provider (authorization code with PKCE; discovery from the issuer)")
    .requiredOption("--org <slug>", "organization slug")
    .requiredOption("--domain <domain>", "email domain whose people sign in here, e.g. example.edu")
    .requiredOption("--issuer <url>", "the provider's issuer URL (its /.well-known/openid-configuration is read)")
    .requiredOption("--client-id <id>", "the client id registered at the provider")
    .requiredOption("--client-secret <secret>", "the client secret (stored sealed)")
    .option("--role-claim <claim>", "the ID token claim that carries the person's role or groups")
    .option("--role-map <map>", 'provider value=role pairs, e.g. "staff=contributor,it=admin"', roleMapOption)
    .action((opts) =>
      withServices(async (services) => {
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const connection = await services.sso.addOidcConnection({
          organizationId: org.id,
          domain: opts.domain,
          issuer: opts.issuer,
          clientId: opts.clientId,
          clientSecret: opts.clientSecret,
          roleClaim: opts.roleClaim,
          roleMap: opts.roleMap,
        });
        output.result(connection, describe(connection));
      }),
    );

  sso
    .command("add-saml")
    .description("Connect a SAML 2.0 identity provider from its metadata (SP-initiated, signed assertions required)")
    .requiredOption("--org <slug>", "organization slug")
    .requiredOption("--domain <domain>", "email domain whose people sign in here, e.g. example.edu")
    .requiredOption("--metadata <file-or-url>", "the identity provider's SAML metadata: a file, or an https URL")
    .option("--role-attribute <name>", "the assertion attribute that carries the person's role or groups")
    .option("--role-map <map>", 'provider value=role pairs, e.g. "staff=contributor,it=admin"', roleMapOption)
    .action((opts) =>
      withServices(async (services) => {
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const metadata = await parseIdpMetadata(await readMetadata(opts.metadata));
        const connection = await services.sso.addSamlConnection({
          organizationId: org.id,
          domain: opts.domain,
          metadata,
          roleAttribute: opts.roleAttribute,
          roleMap: opts.roleMap,
        });
        output.result(connection, describe(connection));
      }),
    );

  sso
    .command("list")
    .description("List an organization's sign-in connections (never the client secrets)")
    .requiredOption("--org <slug>", "organization slug")
    .action((opts) =>
      withServices(async (services) => {
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const connections = await services.sso.listConnections(org.id);
        if (output.json) return output.table(connections, []);
        output.table(
          connections.map((c) => ({
            ...c,
            roles: c.roleClaim
              ? `${c.roleClaim}: ${Object.entries(c.roleMap)
                  .map(([value, role]) => `${value}=${role}`)
                  .join(",")}`
              : null,
          })),
          ["id", "protocol", "domain", "issuer", "roles", "createdAt"],
        );
      }),
    );

  sso
    .command("remove")
    .description("Remove a sign-in connection (its people keep their accounts and can use sign-in links)")
    .argument("<id>", "connection id (sso_…)")
    .action((id: string) =>
      withServices(async (services) => {
        await services.sso.removeSsoConnection(id);
        output.result({ id, removed: true }, `Removed sign-in connection ${id}.`);
      }),
    );
}
