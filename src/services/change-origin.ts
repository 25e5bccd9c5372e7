// Who is making a change, and through what: the API pipeline, the CLI and SSO sign-in each run
// their work inside an origin, and a service writing a change appends the audit entry for the
// record it changed inside that change's own transaction (services/audit.ts, auditChange). The
// origin travels with the asynchronous call chain, so a service that is also called by seed
// scripts and test fixtures (which are no actor's change) needs no extra parameter.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Credential } from "../auth/credential.ts";

export interface ChangeOrigin {
  /** Who acts: the request's credential, the CLI's operator, or the user signing in. */
  actor: Credential;
  /** The API's operationId, or the CLI command's own name. */
  operationId: string;
  /** This service's own id for the request or command. */
  requestId: string | null;
  /** The X-Request-Id the client sent, kept beside the service's own. */
  clientRequestId: string | null;
}

interface OriginState extends ChangeOrigin {
  /** How many audit entries the work has appended (committed or not): the pipeline checks a change wrote one. */
  entries: number;
  /** Set by a service whose request changed nothing (revoking a revoked key): no entry is due. */
  unchanged: boolean;
}

const origins = new AsyncLocalStorage<OriginState>();
/** Changes under way in this process: the storage is switched on only while there is one. */
let running = 0;

/**
 * Runs `work` as `origin`'s change; returns its result and how many audit entries it appended.
 * While any storage is on, Node runs a hook at every promise's creation, in all work, the reads
 * included (a fifth of a single read's CPU, docs/benchmarks.md): the storage is switched off again
 * when the last change under way ends, and the next change's run switches it back on.
 */
export async function runAsChange<T>(
  origin: ChangeOrigin,
  work: () => Promise<T>,
): Promise<{ result: T; entries: number; unchanged: boolean }> {
  const state: OriginState = { ...origin, entries: 0, unchanged: false };
  running += 1;
  try {
    const result = await origins.run(state, work);
    return { result, entries: state.entries, unchanged: state.unchanged };
  } finally {
    running -= 1;
    if (running === 0) origins.disable();
  }
}

/** The origin of the change being made, if any. */
export function currentOrigin(): ChangeOrigin | undefined {
  return origins.getStore();
}

/** Counts an appended entry against the current origin. */
export function countAuditEntry(): void {
  const state = origins.getStore();
  if (state) state.entries += 1;
}

/** Says the current work changed nothing, so it owes no audit entry. */
export function noteNothingChanged(): void {
  const state = origins.getStore();
  if (state) state.unchanged = true;
}
