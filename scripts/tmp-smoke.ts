import { openDatabase } from "../src/db/database.ts";
import { applyMigrations } from "../src/db/migrations.ts";
const t0 = performance.now();
const db = await openDatabase({ databaseUrl: null, dataDir: "", inMemory: {} });
console.log("open", performance.now() - t0);
console.log(await db.session((sql) => applyMigrations(sql)));
console.log("migrated", performance.now() - t0);
console.log(await db.prisma.$queryRawUnsafe("SELECT 1::int8 AS a, now() AS b, '{1,2}'::int[] AS c, '\\x0102'::bytea AS d, 1.50::numeric AS e, '{\"x\":1}'::jsonb AS f"));
console.log(await db.session((s) => s.query("SELECT 1::int8 AS a, now() AS b, '\\x0102'::bytea AS d")));
console.log(await db.prisma.organization.count());
try { await db.prisma.$queryRawUnsafe("SELECT * FROM nope"); } catch (e) { console.log("err", (e as Error).constructor.name, (e as any).code, (e as Error).message.slice(0, 200)); }
await db.prisma.$transaction(async (tx) => { console.log(await tx.$queryRawUnsafe("SELECT 2 AS x")); });
await db.close();
console.log("closed", performance.now() - t0);
