// The test suite's own switches, read in one place.
export const testEnv = {
  /** A PostgreSQL server URL: run every suite against it instead of PGlite. */
  SVC_TEST_DATABASE_URL: process.env.SVC_TEST_DATABASE_URL || undefined,
  /**
   * "1" (set by `npm test`): after the suite, fail unless every documented response of every
   * operation was produced and validated, or waived. Off for single files, which cover a part.
   */
  SVC_TEST_CONTRACT_COVERAGE: process.env.SVC_TEST_CONTRACT_COVERAGE === "1",
  /**
   * The Redis server of the shared rate-limit tests (a missing server fails them; `.ci/run`
   * starts one). Each test uses its own key prefix and deletes its keys.
   */
  SVC_TEST_REDIS_URL: process.env.SVC_TEST_REDIS_URL || "redis://127.0.0.1:6379",
  /** Requests per property of the fuzz suite (test/fuzz); `npm run test:fuzz` sets many. */
  SVC_FUZZ_RUNS: positiveInteger("SVC_FUZZ_RUNS", process.env.SVC_FUZZ_RUNS, 100),
  /** Replays a fuzz run: the seed its failure report names. Unset, every run draws a new one. */
  SVC_FUZZ_SEED: process.env.SVC_FUZZ_SEED ? integer("SVC_FUZZ_SEED", process.env.SVC_FUZZ_SEED) : undefined,
};

function integer(name: string, raw: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`${name}: expected a whole number, got "${raw}"`);
  return Number(raw);
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const value = integer(name, raw);
  if (value < 1) throw new Error(`${name}: expected at least 1, got ${value}`);
  return value;
}
