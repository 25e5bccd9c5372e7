// Several API processes on one port (SVC_CLUSTER_WORKERS=N, node:cluster). The
// primary does the one-time work before forking: migrations, sealing stored
// secrets, the sandbox key and seed, the token-signing key (so every worker
// signs and verifies with the same one). Then it forks N workers, each a
// complete server (src/main.ts) that shares the listening socket, restarts a
// worker that dies, and on SIGTERM/SIGINT stops them all. It also serves the
// workers' metrics, summed (prom-client's AggregatorRegistry), on
// SVC_METRICS_PORT. More than one process needs PostgreSQL: the configuration
// refuses N > 1 on the embedded database (src/config.ts).
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import type { Config } from "../kernel/config.ts";
import type { Logger } from "../kernel/logger.ts";
import { exitOnKeyProblem, openSecrets, prepareDatabase } from "./startup.ts";
import { openDatabase, type Database } from "../db/database.ts";
import type { Keyring } from "./secrets-keyring.ts";
import { createAccessTokens } from "../auth/oauth.ts";
import { repositoriesOf } from "../repositories/index.ts";
import { startMetricsServer } from "./metrics-server.ts";
import { collectProcessMetrics, registry } from "../kernel/metrics.ts";

/** A worker that dies is replaced, unless workers die this often (then the primary gives up). */
const RESTART_WINDOW_MS = 60_000;
const RESTARTS_PER_WORKER_IN_WINDOW = 3;
const STOP_TIMEOUT_MS = 15_000;

/** In a cluster worker the primary already migrated, sealed and seeded: the worker only opens the database. */
export async function prepareProcessDatabase(config: Config, log: Logger, keyring: Keyring): Promise<Database> {
  if (cluster.isWorker) return openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  return prepareDatabase(config, log, keyring);
}

/** Process metrics, and the metrics port unless this is a cluster worker (the primary serves the workers'). */
export async function serveProcessMetrics(config: Config, log: Logger): Promise<void> {
  collectProcessMetrics();
  // A worker answers the primary's requests for its metrics (prom-client adds that listener here).
  if (cluster.isWorker) new AggregatorRegistry();
  if (!config.metrics || cluster.isWorker) return;
  await startMetricsServer(
    config.metrics,
    { contentType: registry.contentType, metrics: () => registry.metrics() },
    log,
  );
}

/**
 * With SVC_CLUSTER_WORKERS > 1, in the primary: prepares, forks, supervises,
 * and answers true (main.ts then does nothing else). Answers false in a worker
 * or a single process.
 */
export async function runClusterPrimary(config: Config, log: Logger): Promise<boolean> {
  if (config.clusterWorkers <= 1 || !cluster.isPrimary) return false;
  const keyring = await exitOnKeyProblem(() => openSecrets(config, log));
  const database = await exitOnKeyProblem(() => prepareDatabase(config, log, keyring));
  await createAccessTokens(repositoriesOf(database), config, keyring.box);
  await database.close();

  const aggregator = new AggregatorRegistry();
  if (config.metrics) {
    await startMetricsServer(
      config.metrics,
      { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() },
      log,
    );
  }

  let stopping = false;
  let restarts: number[] = [];
  const listening = new Set<number>();
  const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
  const stopAll = (code: number) => {
    stopping = true;
    const workers = live();
    if (!workers.length) process.exit(code);
    for (const worker of workers) worker.process.kill("SIGTERM");
    cluster.on("exit", () => {
      if (!live().length) process.exit(code);
    });
    setTimeout(() => process.exit(code || 1), STOP_TIMEOUT_MS).unref();
  };

  cluster.on("listening", (worker, address) => {
    listening.add(worker.id);
    if (listening.size === config.clusterWorkers) {
      log.info(
        { url: `http://${config.host}:${address.port}/api/v1`, workers: config.clusterWorkers, database: "postgresql" },
        "cluster listening",
      );
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) return;
    const now = Date.now();
    restarts = [...restarts.filter((at) => now - at < RESTART_WINDOW_MS), now];
    if (restarts.length > RESTARTS_PER_WORKER_IN_WINDOW * config.clusterWorkers) {
      log.fatal({ restarts: restarts.length }, "API processes keep exiting; stopping the cluster");
      stopAll(1);
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, "an API process exited; starting another");
    cluster.fork();
  });
  for (let i = 0; i < config.clusterWorkers; i++) cluster.fork();
  log.info({ workers: config.clusterWorkers, pid: process.pid }, "cluster primary started");

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log.info({ signal }, "stopping the cluster");
      stopAll(0);
    });
  }
  return true;
}
