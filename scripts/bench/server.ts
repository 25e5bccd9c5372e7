// The server side of scripts/bench/reads.ts, in its own process so that the
// load generator does not share the server's event loop: opens the database the
// parent loaded, builds the real app, listens on an ephemeral loopback port and
// tells the parent the origin over IPC.
import { startServer, type BenchDatabase } from "./harness.ts";
import { openMigratedDatabase } from "../../src/process/startup.ts";
import { createLogger } from "../../src/kernel/logger.ts";
import { benchConfig } from "./harness.ts";
import { answerProfileRequests } from "./profiling.ts";

async function main() {
  const config = benchConfig(process.env.BENCH_DATA_DIR!, process.env.BENCH_DATABASE_URL || null);
  const database = await openMigratedDatabase(config, createLogger("silent"));
  const bench: BenchDatabase = { database, config, label: "", dispose: () => database.close() };
  const server = await startServer(bench);
  answerProfileRequests();
  process.send!({ origin: server.origin });
  process.once("disconnect", () => {
    server
      .close()
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
