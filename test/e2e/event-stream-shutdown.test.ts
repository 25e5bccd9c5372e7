// A server that stops (SIGTERM) ends its event streams cleanly: the client's response ends, the
// process exits 0 at once rather than waiting for the streams (or being killed by its 10 s guard),
// and the client reconnects with Last-Event-ID elsewhere.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadConfig } from "../../src/kernel/config.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { exited, portOf, spawnService, type ServiceProcess } from "../helpers/processes.ts";

describe("event streams when the server stops", () => {
  let dataDir: string;
  let database: TestDatabase;
  let service: ServiceProcess | null = null;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-stream-stop-"));
    database = await freshDatabase();
  });
  after(async () => {
    await service?.kill();
    // The server's own connections are gone by now: the test's may close the database.
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("streamEvents: SIGTERM ends the open stream and the process exits 0", async function () {
    this.timeout(240_000);
    // The test's own connection is not needed by the server: on PostgreSQL it migrates the database itself.
    service = spawnService("src/main.ts", {
      PORT: "0",
      SVC_DATA_DIR: dataDir,
      DATABASE_URL: database.url ?? "",
      SVC_SEED_SANDBOX: "true",
    });
    const port = portOf(await service.waitForLog("listening"));
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/events/stream`, {
      headers: {
        Authorization: `Bearer ${loadConfig({}).publicSandboxKey}`,
        Accept: "text/event-stream",
      },
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^text\/event-stream/);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).to.match(/^retry: \d+/);

    const exit = exited(service.child);
    service.child.kill("SIGTERM");
    // The stream ends (no error: the server ended it), then the process exits with status 0.
    for (;;) if ((await reader.read()).done) break;
    await exit;
    expect(service.child.exitCode, service.stderr()).to.equal(0);
  });
});
