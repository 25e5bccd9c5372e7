// What the rule benchmarks (rules.ts, import.ts) share: their options, a fresh database with a
// source and a target institution, numbered courses made in one statement, and the caller the
// services are called as (an organization that stewards everything).
import { parseArgs } from "node:util";
import type { Credential } from "../../src/auth/credential.ts";
import type { Database } from "../../src/db/database.ts";
import { repositoriesOf } from "../../src/repositories/index.ts";
import { createEquivalenciesService } from "../../src/services/equivalencies.ts";
import { createCredential, createInstitutions, freshDatabase, type BenchDatabase } from "./harness.ts";

export interface RuleBenchOptions {
  databaseUrl: string | null;
  counts: Record<string, number>;
}

/** `--database-url` and the numbered options given, each with its default. */
export function readRuleBenchOptions(defaults: Record<string, number>): RuleBenchOptions {
  const { values } = parseArgs({
    options: {
      "database-url": { type: "string" },
      ...Object.fromEntries(Object.keys(defaults).map((name) => [name, { type: "string" as const }])),
    },
    strict: true,
  });
  const counts = Object.fromEntries(
    Object.entries(defaults).map(([name, fallback]) => {
      const value = Number((values as Record<string, string | undefined>)[name] ?? fallback);
      if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a positive whole number`);
      return [name, value];
    }),
  );
  return { databaseUrl: (values as Record<string, string | undefined>)["database-url"] ?? null, counts };
}

export interface RuleBench {
  bench: BenchDatabase;
  source: string;
  target: string;
  caller: Credential;
  rules: ReturnType<typeof createEquivalenciesService>;
}

/** A fresh database with two institutions and a caller that stewards every institution. */
export async function ruleBench(options: RuleBenchOptions): Promise<RuleBench> {
  const bench = await freshDatabase({ databaseUrl: options.databaseUrl });
  const [source, target] = await createInstitutions(bench.database, 2);
  const { organizationId } = await createCredential(bench.database);
  const caller: Credential = {
    kind: "api_key",
    id: "key_bench",
    organizationId,
    organizationSlug: "bench",
    channel: "direct",
    environment: "live",
    scopes: ["read:public", "write:contribute"],
  };
  return { bench, source, target, caller, rules: createEquivalenciesService(repositoriesOf(bench.database)) };
}

/** Courses `<prefix> <n>` (ids `crs_<prefix>_<n>`), n from 0, at one institution, quarter units. */
export async function createCourses(database: Database, institutionId: string, prefix: string, count: number) {
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO courses (id, environment, institution_id, code, code_key, title, credits, credit_unit, level, created_at, updated_at)
     SELECT 'crs_' || $2 || '_' || n, 'live', $1, $2 || ' ' || n, upper($2) || ' ' || n, 'Benchmark course ' || n, 4,
            'quarter', 'lower', now(), now()
     FROM generate_series(0, $3 - 1) AS n`,
    institutionId,
    prefix,
    count,
  );
}

export const courseId = (prefix: string, n: number) => `crs_${prefix}_${n}`;
