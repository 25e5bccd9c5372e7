// A SqlRunner over a PGlite instance on the calling thread: what the embedded
// database's thread uses for `Database.session`, and what tests and benchmarks
// use where they hold a PGlite of their own (a template to dump, a baseline).
import type { PGlite } from "@electric-sql/pglite";
import type { SqlRunner } from "./database.ts";

export function pgliteRunner(pglite: PGlite): SqlRunner {
  return {
    async exec(sql) {
      await pglite.exec(sql);
    },
    async query<T>(sql: string, params: unknown[] = []) {
      return (await pglite.query(sql, params)).rows as T[];
    },
  };
}
