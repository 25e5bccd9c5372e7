// Successful attempts are recorded in batches: while one UPDATE runs, the
// successes that finish meanwhile queue for the next, so a busy dispatcher
// writes one statement per batch instead of one per delivery.
import type { DeliveriesRepository } from "../repositories/deliveries.ts";
import type { SentAttempt } from "./sender.ts";

interface Queued {
  id: string;
  sent: SentAttempt;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

export class SuccessBatch {
  private queue: Queued[] = [];
  private flushing = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deliveries: Pick<DeliveriesRepository, "recordSuccesses">,
    private readonly owner: string,
    private readonly maxBatch = 500,
    private readonly delayMs = 10,
  ) {}

  /** Resolves true once recorded, false when this dispatcher no longer held the lease. */
  record(id: string, sent: SentAttempt): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, sent, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Writes a little later, not at once: the embedded database runs on this
   * thread, so a write per success would stall every exchange in flight. A
   * batch goes when it is full or when its first success has waited `delayMs`.
   */
  private schedule(): void {
    if (this.flushing || !this.queue.length) return;
    if (this.queue.length >= this.maxBatch) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      void this.flush();
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.delayMs);
    }
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      const recorded = new Set(await this.write(batch));
      for (const item of batch) item.resolve(recorded.has(item.id));
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      this.flushing = false;
      this.schedule();
    }
  }

  private write(batch: Queued[]): Promise<string[]> {
    return this.deliveries.recordSuccesses(
      this.owner,
      batch.map(({ id, sent }) => ({
        id,
        signature: sent.signature,
        responseStatus: sent.result.responseStatus,
        responseExcerpt: sent.result.responseExcerpt,
        durationMs: sent.result.durationMs,
        attemptedAt: sent.attemptedAt,
      })),
    );
  }
}
