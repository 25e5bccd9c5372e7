// Start-up work shared by the server, the worker and the CLI: open the
// database, apply pending migrations, and make sure the sandbox is usable.
import type { Config } from "./config.ts";
import { openDatabase, type Database, type DatabaseOptions } from "./db/database.ts";
import { applyMigrations } from "./db/migrations.ts";
import type { Logger } from "./logger.ts";
import { ensurePublicSandboxKey, grantSeedStewardship, seedSandboxIfEmpty } from "./services/sandbox.ts";

export async function openMigratedDatabase(config: Config, log: Logger, extra: Partial<DatabaseOptions> = {}): Promise<Database> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, ...extra });
  const applied = await database.session((sql) => applyMigrations(sql));
  if (applied.length) log.info({ migrations: applied }, "applied migrations");
  return database;
}

/** Everything `npm start` needs before it listens. */
export async function prepareDatabase(config: Config, log: Logger, extra: Partial<DatabaseOptions> = {}): Promise<Database> {
  const database = await openMigratedDatabase(config, log, extra);
  await ensurePublicSandboxKey(database.prisma, config.publicSandboxKey);
  if (config.seedSandbox) {
    const seeded = await seedSandboxIfEmpty(database.prisma);
    if (seeded) log.info(seeded, "seeded the sandbox environment");
  }
  await grantSeedStewardship(database.prisma);
  return database;
}
