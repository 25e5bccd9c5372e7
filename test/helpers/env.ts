// The test suite's own switches, read in one place.
export const testEnv = {
  /** A PostgreSQL server URL: run every suite against it instead of PGlite. */
  SVC_TEST_DATABASE_URL: process.env.SVC_TEST_DATABASE_URL || undefined,
};
