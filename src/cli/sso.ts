// The `sso` commands: an organization's single sign-on connections (OIDC or
// SAML 2.0), one per email domain. Registered by scripts/cli.ts.
import fs from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import { parseRoleMap, type SsoConnectionView } from "../services/sso.ts";
import { parseIdpMetadata } from "../services/sso-metadata.ts";
import { ProblemError } from "../kernel/errors.ts";
import type { WithServices } from "./options.ts";
import type { Output } from "./output.ts";

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

/** Where a secret given on standard input comes from: forwarded by the CLI over the channel, or read here. */
export interface SecretInput {
  forwarded?: string;
  readStdin(): Promise<string>;
}

/** The client secret from standard input (its first line), or from the older argv flag with a warning. */
async function clientSecretOf(
  opts: { clientSecret?: string; clientSecretStdin?: boolean },
  input: SecretInput,
  output: Output,
) {
  if (opts.clientSecretStdin) {
    const text = input.forwarded ?? (await input.readStdin());
    const secret = text.split(/\r?\n/)[0]?.trim() ?? "";
    if (!secret)
      throw new Error(
        '--client-secret-stdin read no secret: pipe it in, e.g. printf %s "$SECRET" | … --client-secret-stdin',
      );
    return secret;
  }
  if (opts.clientSecret === undefined)
    throw new Error("give the client secret on standard input with --client-secret-stdin");
  output.error(
    "warning: --client-secret puts the secret in the process list and the shell's history; pipe it to --client-secret-stdin instead",
  );
  return opts.clientSecret;
}

export function addSsoCommands(program: Command, output: Output, withServices: WithServices, input: SecretInput): void {
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
    .option("--client-secret-stdin", "read the client secret (stored sealed) from standard input's first line")
    .option(
      "--client-secret <secret>",
      "the client secret on the command line (kept working, with a warning: prefer --client-secret-stdin)",
    )
    .option("--role-claim <claim>", "the ID token claim that carries the person's role or groups")
    .option("--role-map <map>", 'provider value=role pairs, e.g. "staff=contributor,it=admin"', roleMapOption)
    .action((opts) =>
      withServices(async (services) => {
        const clientSecret = await clientSecretOf(opts, input, output);
        const org = await services.organizations.getOrganizationBySlug(opts.org);
        const connection = await services.sso.addOidcConnection({
          organizationId: org.id,
          domain: opts.domain,
          issuer: opts.issuer,
          clientId: opts.clientId,
          clientSecret,
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
