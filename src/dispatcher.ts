// `npm run dispatcher`: the webhook dispatcher as its own process, for deployments
// that run the server with SVC_WEBHOOK_DISPATCHER=off. It needs PostgreSQL
// when the server runs at the same time: the embedded database belongs to one
// process.
import { loadConfigOrExit } from "./kernel/config.ts";
import { createLogger } from "./kernel/logger.ts";
import { exitOnKeyProblem, openMigratedDatabase, openSecrets, prepareStoredSecrets } from "./process/startup.ts";
import { DirectoryInUseError } from "./db/directory-lock.ts";
import type { Database } from "./db/database.ts";
import { repositoriesOf } from "./repositories/index.ts";
import { Dispatcher } from "./webhooks/dispatcher.ts";
import { serveProcessMetrics } from "./process/cluster.ts";
import { registerDatabaseGauges } from "./kernel/metrics.ts";

const EMBEDDED_ADVICE =
  "The embedded database (PGlite) can be opened by one process only, so a separate dispatcher cannot share it with a running server. " +
  "With the embedded database, let the server deliver webhooks itself (SVC_WEBHOOK_DISPATCHER=inline, the default); " +
  "to run dispatchers separately, use PostgreSQL (DATABASE_URL) for the server and the dispatchers.";

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
  let database: Database;
  try {
    database = await openMigratedDatabase(config, log);
  } catch (error) {
    if (error instanceof DirectoryInUseError) {
      process.stderr.write(`${error.message}\n${EMBEDDED_ADVICE}\n`);
      process.exit(1);
    }
    throw error;
  }
  if (database.kind === "embedded") log.warn(EMBEDDED_ADVICE);
  const keyring = await exitOnKeyProblem(() => openSecrets(config, log));
  await exitOnKeyProblem(() => prepareStoredSecrets(database, keyring, log));
  const repositories = repositoriesOf(database);
  registerDatabaseGauges({ poolStats: () => database.poolStats(), outboxBacklog: () => repositories.outbox.backlog() });
  await serveProcessMetrics(config, log);
  const dispatcher = new Dispatcher({
    deliveries: repositories.deliveries,
    settings: config.webhooks,
    log,
    secrets: keyring.box,
  });
  dispatcher.start();
  log.info({ owner: dispatcher.owner, database: database.kind }, "webhook dispatcher running");

  const shutdown = (signal: string) => {
    log.info({ signal }, "webhook dispatcher stopping");
    dispatcher
      .stop()
      .then(() => database.close())
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(1), 15_000).unref();
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error) => {
  process.stderr.write(`Webhook dispatcher failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
