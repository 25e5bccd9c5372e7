// "May this caller call this operation?", decided in one place from the document alone: the
// scopes its OAuth2 security requirement names, the credential kinds it serves
// (`x-credential-kinds`: members and the audit log are for people) and the role a user's token
// needs (`x-user-role`). Which institutions a caller may write for is stewardship, a rule of the
// services (src/services/stewardship.ts), because it depends on the record, not the operation.
import type { Operation } from "openapi-backend";
import type { UserRole } from "../../generated/prisma/client.ts";
import { ForbiddenError } from "../kernel/errors.ts";
import type { Credential, Scope } from "./credential.ts";

/** What the document says an operation asks of its caller. */
export interface OperationRules {
  scopes: Scope[];
  /** Only these kinds of credential may call it (absent: every kind). */
  credentialKinds?: Credential["kind"][];
  /** A user's token needs this role (API keys and OAuth clients are governed by their scopes alone). */
  userRole?: UserRole;
}

interface DocumentedOperation {
  security?: Record<string, string[]>[];
  "x-credential-kinds"?: Credential["kind"][];
  "x-user-role"?: UserRole;
}

/** Operations are the router's, built once: their rules are read once too. */
const rulesOf = new WeakMap<object, OperationRules>();

export function operationRules(operation: Operation): OperationRules {
  let rules = rulesOf.get(operation);
  if (!rules) {
    const documented = operation as DocumentedOperation;
    const scopes = (documented.security ?? []).flatMap((requirement) => requirement.OAuth2 ?? []);
    rules = {
      scopes: [...new Set(scopes)] as Scope[],
      credentialKinds: documented["x-credential-kinds"],
      userRole: documented["x-user-role"],
    };
    rulesOf.set(operation, rules);
  }
  return rules;
}

/** Throws the 403 that says what is missing: a scope, the kind of credential, or the role. */
export function authorize(operation: Operation, credential: Credential): void {
  const { scopes, credentialKinds, userRole } = operationRules(operation);
  const missing = scopes.filter((scope) => !credential.scopes.includes(scope));
  if (missing.length) {
    throw new ForbiddenError(
      `This operation needs the scope ${missing.join(", ")}, which the credential does not hold.`,
    );
  }
  if (credentialKinds && !credentialKinds.includes(credential.kind)) {
    throw new ForbiddenError(
      "This operation is for people: it needs a dashboard user's access token with the admin role, not an API key or OAuth client.",
    );
  }
  if (userRole && credential.kind === "user" && credential.user?.role !== userRole) {
    throw new ForbiddenError(`This operation needs the ${userRole} role; the user's role is ${credential.user?.role}.`);
  }
}
