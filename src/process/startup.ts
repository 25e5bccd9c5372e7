// Start-up work shared by the server, the dispatcher and the CLI: open the
// database, apply pending migrations, make sure stored secrets are sealed and
// open under the configured keys, and make sure the sandbox is usable.
import type { Config } from "../kernel/config.ts";
import { openDatabase, type Database, type DatabaseOptions } from "../db/database.ts";
import { applyMigrations } from "../db/migrations.ts";
import type { Logger } from "../kernel/logger.ts";
import { KeyFileError, openKeyring, type Keyring } from "./secrets-keyring.ts";
import { createSandboxService } from "../services/sandbox.ts";
import { repositoriesOf } from "../repositories/index.ts";
import { CLEAR, createStoredSecretsService, StoredSecretsError } from "../services/stored-secrets.ts";

export async function openMigratedDatabase(
  config: Config,
  log: Logger,
  extra: Partial<DatabaseOptions> = {},
): Promise<Database> {
  return (await openAndMigrate(config, log, extra)).database;
}

async function openAndMigrate(config: Config, log: Logger, extra: Partial<DatabaseOptions>) {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sharedBuffersMb: config.embeddedSharedBuffersMb,
    ...extra,
  });
  const applied = await database.session((sql) => applyMigrations(sql));
  if (applied.length) log.info({ migrations: applied }, "applied migrations");
  return { database, applied };
}

/** The keys that seal stored secrets (SVC_SECRETS_KEY, or the data directory's key file). */
export function openSecrets(config: Config, log: Logger): Keyring {
  const keyring = openKeyring(config);
  if (keyring.keyFile && config.databaseUrl) {
    log.warn(
      { keyFile: keyring.keyFile },
      "SVC_SECRETS_KEY is unset: stored secrets are sealed with a key file in SVC_DATA_DIR; every process on this database needs the same key, so set SVC_SECRETS_KEY outside development",
    );
  }
  return keyring;
}

/**
 * Refuses to start when a stored secret is sealed under a key that is not
 * configured, then seals every secret still in the clear (a database from
 * before secrets were sealed). Idempotent.
 */
export async function prepareStoredSecrets(database: Database, keyring: Keyring, log: Logger): Promise<void> {
  const storedSecrets = createStoredSecretsService(repositoriesOf(database));
  await storedSecrets.assertEverySecretOpens(keyring.box, keyring.source);
  const { sealed } = await storedSecrets.sealStoredSecrets(keyring.box, "clear");
  if (sealed[CLEAR])
    log.info({ sealed: sealed[CLEAR], keyId: keyring.box.keyId }, "sealed stored secrets that were in the clear");
}

/** Everything `npm start` needs before it listens. */
export async function prepareDatabase(
  config: Config,
  log: Logger,
  keyring: Keyring,
  extra: Partial<DatabaseOptions> = {},
): Promise<Database> {
  const { database, applied } = await openAndMigrate(config, log, extra);
  await prepareStoredSecrets(database, keyring, log);
  const sandbox = createSandboxService(repositoriesOf(database));
  await sandbox.ensurePublicSandboxKey(config.publicSandboxKey);
  let seeded = null;
  if (config.seedSandbox) {
    seeded = await sandbox.seedSandboxIfEmpty();
    if (seeded) log.info(seeded, "seeded the sandbox environment");
  }
  await sandbox.grantSeedStewardship();
  // The embedded database's first start (migrations, seed) leaves its WebAssembly heap grown.
  if (applied.length || seeded) await database.shedStartupMemory();
  return database;
}

/**
 * For entry points: a key file that cannot be read, or stored secrets the
 * configured keys cannot open, stop the process with the reason (exit 78, like
 * an invalid variable) instead of a stack trace.
 */
export async function exitOnKeyProblem<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof KeyFileError || error instanceof StoredSecretsError) {
      process.stderr.write(`Invalid configuration: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
