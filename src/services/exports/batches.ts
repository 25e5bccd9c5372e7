// Reading a whole table batch by batch (the readers are in
// src/repositories/exports.ts): the first batch at once, the rest on demand.
import type { BatchReader } from "../../repositories/exports.ts";

export type { BatchReader } from "../../repositories/exports.ts";

export const DEFAULT_BATCH_SIZE = 1_000;

/**
 * Reads the first batch now, so that a failure before any byte is sent can still
 * become a problem response; the rest is read lazily as the consumer pulls.
 */
export async function openBatches<Row>(read: BatchReader<Row>, batchSize: number): Promise<AsyncGenerator<Row[]>> {
  const first = await read(null, batchSize);
  return (async function* () {
    let batch = first;
    for (;;) {
      if (batch.length) yield batch;
      if (batch.length < batchSize) return;
      batch = await read(batch[batch.length - 1], batchSize);
    }
  })();
}
