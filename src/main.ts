// Reads the configuration, prepares the database, builds the app and listens.
import cluster from "node:cluster";
import net from "node:net";
import { loadConfigOrExit } from "./kernel/config.ts";
import { createLogger } from "./kernel/logger.ts";
import { exitOnKeyProblem, openSecrets } from "./process/startup.ts";
import { prepareProcessDatabase, runClusterPrimary, serveProcessMetrics } from "./process/cluster.ts";
import { createApp } from "./app/app.ts";
import { createServer } from "./app/server.ts";
import { Dispatcher } from "./webhooks/dispatcher.ts";
import { adminSocketPath, openAdminChannel, type AdminChannel } from "./process/admin-channel.ts";
import { holdServerPresence } from "./process/server-presence.ts";
import { debugStack, describeFailure } from "./process/exit-messages.ts";
import { ensureWritableDirectory } from "./db/database.ts";
import { serverCommandRunner } from "./cli/server-commands.ts";

/** A port another process holds, said plainly. */
class PortInUseError extends Error {}

function portInUse(host: string, port: number): PortInUseError {
  return new PortInUseError(
    `Port ${port} on ${host} is already in use (another server is listening there). Stop that server, or choose another port: PORT=${port + 1} npm start.`,
  );
}

/**
 * Fails before anything touches the data directory when the port is taken, so
 * that a second `npm start` neither creates nor migrates a database it cannot serve.
 */
function checkPortIsFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? portInUse(host, port) : error),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
  // A cluster's workers share the primary's port and data directory: the primary checks them once.
  if (cluster.isPrimary) {
    await checkPortIsFree(config.host, config.port);
    // The embedded database and the key file (without SVC_SECRETS_KEY) live in the data directory.
    if (!config.databaseUrl || !config.secrets.key) ensureWritableDirectory(config.dataDir);
  }
  // SVC_CLUSTER_WORKERS > 1: this process prepares the database once and forks the servers (src/cluster.ts).
  if (await runClusterPrimary(config, log)) return;
  const keyring = await exitOnKeyProblem(() => openSecrets(config, log));
  const database = await exitOnKeyProblem(() => prepareProcessDatabase(config, log, keyring));
  await serveProcessMetrics(config, log);
  const secrets = keyring.box;
  // Every request would fail from here on: exit, so that a supervisor restarts the service.
  void database.lost.then((error) => {
    log.fatal({ err: error }, "the database is no longer usable");
    process.exit(1);
  });
  // On PostgreSQL, commands that must not run beside a server (secrets rotate with the key file) see this one.
  const presence = database.kind === "postgresql" ? await holdServerPresence(database) : null;
  const app = await createApp({ config, database, log, secrets });
  const dispatcher =
    config.webhooks.dispatcher === "inline"
      ? new Dispatcher({ deliveries: app.context.repositories.deliveries, settings: config.webhooks, log, secrets })
      : null;
  const server = createServer(app.koa);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? portInUse(config.host, config.port) : error),
    );
    server.listen(config.port, config.host, () => resolve());
  });
  // The CLI beside the server: its commands run here, on this process's database (embedded only:
  // on PostgreSQL every process opens the database itself).
  let channel: AdminChannel | null = null;
  if (database.kind === "embedded") {
    // The embedded database sends no revocation notices: a key revoked here leaves this cache at
    // once, and its event streams end.
    const runner = serverCommandRunner(database, {
      forgetCredential: (id) => {
        app.context.authenticator.forget(id);
        app.context.services.events.credentialRevoked(id);
      },
    });
    channel = await openAdminChannel(adminSocketPath(config.dataDir), runner, log).catch((error: unknown) => {
      log.warn({ err: error }, "the CLI's channel could not be opened: stop the server to run the CLI");
      return null;
    });
  }
  dispatcher?.start();
  // A finished write may have committed events: deliver them without waiting for the next poll.
  server.on("request", (request, response) => {
    if (dispatcher && request.method !== "GET" && request.method !== "HEAD")
      response.once("finish", () => dispatcher.wake());
  });

  const shutdown = (signal: string) => {
    log.info({ signal }, "shutting down");
    // Open event streams would hold the server open: end them, and their clients reconnect elsewhere.
    const streamsClosed = app
      .closeStreams()
      .catch((error) => log.error({ err: error }, "closing event streams failed"));
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    const dispatcherStopped = Promise.resolve(dispatcher?.stop()).catch((error) =>
      log.error({ err: error }, "stopping the webhook dispatcher failed"),
    );
    const channelClosed = Promise.resolve(channel?.close()).catch((error) =>
      log.error({ err: error }, "closing the CLI's channel failed"),
    );
    Promise.all([streamsClosed, serverClosed, dispatcherStopped, channelClosed])
      .then(() => presence?.release())
      // The app first: it writes the demand gathered in memory, which needs the database.
      .then(() => app.close())
      .catch((error) => log.error({ err: error }, "closing the app failed"))
      .then(() => database.close())
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  // Announced last: a supervisor (or a test) that signals the process as soon as it reads this
  // line must find the shutdown handlers installed, or the signal's default would kill it.
  const port = (server.address() as net.AddressInfo).port;
  log.info({ url: `http://${config.host}:${port}/api/v1`, database: database.kind, cli: channel?.path }, "listening");
  collectStartupGarbage();
}

/**
 * Start-up (migrations, the sandbox seed, the contract's compiled validators) leaves garbage that
 * V8 keeps resident until allocation pressure asks for it back, which an idle server never has. One
 * full collection once listening returns it (docs/benchmarks.md, memory). `npm start` runs node with
 * --expose-gc for this; without the flag (tests, tsx) nothing happens.
 */
function collectStartupGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

main().catch((error) => {
  process.stderr.write(`Failed to start: ${describeFailure(error)}\n`);
  const stack = debugStack(error);
  if (stack) process.stderr.write(`${stack}\n`);
  process.exit(1);
});
