import { PGlite } from "@electric-sql/pglite";
const pg = await PGlite.create();
for (const n of [1e6, 3e6, 6e6]) {
  const t = performance.now();
  await pg.query(`SELECT sum(a) FROM generate_series(1, ${n}) a`);
  console.log(n, (performance.now() - t).toFixed(0));
}
