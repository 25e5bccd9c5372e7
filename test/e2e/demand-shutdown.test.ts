// The demand evaluations count is gathered in memory and written in batches: a server that stops
// (SIGTERM) writes what it gathered before it closes the database, so a restarted server lists it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadConfig } from "../../src/kernel/config.ts";
import { freshDatabase, type TestDatabase } from "../helpers/database.ts";
import { exited, portOf, spawnService, type ServiceProcess } from "../helpers/processes.ts";

const DE_ANZA = "inst_113333";
const BERKELEY = "inst_110635";

describe("demand when the server stops", () => {
  let dataDir: string;
  let database: TestDatabase;
  let service: ServiceProcess | null = null;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-demand-stop-"));
    database = await freshDatabase();
  });
  after(async () => {
    await service?.kill();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    service = spawnService("src/main.ts", {
      PORT: "0",
      SVC_DATA_DIR: dataDir,
      DATABASE_URL: database.url ?? "",
      SVC_SEED_SANDBOX: "true",
    });
    return `http://127.0.0.1:${portOf(await service.waitForLog("listening", 280_000))}/api/v1`;
  };
  const headers = { Authorization: `Bearer ${loadConfig({}).publicSandboxKey}`, "Content-Type": "application/json" };

  it("createTransferEvaluation and listEquivalencyRequests: SIGTERM writes the demand gathered in memory; a restarted server lists it", async function () {
    this.timeout(600_000);
    let api = await start();
    for (const grade of ["A", "B"]) {
      const response = await fetch(`${api}/transfer-evaluations`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          targetInstitutionId: BERKELEY,
          courses: [{ institutionId: DE_ANZA, code: "ZZZ 901", title: "A course the catalog lacks", grade }],
        }),
      });
      expect(response.status).to.equal(200);
      const body = (await response.json()) as { data: { results: { outcome: string }[] } };
      expect(body.data.results[0].outcome).to.equal("unknown_course");
    }
    const running = service as ServiceProcess;
    const exit = exited(running.child);
    running.child.kill("SIGTERM");
    await exit;
    expect(running.child.exitCode, running.stderr()).to.equal(0);

    api = await start();
    const listed = await fetch(`${api}/equivalency-requests?targetInstitution=${BERKELEY}&inCatalog=false`, {
      headers,
    });
    expect(listed.status).to.equal(200);
    const { data } = (await listed.json()) as { data: { sourceCourse: { code: string }; requests: number }[] };
    expect(data.map((item) => [item.sourceCourse.code, item.requests])).to.deep.equal([["ZZZ 901", 1]]);
  });
});
