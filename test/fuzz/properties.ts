// Running a fast-check property with the fuzz suite's settings: SVC_FUZZ_RUNS
// requests per property, and a seed per property derived from the run's own
// (SVC_FUZZ_SEED replays it), named in every failure report.
import fc from "fast-check";
import { testEnv } from "../helpers/env.ts";

export const runs = testEnv.SVC_FUZZ_RUNS;
const baseSeed = testEnv.SVC_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31);

/** Each property draws from its own seed, derived from the run's, so one SVC_FUZZ_SEED replays them all. */
export async function assertProperty<T>(name: string, property: fc.IAsyncProperty<T>): Promise<void> {
  try {
    await fc.assert(property, { numRuns: runs, seed: seedFor(name) });
  } catch (error) {
    (error as Error).message +=
      `\nReplay: SVC_FUZZ_SEED=${baseSeed} SVC_FUZZ_RUNS=${runs} (same seed, same runs, the whole file).`;
    throw error;
  }
}

function seedFor(name: string): number {
  let hash = 0x811c9dc5; // FNV-1a
  for (const character of name) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193);
  return (hash ^ baseSeed) | 0;
}
