// Equivalencies and their immutable versions: the queries of the read paths
// moved here so far (see the report of issue 12 for what still lives in services/equivalencies.ts).
import type { Equivalency, EquivalencyVersion } from "../../generated/prisma/client.ts";
import type { Db, Environment } from "../services/types.ts";

export function createEquivalenciesRepository(db: Db) {
  return {
    findById(environment: Environment, id: string): Promise<Equivalency | null> {
      return db.equivalency.findFirst({ where: { id, environment } });
    },

    /** Every version of one equivalency, newest first. */
    listVersions(equivalencyId: string): Promise<EquivalencyVersion[]> {
      return db.equivalencyVersion.findMany({ where: { equivalencyId }, orderBy: { version: "desc" } });
    },

    findVersion(equivalencyId: string, version: number): Promise<EquivalencyVersion | null> {
      return db.equivalencyVersion.findUnique({ where: { equivalencyId_version: { equivalencyId, version } } });
    },
  };
}

export type EquivalenciesRepository = ReturnType<typeof createEquivalenciesRepository>;
