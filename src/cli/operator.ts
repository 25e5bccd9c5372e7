// The operator: whoever runs the server's command line. Changes made by a CLI command are audited
// with this actor (credential kind `operator`, id the OS user name) in the change's own
// transaction, like an API request's. Over the administrative channel the command runs in the
// server, whose socket only the server's own OS user can open: the same user name either way.
import os from "node:os";
import type { Credential } from "../auth/credential.ts";
import { SCOPES } from "../auth/credential.ts";
import type { Channel, Environment } from "../../generated/prisma/enums.ts";
import { newId } from "../kernel/ids.ts";
import { type ChangeOrigin, runAsChange } from "../services/change-origin.ts";

function osUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers) is still named.
    return `uid:${process.getuid?.() ?? "unknown"}`;
  }
}

/**
 * The operator as a credential. A command that acts for one organization in one environment
 * (an import) gives them; the services' other operator paths take the organization from the
 * record they change, so the placeholder is never read.
 */
export function operatorCredential(
  acting: { organizationId: string; organizationSlug: string; channel: Channel; environment: Environment } = {
    organizationId: "",
    organizationSlug: "",
    channel: "direct",
    environment: "live",
  },
): Credential {
  return { kind: "operator", id: osUserName(), scopes: [...SCOPES], ...acting };
}

/** Runs a command's work as the operator's change: `cli:<command>` is its operationId. */
export async function runAsOperator<T>(
  command: string,
  work: () => Promise<T>,
  actor = operatorCredential(),
): Promise<T> {
  const origin: ChangeOrigin = {
    actor,
    operationId: `cli:${command}`,
    requestId: newId("req"),
    clientRequestId: null,
  };
  return (await runAsChange(origin, work)).result;
}
