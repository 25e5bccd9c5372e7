// Successful attempts are recorded in batches: while one UPDATE runs, the
// successes that finish meanwhile queue for the next, so a busy dispatcher
// writes one statement per batch instead of one per delivery.
import type { Db } from "../services/types.ts";
import type { SentAttempt } from "./attempts.ts";

interface Queued {
  id: string;
  sent: SentAttempt;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

export class SuccessBatch {
  private queue: Queued[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly owner: string,
  ) {}

  /** Resolves true once recorded, false when this dispatcher no longer held the lease. */
  record(id: string, sent: SentAttempt): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id, sent, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, 500);
        try {
          const recorded = new Set(await this.write(batch));
          for (const item of batch) item.resolve(recorded.has(item.id));
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Queued[]): Promise<string[]> {
    const rows = batch.map(({ id, sent }) => ({
      id,
      signature: sent.signature,
      responseStatus: sent.result.responseStatus,
      responseExcerpt: sent.result.responseExcerpt,
      durationMs: sent.result.durationMs,
      attemptedAt: sent.attemptedAt.toISOString(),
    }));
    const updated = await this.db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE webhook_deliveries AS d
       SET status = 'succeeded', signature = v.signature, response_status = v."responseStatus", response_excerpt = v."responseExcerpt",
           duration_ms = v."durationMs", error = NULL, attempted_at = v."attemptedAt"::timestamp(3), next_retry_at = NULL,
           lease_owner = NULL, lease_expires_at = NULL
       FROM json_to_recordset($1::json)
         AS v (id text, signature text, "responseStatus" int, "responseExcerpt" text, "durationMs" int, "attemptedAt" text)
       WHERE d.id = v.id AND d.lease_owner = $2 AND d.status = 'pending'
       RETURNING d.id`,
      JSON.stringify(rows),
      this.owner,
    );
    return updated.map((row) => row.id);
  }
}
