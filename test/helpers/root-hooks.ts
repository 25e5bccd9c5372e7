import { dropTemplates } from "./database.ts";

export const mochaHooks = {
  async afterAll() {
    await dropTemplates();
  },
};
