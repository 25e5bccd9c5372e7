// The `users` group of the CLI: people of an organization. The first admin of an organization
// comes from here (there is no self-service sign-up): `users invite` prints a one-time sign-in link.
import { type Command, Option } from "commander";
import { USER_ROLES } from "../auth/credential.ts";
import type { WithServices } from "./options.ts";
import type { Output } from "./output.ts";

export function addUsersCommands(program: Command, output: Output, withServices: WithServices): void {
  const users = program.command("users").description("Manage people (dashboard users) of an organization");
  users
    .command("invite")
    .description(
      "Add a person (or find them) and print a one-time sign-in link (15 minutes, single use), alone on the last line",
    )
    .requiredOption("--org <slug>", "organization slug")
    .requiredOption("--email <email>", "the person's email address")
    .addOption(new Option("--role <role>", "their role").choices([...USER_ROLES]).makeOptionMandatory())
    .option("--name <name>", "display name")
    .action((opts) =>
      withServices(async (services) => {
        const invitation = await services.users.inviteUser({
          organizationSlug: opts.org,
          email: opts.email,
          role: opts.role,
          name: opts.name ?? null,
        });
        const { user, signInUrl, expiresAt, created } = invitation;
        const what = created
          ? `Added ${user.email} to ${opts.org} as ${user.role} (${user.id}).`
          : `${user.email} is already a member of ${opts.org} (${user.role}, ${user.id}); here is a new link.`;
        output.result(
          { id: user.id, email: user.email, role: user.role, created, signInUrl, expiresAt: expiresAt.toISOString() },
          `${what} Open this link within 15 minutes; it works once:\n${signInUrl}`,
        );
      }),
    );
  users
    .command("list")
    .description("List an organization's users, disabled ones included")
    .requiredOption("--org <slug>", "organization slug")
    .action((opts) =>
      withServices(async (services) => {
        const { items } = await services.users.listUsers(opts.org, { limit: 100_000, offset: 0 });
        output.table(items, ["id", "email", "name", "role", "disabledAt", "lastSignInAt", "createdAt"]);
      }),
    );
  users
    .command("disable")
    .description("Disable a user: no sign-in, and their sessions and tokens end at once")
    .argument("<id>", "user id (usr_…)")
    .action((id: string) =>
      withServices(async (services) => {
        const view = await services.users.disableUser(id);
        output.result(view, `Disabled ${view.email} (${view.id}); their sessions have ended.`);
      }),
    );
}
