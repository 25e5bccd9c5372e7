// Bounds on the work exports may take: a number of exports per organization at once (one more is a
// 429 with Retry-After), and a number of database connections all exports' batch reads share, so
// that a burst of exports, from however many organizations, leaves the rest of the pool to the
// other requests. Both are counted in this process.
import { ProblemError } from "../../kernel/errors.ts";

export interface ExportLimits {
  /** Exports one organization may run at once (SVC_EXPORTS_PER_ORGANIZATION). */
  perOrganization: number;
  /** Batch reads of all exports running at once (SVC_EXPORT_DATABASE_CONNECTIONS). */
  databaseConnections: number;
}

export const DEFAULT_EXPORT_LIMITS: ExportLimits = { perOrganization: 2, databaseConnections: 3 };

/** How long a refused client is told to wait: about what a large export takes. */
export const EXPORT_RETRY_AFTER_SECONDS = 10;

/** Runs at most `size` tasks at once; the others wait their turn, first come first served. */
export function createGate(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function through<T>(task: () => Promise<T>): Promise<T> {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/** The exports each organization is running; `claim` refuses one more than the limit, `release` ends one. */
export function createExportSlots(perOrganization: number) {
  const running = new Map<string, number>();
  return {
    claim(organizationId: string): () => void {
      const count = running.get(organizationId) ?? 0;
      if (count >= perOrganization) {
        throw new ProblemError(
          "too-many-exports",
          `Your organization already runs ${count} export${count === 1 ? "" : "s"}, the most it may at once; retry when one has finished.`,
          { headers: { "Retry-After": String(EXPORT_RETRY_AFTER_SECONDS) } },
        );
      }
      running.set(organizationId, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (running.get(organizationId) ?? 1) - 1;
        if (left > 0) running.set(organizationId, left);
        else running.delete(organizationId);
      };
    },
  };
}
