// Running a fast-check property with the fuzz suite's settings: SVC_FUZZ_RUNS
// requests per property, and a seed per property derived from the run's own
// (SVC_FUZZ_SEED replays it), named in every failure report.
import fc from "fast-check";
import { testEnv } from "../helpers/env.ts";

export const runs = testEnv.SVC_FUZZ_RUNS;
const baseSeed = testEnv.SVC_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31);

/**
 * Requests sent to shrink a failure. A broken request is drawn from a valid one (a chain), and
 * shrinking the valid one redraws the break: thousands of candidates (each string of a 500-item
 * batch shrinks on its own) can come down to the same small request that passes, and shrinking
 * went on past the test's timeout while every request was answered in milliseconds. Past this
 * budget every candidate counts as passing, so the smallest failure found so far is reported.
 */
export const SHRINK_BUDGET = 300;

/**
 * Checks `predicate` (which throws on failure) on `runs` values of `arbitrary`, each property
 * drawing from its own seed, derived from the run's, so one SVC_FUZZ_SEED replays them all.
 */
export async function assertProperty<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  let shrinking = false;
  let shrinkSteps = 0;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    if (shrinking && ++shrinkSteps > SHRINK_BUDGET) return;
    try {
      await predicate(value);
    } catch (error) {
      shrinking = true;
      throw error;
    }
  });
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
