// `npm run -s cli -- events tail`: the administrator's view of the change feed, printed
// as events commit, in commit order.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { buildProgram } from "../../src/cli/program.ts";
import { createOutput } from "../../src/cli/output.ts";
import { openKeyring } from "../../src/process/secrets-keyring.ts";
import { bearer, createTestApp, type TestApp } from "../helpers/app.ts";
import { COURSES, loadInstitutions } from "../helpers/fixtures.ts";

describe("CLI: events tail", () => {
  let t: TestApp;
  let tmp: string;

  /** Runs the command line; `onOutput` sees what is printed as it is printed. */
  async function cli(args: string[], onOutput: (printed: string) => void = () => undefined) {
    let printed = "";
    const output = createOutput((text) => {
      printed += text;
      onOutput(printed);
    });
    const keepOpen = async () => ({ ...t.database, close: async () => {} });
    const keyring = () => openKeyring({ dataDir: tmp, secrets: { key: null, oldKeys: [] } });
    const program = buildProgram(output, keepOpen, keepOpen, keyring, tmp, new AbortController().signal);
    const quiet = (command: Command) => {
      command.exitOverride().configureOutput({ writeOut: (s) => (printed += s), writeErr: (s) => (printed += s) });
      command.commands.forEach(quiet);
    };
    quiet(program);
    await program.parseAsync(["node", "cli", ...args]);
    return printed;
  }

  const retitle = async (title: string) => {
    const response = await t.http
      .post("/api/v1/courses")
      .set(bearer(t.keys.live))
      .send({ ...COURSES["CS 55"], title });
    expect(response.status).to.equal(201);
  };

  before(async () => {
    t = await createTestApp();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cli-events-"));
    await loadInstitutions(t.database.prisma, "live");
    await retitle("Java");
    for (const title of ["Java I", "Java II"]) await retitle(title);
  });
  after(async () => {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("prints the environment's events from the start as JSON lines, in commit order", async () => {
    const printed = await cli(["--json", "events", "tail", "--env", "live", "--from-start", "--count", "2"]);
    const lines = printed
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => [e.position, e.type, e.data.version])).to.deep.equal([
      ["1", "course.updated", 2],
      ["2", "course.updated", 3],
    ]);
    const outbox = await t.database.prisma.outboxEvent.findMany({ orderBy: { sequence: "asc" } });
    expect(lines.map(({ position: _position, ...envelope }) => envelope)).to.deep.equal(outbox.map((e) => e.payload));
  });

  it("waits at the end of the feed and prints each event as it is committed", async () => {
    // From a position: the next event committed is printed once it commits.
    const fromPosition = cli(["events", "tail", "--env", "live", "--after", "2", "--count", "1"]);
    await retitle("Java III");
    expect(await fromPosition).to.match(/^3\t\S+\tcourse\.updated\tevt_\S+\t\{.*"version":4\b/);

    // Without a position the tail begins at the end of the feed: it prints none of the events
    // already there, only one written while it runs (writes go on until it has printed).
    let ended = false;
    const fromEnd = cli(["--json", "events", "tail", "--env", "live", "--count", "1"]).finally(() => {
      ended = true;
    });
    for (let round = 1; !ended; round++) {
      await retitle(`Java, round ${round}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [line] = (await fromEnd)
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text));
    expect(Number(line.position)).to.be.greaterThan(3);
    expect(line.data.version).to.be.greaterThan(4);
  });

  it("refuses a position that is not a whole number", async () => {
    let error: unknown;
    try {
      await cli(["events", "tail", "--env", "live", "--after", "soon"]);
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.contain("whole number");
  });
});
