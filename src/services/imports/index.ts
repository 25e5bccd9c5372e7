// Reference-data imports (the CLI's `import` commands): institutions and CIP codes.
import type { Repositories } from "../../repositories/index.ts";
import { createCipImportsService } from "./cip.ts";
import { createInstitutionImportsService } from "./institutions.ts";

export function createCatalogImportsService(repositories: Pick<Repositories, "catalogImports">) {
  return { ...createInstitutionImportsService(repositories), ...createCipImportsService(repositories) };
}

export type CatalogImportsService = ReturnType<typeof createCatalogImportsService>;
