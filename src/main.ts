// Reads the configuration, prepares the database, builds the app and listens.
import { loadConfigOrExit } from "./config.ts";
import { createLogger } from "./logger.ts";
import type { AddressInfo } from "node:net";
import { exitOnKeyProblem, openSecrets } from "./bootstrap.ts";
import { prepareProcessDatabase, runClusterPrimary, serveProcessMetrics } from "./cluster.ts";
import { createApp } from "./app.ts";
import { createServer } from "./http/server.ts";
import { Dispatcher } from "./webhooks/dispatcher.ts";

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel);
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
  const app = await createApp({ config, database, log, secrets });
  const dispatcher =
    config.webhooks.dispatcher === "inline"
      ? new Dispatcher({ deliveries: app.context.repositories.deliveries, settings: config.webhooks, log, secrets })
      : null;
  const server = createServer(app.koa).listen(config.port, config.host, () => {
    const { port } = server.address() as AddressInfo;
    log.info({ url: `http://${config.host}:${port}/api/v1`, database: database.kind }, "listening");
    dispatcher?.start();
  });
  // A finished write may have committed events: deliver them without waiting for the next poll.
  server.on("request", (request, response) => {
    if (dispatcher && request.method !== "GET" && request.method !== "HEAD")
      response.once("finish", () => dispatcher.wake());
  });

  const shutdown = (signal: string) => {
    log.info({ signal }, "shutting down");
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    const dispatcherStopped = Promise.resolve(dispatcher?.stop()).catch((error) =>
      log.error({ err: error }, "stopping the webhook dispatcher failed"),
    );
    Promise.all([serverClosed, dispatcherStopped])
      .then(() => Promise.all([app.close(), database.close()]))
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
