// A small, known catalog for tests: institutions in both environments.
import type { Db } from "../../src/db/database.ts";
import type { Environment } from "../../src/services/types.ts";
import type { InstitutionRow } from "../../src/services/imports/institutions.ts";
import { createCatalogImportsService } from "../../src/services/imports/index.ts";
import { createCatalogImportsRepository } from "../../src/repositories/catalog-imports.ts";

export const INSTITUTIONS: InstitutionRow[] = [
  {
    ipedsId: "110635",
    name: "University of California-Berkeley",
    city: "Berkeley",
    state: "CA",
    type: "four_year_public",
    system: "University of California",
    source: "channel_a",
  },
  {
    ipedsId: "110662",
    name: "University of California-Los Angeles",
    city: "Los Angeles",
    state: "CA",
    type: "four_year_public",
    system: "University of California",
    source: "channel_a",
  },
  {
    ipedsId: "122977",
    name: "Santa Monica College",
    city: "Santa Monica",
    state: "CA",
    type: "community_college",
    system: null,
    source: "channel_b",
  },
  {
    ipedsId: "227881",
    name: "Sam Houston State University",
    city: "Huntsville",
    state: "TX",
    type: "four_year_public",
    system: "Texas State University System",
    source: "direct",
  },
  {
    ipedsId: "119216",
    name: "Mt San Jacinto Community College District",
    city: "San Jacinto",
    state: "CA",
    type: "community_college",
    system: "California Community College System",
    source: "direct",
  },
  {
    ipedsId: "166027",
    name: "Harvard University",
    city: "Cambridge",
    state: "MA",
    type: "four_year_private",
    system: null,
    source: "direct",
  },
];

async function* rows(list: InstitutionRow[]) {
  for (const row of list) yield { row };
}

export async function loadInstitutions(db: Db, environment: Environment, list = INSTITUTIONS): Promise<void> {
  await createCatalogImportsService({ catalogImports: createCatalogImportsRepository(db) }).importInstitutions(
    rows(list),
    environment,
  );
}
