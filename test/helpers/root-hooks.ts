import { dropTemplates } from "./database.ts";
import { enforceContractCoverage } from "./contract-coverage.ts";
import { testEnv } from "./env.ts";

export const mochaHooks = {
  async afterAll() {
    try {
      if (testEnv.SVC_TEST_CONTRACT_COVERAGE) enforceContractCoverage();
    } finally {
      await dropTemplates();
    }
  },
};
