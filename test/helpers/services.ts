// For the services' unit tests: a caller, and the problem a service call is refused with.
import { expect } from "chai";
import type { Credential } from "../../src/auth/credential.ts";
import { ProblemError } from "../../src/kernel/errors.ts";

/** An API key of org_1 in the sandbox, with both scopes. */
export const SANDBOX_CALLER: Credential = {
  kind: "api_key",
  id: "key_1",
  organizationId: "org_1",
  organizationSlug: "org-1",
  channel: "direct",
  environment: "sandbox",
  scopes: ["read:public", "write:contribute"],
};

/** The ProblemError the promise rejects with; fails the test when it resolves, or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<ProblemError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ProblemError);
    return error as ProblemError;
  }
  throw new Error("expected a rejection");
}
