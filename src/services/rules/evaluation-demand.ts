// The demand evaluations count (GET /equivalency-requests), gathered in memory and written in
// batches: an evaluation adds its asks here and writes nothing, so the hot path waits on no write.
// A requester (the credential; for the public sandbox key, the client address) counts at most once
// per course, target institution and UTC day: the batch keeps one ask per such fingerprint, and the
// database keeps the fingerprints of the day, so a second process, or a later batch, counts it no
// more. The batch is written
//  - before this process reads the list (flushBefore), so a process answers its own asks at once;
//  - every `intervalMs` (5 s by default), so what other processes gathered shows within that time;
//  - when it holds `maxAsks` asks;
//  - and when the server stops (flush at shutdown: SIGTERM loses nothing).
// Only keyed hashes leave this module: never the credential, the address or the input.
import crypto from "node:crypto";
import type { DemandAsk, EquivalencyRequestsRepository } from "../../repositories/equivalency-requests.ts";

export interface DemandOptions {
  intervalMs?: number;
  maxAsks?: number;
  onError?: (error: unknown) => void;
}

export interface DemandBatch {
  /** Adds the asks of one evaluation (written later). */
  add(asks: readonly Omit<DemandAsk, "fingerprint" | "requester" | "day">[], requester: string, at: Date): void;
  /** Writes what is gathered; resolves when it is stored (a failed write keeps the asks for the next). */
  flush(): Promise<void>;
  /** Asks gathered and not yet written. */
  pending(): number;
  /** Stops the timer and writes what is gathered. */
  close(): Promise<void>;
}

export function createDemandBatch(
  repository: Pick<EquivalencyRequestsRepository, "countBatch">,
  key: Buffer,
  options: DemandOptions = {},
): DemandBatch {
  const maxAsks = options.maxAsks ?? 10_000;
  let asks = new Map<string, DemandAsk>();
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  const hash = (text: string) => crypto.createHmac("sha256", key).update(text).digest("base64url");

  function schedule() {
    if (timer || options.intervalMs === 0) return;
    timer = setTimeout(() => {
      timer = null;
      flush().catch((error: unknown) => options.onError?.(error));
    }, options.intervalMs ?? 5_000);
    timer.unref();
  }

  function flush(): Promise<void> {
    // One write at a time, in order: a flush waits for the one under way, then writes what is left.
    writing = writing
      .catch(() => undefined)
      .then(async () => {
        if (asks.size === 0) return;
        const batch = asks;
        asks = new Map();
        try {
          await repository.countBatch([...batch.values()], new Date().toISOString().slice(0, 10));
        } catch (error) {
          for (const [fingerprint, ask] of batch) if (!asks.has(fingerprint)) asks.set(fingerprint, ask);
          schedule();
          throw error;
        }
      });
    return writing;
  }

  return {
    add(given, requester, at) {
      if (given.length === 0) return;
      const day = at.toISOString().slice(0, 10);
      // One keyed hash per requester and environment; each ask's fingerprint is a plain hash over it,
      // as unlinkable to the requester without the key, at a fifth of an HMAC's cost (an evaluation
      // of 40 courses may ask for 40).
      const whoIn = new Map<string, string>();
      for (const ask of given) {
        let who = whoIn.get(ask.environment);
        if (who === undefined) {
          who = hash(`${ask.environment}\n${requester}`);
          whoIn.set(ask.environment, who);
        }
        const fingerprint = crypto.hash(
          "sha256",
          `${who}\n${day}\n${ask.targetInstitutionId}\n${ask.courseKey}`,
          "base64url",
        );
        const known = asks.get(fingerprint);
        // The latest title given of a course the catalog lacks is the one listed.
        asks.set(fingerprint, { ...ask, fingerprint, requester: who, day, at: known && known.at > at ? known.at : at });
      }
      if (asks.size >= maxAsks) flush().catch((error: unknown) => options.onError?.(error));
      else if (asks.size > 0) schedule();
    },
    flush,
    pending: () => asks.size,
    async close() {
      if (timer) clearTimeout(timer);
      timer = null;
      await flush();
    },
  };
}
